import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The checkpointing thread: its own connection to the file, one PASSIVE
 * checkpoint per request, answered with SQLite's own counts (frames in the
 * WAL, frames copied). PASSIVE never waits and never blocks the writer: a
 * page the writer is changing is copied at the next request. Plain
 * JavaScript, so it runs the same compiled and from the sources.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
// Checkpoints write the database file: synced like the writer's commits.
db.pragma('synchronous = FULL');
parentPort.on('message', (m) => {
  if (m === 'close') { db.close(); parentPort.close(); return; }
  const [r] = db.pragma('wal_checkpoint(PASSIVE)');
  parentPort.postMessage({ log: r.log, checkpointed: r.checkpointed });
});
`;

/** Requests the thread may have queued: one being copied, the next commit waiting its turn. */
const MAX_AHEAD = 2;

export interface CheckpointReport {
  /** Frames in the WAL when the thread last checkpointed. */
  log: number;
  /** Of those, frames copied into the database file. */
  checkpointed: number;
}

export interface WalCheckpointer {
  /**
   * After each commit: the thread copies what it committed while the writer
   * goes on. Once the WAL holds `resetAtFrames`, the writer waits for the
   * thread and checkpoints the rest itself, so its next transaction starts
   * the WAL over (a WAL only restarts when every frame is copied at the
   * moment a write begins, which a thread copying beside a busy writer never
   * sees).
   */
  committed(): Promise<void>;
  /** The thread's latest report. */
  last(): CheckpointReport;
  /** Waits for the thread's last checkpoint and ends it (until then the thread keeps the process alive). */
  close(): Promise<void>;
}

export interface CheckpointerOptions {
  /** The database file (its WAL is `file-wal`). */
  file: string;
  /** A PASSIVE checkpoint on the writer's own connection, between its transactions. */
  checkpointHere(): unknown;
  /** WAL frames (pages) from which the writer finishes the copy itself and the WAL starts over. */
  resetAtFrames: number;
}

/**
 * A bulk writer's WAL copied into the database file on a thread of its own.
 * A checkpoint writes every page the WAL holds back into the file and syncs
 * it; left to SQLite (wal_autocheckpoint) it runs inside the writer's
 * COMMIT, on the writer's thread, so an import's thread spent a quarter of
 * its time copying pages instead of writing the next batch. The writer
 * turns its own autocheckpoint off (platform/db/bulk.ts) and tells this
 * after each commit; durability is unchanged (each commit is synced in the
 * WAL before it returns, as before).
 *
 * If the thread fails, the writer checkpoints after every commit itself
 * (what SQLite's default autocheckpoint came to for these batches): slower,
 * never unbounded.
 */
export function startWalCheckpointer(options: CheckpointerOptions): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(THREAD, { eval: true, workerData: { file: options.file, driver } });
  let report: CheckpointReport = { log: 0, checkpointed: 0 };
  let inFlight = 0;
  let failed = false;
  let waiters: { ready: () => boolean; resolve: () => void }[] = [];
  const wake = () => {
    waiters = waiters.filter((w) => {
      if (!w.ready()) return true;
      w.resolve();
      return false;
    });
  };
  const until = (ready: () => boolean) =>
    ready() ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ ready, resolve }));
  const idle = () => until(() => failed || inFlight === 0);
  worker.on('message', (m: CheckpointReport) => {
    report = m;
    inFlight -= 1;
    wake();
  });
  const fail = () => {
    failed = true;
    wake();
  };
  worker.on('error', fail);
  worker.on('exit', fail);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async committed() {
      // Never more than MAX_AHEAD requests ahead of the thread: a thread that is slow (or not yet started, or
      // dead) makes the writer wait rather than letting the WAL grow behind reports that do not come.
      await until(() => failed || inFlight < MAX_AHEAD);
      if (!failed) {
        inFlight += 1;
        worker.postMessage('checkpoint');
        if (report.log < options.resetAtFrames) return;
      }
      await idle();
      await options.checkpointHere();
      report = { log: 0, checkpointed: 0 };
    },
    last: () => ({ ...report }),
    async close() {
      await idle();
      if (failed) return;
      worker.postMessage('close');
      await exited;
    },
  };
}
