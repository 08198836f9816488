import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Where POST /v1/imports keeps an upload while it is imported: under the
 * spool root (PARLEY_IMPORT_SPOOL_DIR), a folder per process named by its pid
 * and its start time, `<pid>-<start ms>`, and in it a folder per upload. A
 * process ended by `kill -9` (or a crash) cannot remove its uploads, so each
 * process sweeps at start (sweepSpool) the folders of processes that are gone.
 * Several processes may share the root: a folder whose process still runs is
 * never touched, nor one started after the sweeping process.
 */
const OWN = `${process.pid}-${Math.round(performance.timeOrigin)}`;
const FOLDER = /^(\d+)-(\d+)$/;

/** A new, empty folder for one upload, in this process's folder (private to the user Parley runs as). */
export async function uploadDir(root: string): Promise<string> {
  const own = join(root, OWN);
  await mkdir(own, { recursive: true, mode: 0o700 });
  return mkdtemp(join(own, 'upload-'));
}

/** Whether a process with this pid exists (EPERM: it does, as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the folders of processes that no longer run and started before
 * this one; answers their names. Only names of the spool's own form are
 * considered, so anything else in the root is left alone. A pid reused by a
 * live process keeps its dead predecessor's folder until that process ends
 * too (the check cannot tell them apart; the next start removes it).
 */
export async function sweepSpool(root: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = FOLDER.exec(name);
    if (!m || name === OWN) continue;
    const pid = Number(m[1]);
    if (Number(m[2]) >= performance.timeOrigin || pid === process.pid || running(pid)) continue;
    await rm(join(root, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
