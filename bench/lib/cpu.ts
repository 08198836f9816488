import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (user + system) a process has used so far, in microseconds (Linux /proc; clock ticks of 10 ms). */
function processCpuUs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return 0; // gone, or not ours to read
  }
}

/** Every PostgreSQL server process on this machine (the backends serving the benchmark among them). */
function postgresPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(entry));
    } catch {
      /* exited meanwhile */
    }
  }
  return pids;
}

/**
 * Where a load run's CPU went: the server process's and PostgreSQL's, per
 * request. Backends that start or end during the run are counted only for
 * the part seen at both ends; the benchmark's pools are open before it starts.
 */
export function cpuMeter(serverPid: number, withPostgres: boolean) {
  const pgBefore = withPostgres ? new Map(postgresPids().map((p) => [p, processCpuUs(p)])) : new Map<number, number>();
  const serverBefore = processCpuUs(serverPid);
  return (requests: number) => {
    const server = processCpuUs(serverPid) - serverBefore;
    let db = 0;
    for (const [pid, before] of pgBefore) db += Math.max(0, processCpuUs(pid) - before);
    const per = (us: number) => (requests > 0 ? Math.round(us / requests) : 0);
    return { serverUs: per(server), databaseUs: withPostgres ? per(db) : undefined };
  };
}
