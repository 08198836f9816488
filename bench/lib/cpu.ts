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
 * Where a run's CPU went, per unit of work: each named process's and, with
 * `withPostgres`, every PostgreSQL backend's together. Backends that start or
 * end during the run are counted only for the part seen at both ends; the
 * benchmark's pools are open before it starts.
 */
export function processesMeter<K extends string>(named: Record<K, number>, withPostgres: boolean) {
  const pgBefore = withPostgres ? new Map(postgresPids().map((p) => [p, processCpuUs(p)])) : new Map<number, number>();
  const before = Object.entries<number>(named).map(([name, pid]) => [name, pid, processCpuUs(pid)] as const);
  return (units: number) => {
    const per = (us: number) => (units > 0 ? Math.round(us / units) : 0);
    const out = Object.fromEntries(before.map(([name, pid, at]) => [name, per(processCpuUs(pid) - at)])) as Record<
      K,
      number
    >;
    let db = 0;
    for (const [pid, at] of pgBefore) db += Math.max(0, processCpuUs(pid) - at);
    return { ...out, databaseUs: withPostgres ? per(db) : undefined };
  };
}

/** The server process's and PostgreSQL's CPU per request of a load run. */
export function cpuMeter(serverPid: number, withPostgres: boolean) {
  return processesMeter({ serverUs: serverPid }, withPostgres);
}

/** The machine's busy share over a run: 1 is every core busy the whole time (Linux /proc/stat). */
export function machineMeter() {
  const read = () => {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user, nice, system, irq, softirq, steal are busy; idle and iowait are not.
    const busy = f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + (f[7] ?? 0);
    return { busy, all: f.reduce((a, b) => a + b, 0) };
  };
  const start = read();
  return () => {
    const end = read();
    return (end.busy - start.busy) / Math.max(1, end.all - start.all);
  };
}
