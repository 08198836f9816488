import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Proc {
  child: ChildProcess;
  url: string;
  /** Peak resident set size so far (VmHWM), in MB. */
  peakRssMb(): number;
  stop(): Promise<void>;
}

export async function waitReady(url: string, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.status < 500) return Date.now() - started;
    } catch {
      /* not listening yet */
    }
    if (Date.now() - started > timeoutMs) throw new Error(`not ready: ${url}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Starts a process and waits until `readyPath` answers; answers how long that took too. */
export async function startProcess(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  port: number,
  readyPath: string,
  readyTimeoutMs?: number,
): Promise<Proc & { readyMs: number }> {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const readyMs = await waitReady(url + readyPath, readyTimeoutMs);
  return {
    child,
    url,
    readyMs,
    peakRssMb: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return Math.round(kb / 1024);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      }),
  };
}

/** `parley serve` from the compiled tree (the `npm start` path). */
export function startParley(
  databaseUrl: string,
  port: number,
  extraEnv: Record<string, string> = {},
  nodeArgs: string[] = [],
) {
  return startProcess(
    'node',
    [...nodeArgs, 'bin/parley.js', 'serve'],
    {
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      PARLEY_RATE_LIMIT: '0',
      ...extraEnv,
    },
    port,
    '/readyz',
  );
}
