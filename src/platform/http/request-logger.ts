import type { FastifyBaseLogger, LogLevel } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Method = 'info' | 'error' | 'debug' | 'fatal' | 'warn' | 'trace';

/**
 * Fastify gives every request a child logger bound to its request id, and pino builds a child by
 * serialising and redacting the bindings: about a microsecond per request, spent even when the
 * request writes no line (below the configured level, the usual case for a read). This child is
 * built on the first line actually written; the line is the same as an eager child's.
 */
class LazyRequestLogger {
  private built: FastifyBaseLogger | undefined;
  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    this.built ??= this.parent.child(this.bindings, this.options);
    return this.built;
  }

  private write(method: Method, args: unknown[]): void {
    // The parent's level is the child's (lazyRequestLogger builds at once a child with a level of its own).
    const enabled = (this.parent as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled;
    if (!this.built && enabled && !enabled.call(this.parent, method)) return;
    const logger = this.logger;
    (logger[method] as (...a: unknown[]) => void).apply(logger, args);
  }

  get level(): LogLevel {
    return (this.built ?? this.parent).level as LogLevel;
  }
  set level(level: LogLevel) {
    this.logger.level = level;
  }
  // Methods on the prototype, not arrow properties: nothing allocated per request but the object itself.
  info(...args: unknown[]) {
    this.write('info', args);
  }
  error(...args: unknown[]) {
    this.write('error', args);
  }
  debug(...args: unknown[]) {
    this.write('debug', args);
  }
  fatal(...args: unknown[]) {
    this.write('fatal', args);
  }
  warn(...args: unknown[]) {
    this.write('warn', args);
  }
  trace(...args: unknown[]) {
    this.write('trace', args);
  }
  silent() {}
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a request logger that costs nothing until it writes. */
export function lazyRequestLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  // A route's own log level (Fastify's `logLevel` option) makes a child whose level differs from its parent's.
  if (options.level !== undefined) return parent.child(bindings, options);
  // Its methods take pino's arguments as they come (LogFn's overloads) and hand them on unchanged.
  return new LazyRequestLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
}
