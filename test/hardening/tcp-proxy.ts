import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL), so a test
 * can take "the database" away from one Parley process without touching the
 * server other suites use.
 *
 * - `down()`: every open connection is closed and new ones are closed as soon
 *   as they arrive, as when PostgreSQL stops or restarts.
 * - `blackhole()`: connections stay open but nothing passes either way, as on
 *   a network partition (no FIN, no RST: only timeouts can tell).
 * - `up()`: forwarding again.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  private mode: 'up' | 'down' | 'blackhole' = 'up';
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<this> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  private accept(client: Socket): void {
    client.on('error', () => {});
    if (this.mode === 'down') {
      client.destroy();
      return;
    }
    const upstream = connect(this.targetPort, this.targetHost);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    const pair = { client, upstream };
    this.pairs.add(pair);
    const forget = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', forget);
    upstream.on('close', forget);
    // Forward by hand rather than pipe(), so a black hole can swallow bytes without closing anything.
    client.on('data', (chunk) => {
      if (this.mode === 'up') upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (this.mode === 'up') client.write(chunk);
    });
  }

  /** Connections currently open through the proxy. */
  get open(): number {
    return this.pairs.size;
  }

  down(): void {
    this.mode = 'down';
    for (const { client, upstream } of [...this.pairs]) {
      client.destroy();
      upstream.destroy();
    }
  }

  blackhole(): void {
    this.mode = 'blackhole';
  }

  /** Forwarding again. Connections that were black-holed are closed: their protocol state is lost anyway. */
  up(): void {
    const wasBlackhole = this.mode === 'blackhole';
    this.mode = 'up';
    if (wasBlackhole) {
      for (const { client, upstream } of [...this.pairs]) {
        client.destroy();
        upstream.destroy();
      }
    }
  }

  async stop(): Promise<void> {
    this.down();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
