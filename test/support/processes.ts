import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from './assert.js';
import { issueKey } from '../../src/organizations/api-keys.service.js';
import { openStore } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { freshDatabase } from './harness.js';

/** Helpers for suites that run the compiled `parley` command as real child processes. */

export const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Brings the compiled tree up to date the way `npm start` does (bin/build-if-stale.mjs: a build only when a
 * source is newer than the last complete one), as the CLI runs from it for users. Suites in parallel workers
 * take turns (a lock directory), so two compilers never write the same files while the other's child
 * processes load them. Type errors elsewhere in the tree still emit JavaScript (tsc's default): they are
 * reported, and only a missing CLI entry point is fatal.
 */
export async function buildCli(): Promise<void> {
  const lock = join(tmpdir(), 'parley-test-build.lock');
  const end = Date.now() + 240_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > 300_000) rmSync(lock, { recursive: true, force: true }); // left by a killed run
      } catch {
        /* released meanwhile */
      }
      if (Date.now() > end) throw new Error(`waited too long for ${lock}`);
      await sleep(200);
    }
  }
  try {
    const result = await new Promise<{ ok: boolean; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(root, 'bin/build-if-stale.mjs')],
        { cwd: root, timeout: 240_000 },
        (err, stdout, stderr) => resolve({ ok: !err, output: `${stdout}\n${stderr}` }),
      );
    });
    if (!existsSync(join(root, 'dist/src/cli/main.js')))
      throw new Error(`npm run build produced no CLI:\n${result.output}`);
    if (!result.ok)
      console.warn(`npm run build reported errors (running the emitted code anyway):\n${result.output.slice(0, 2000)}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** A port that was free a moment ago on 127.0.0.1 (the child binds it right after). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ParleyProcess {
  pid: number;
  child: ChildProcess;
  /** Resolves with the exit code (or signal name) once the process has gone. */
  exited: Promise<number | string>;
  /** What it wrote to stdout and stderr so far, for failure messages. */
  output(): string;
  /** Sends `signal` (by pid) if it is still running, and waits for it to go (SIGKILL after `graceMs`). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

const started = new Set<ParleyProcess>();

/** Runs `node bin/parley.js <args>` with only the environment given (plus PATH). */
export function spawnParley(args: string[], env: Record<string, string>): ParleyProcess {
  const child = spawn(process.execPath, ['bin/parley.js', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let gone = false;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      gone = true;
      resolve(code ?? signal ?? 'unknown');
    });
  });
  const proc: ParleyProcess = {
    pid: child.pid!,
    child,
    exited,
    output: () => output,
    stop: async (signal = 'SIGTERM', graceMs = 5000) => {
      if (!gone) {
        try {
          process.kill(proc.pid, signal);
        } catch {
          /* already gone */
        }
        const timer = setTimeout(() => {
          if (!gone) process.kill(proc.pid, 'SIGKILL');
        }, graceMs);
        await exited;
        clearTimeout(timer);
      }
      started.delete(proc);
    },
  };
  started.add(proc);
  return proc;
}

/** For afterAll: SIGKILL, by pid, every process this module started that is still running. */
export async function killStarted(): Promise<void> {
  await Promise.all([...started].map((p) => p.stop('SIGKILL')));
}

/** Polls GET /readyz until the server answers 200; fails with the process output when it dies or takes too long. */
export async function waitReady(proc: ParleyProcess, baseUrl: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  let exited: number | string | undefined;
  void proc.exited.then((c) => (exited = c));
  while (Date.now() < end) {
    if (exited !== undefined) throw new Error(`parley exited (${exited}) before it was ready:\n${proc.output()}`);
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    await sleep(50);
  }
  throw new Error(`parley not ready within ${ms} ms:\n${proc.output()}`);
}

/** Waits until the process has written something matching `pattern` (e.g. a log line at LOG_LEVEL=info). */
export async function waitForOutput(proc: ParleyProcess, pattern: RegExp, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  let exited: number | string | undefined;
  void proc.exited.then((c) => (exited = c));
  while (!pattern.test(proc.output())) {
    if (exited !== undefined) throw new Error(`parley exited (${exited}) before writing ${pattern}:\n${proc.output()}`);
    if (Date.now() > end) throw new Error(`parley did not write ${pattern} within ${ms} ms:\n${proc.output()}`);
    await sleep(50);
  }
}

/**
 * The local TCP ports of the sockets process `pid` holds (Linux /proc), so a
 * receiver can tell which process a connection came from; empty where /proc is not.
 */
export function localPortsOf(pid: number): Set<number> {
  const ports = new Set<number>();
  let inodes: Set<string>;
  try {
    inodes = new Set(
      readdirSync(`/proc/${pid}/fd`)
        .map((fd) => {
          try {
            return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
          } catch {
            return undefined; // closed meanwhile
          }
        })
        .filter((inode): inode is string => !!inode),
    );
  } catch {
    return ports;
  }
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && inodes.has(cols[9]!)) ports.add(parseInt(cols[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/**
 * For suites that run parley as child processes on PostgreSQL: the compiled
 * CLI, a fresh migrated database, and a key of organization `acme` on it.
 */
export async function preparedPostgres(): Promise<{
  database: Awaited<ReturnType<typeof freshDatabase>>;
  key: string;
}> {
  await buildCli();
  const database = await freshDatabase('postgres');
  const store = openStore(database.url, 2);
  try {
    await migrateToLatest(store);
    return { database, key: (await issueKey(store.db, 'acme')).key };
  } finally {
    await store.close();
  }
}
