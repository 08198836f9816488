import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { freePort } from '../lib/processes.js';
import type { Row } from '../lib/table.js';

/**
 * From spawning a command to the first 200 on `readyPath`, then the whole process group is stopped
 * (npm runs the server under a shell: signalling npm alone would leave the server listening).
 */
async function timeToAnswer(cmd: string, args: string[], env: Record<string, string>, readyPath: string) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(cmd, args, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${cmd} ${args.join(' ')} exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}${readyPath}`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return Math.round(performance.now() - started);
      if (performance.now() - started > 60_000) throw new Error(`${cmd} did not answer within 60 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A bare Fastify server: the floor of starting Node and a web framework on this machine, measured in the same run. */
const BARE = `import Fastify from 'fastify';
const app = Fastify();
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });`;

/**
 * `npm start` with a current build (issue 27): from the command to the first 200 on /healthz, on a
 * migrated SQLite file, the worker on (the default). The build check runs as it always does (it must
 * find dist/ current and build nothing), then `parley serve`. Runs alternate so load drifts evenly.
 */
export async function startSection(databaseFile: string, quick: boolean) {
  for (const x of ['', '-wal', '-shm']) rmSync(`${databaseFile}${x}`, { force: true });
  const env = { DATABASE_URL: `sqlite:${databaseFile}`, LOG_LEVEL: 'warn' };
  // The first start migrates the new file: not what a restart costs, so not counted.
  await timeToAnswer('node', ['bin/parley.js', 'serve'], env, '/healthz');
  const runs = quick ? 3 : 7;
  const npmStart: number[] = [];
  const serve: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    npmStart.push(await timeToAnswer('npm', ['start', '--silent'], env, '/healthz'));
    serve.push(await timeToAnswer('node', ['bin/parley.js', 'serve'], env, '/healthz'));
    bare.push(await timeToAnswer('node', ['--input-type=module', '-e', BARE], env, '/healthz'));
  }
  const [n, s, b] = [median(npmStart), median(serve), median(bare)];
  const rows: Row[] = [
    {
      section: 'start',
      measure: `npm start to first 200, median of ${runs} (max)`,
      value: `${n} (${Math.max(...npmStart)})`,
      reference: `${b} (bare Fastify)`,
      ratio: `${(n / b).toFixed(1)}x`,
      target: '< 2000 ms',
      met: n < 2000,
    },
    {
      section: 'start',
      measure: `parley serve to first 200, median of ${runs} (max)`,
      value: `${s} (${Math.max(...serve)})`,
      reference: `${b} (bare Fastify)`,
      ratio: `${(s / b).toFixed(1)}x`,
      target: 'report',
      met: null,
    },
  ];
  return { rows, raw: { npmStart, serve, bare } };
}
