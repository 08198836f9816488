import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One stamp per bench run: its results file and its profile summaries share it. */
export const runStamp = new Date().toISOString().replace(/[:.]/g, '-');

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const frameName = (n: ProfileNode) => {
  const url = n.callFrame.url
    .replace(/^file:\/\//, '')
    .replace(`${process.cwd()}/`, '')
    .replace(/.*node_modules\//, '');
  return `${n.callFrame.functionName || '(anonymous)'} ${url}${url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
};

/**
 * A text summary of a V8 CPU profile (`node --cpu-prof`): where the busy time
 * goes by self time (the function itself) and by inclusive time (with what it
 * calls), as shares of the busy samples (idle excluded). Enough to see which
 * layer costs what without opening a flame graph viewer; the .cpuprofile is
 * kept beside it for one (Chrome DevTools, speedscope).
 */
export function summarizeProfile(profile: CpuProfile, top = 30): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++)
    self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + (profile.timeDeltas[i] ?? 0));
  let busy = 0;
  const selfByName = new Map<string, number>();
  const inclByName = new Map<string, number>();
  for (const [id, t] of self) {
    const node = byId.get(id)!;
    if (['(idle)', '(program)'].includes(node.callFrame.functionName)) continue;
    busy += t;
    selfByName.set(frameName(node), (selfByName.get(frameName(node)) ?? 0) + t);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const name = frameName(byId.get(cur)!);
      if (name.startsWith('(root)') || seen.has(name)) continue;
      seen.add(name);
      inclByName.set(name, (inclByName.get(name) ?? 0) + t);
    }
  }
  const table = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, t]) => `${((t / Math.max(1, busy)) * 100).toFixed(1).padStart(5)} %  ${k}`)
      .join('\n');
  return [
    `busy time sampled: ${(busy / 1000).toFixed(0)} ms`,
    '',
    'self time (the function itself):',
    table(selfByName),
    '',
    'inclusive time (with what it calls):',
    table(inclByName),
  ].join('\n');
}

/** Node flags that write a CPU profile into a fresh directory when the process exits. */
export function profilingArgs(name: string): { nodeArgs: string[]; collect(): string } {
  const dir = join('bench/results', `${runStamp}-${name}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return {
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
    /** After the process exited: writes summary.txt beside the profile(s) and answers its path. */
    collect: () => {
      const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
      const text = files
        .map((f) => `# ${f}\n\n${summarizeProfile(JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile)}`)
        .join('\n\n');
      const out = join(dir, 'summary.txt');
      writeFileSync(out, text || 'no profile was written (the process did not exit cleanly)\n');
      return out;
    },
  };
}
