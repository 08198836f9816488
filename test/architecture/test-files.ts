import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every TypeScript file under `dir` (recursively) but `except`: what the checks of test/ read. */
export function typeScriptFiles(dir: string, except: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return typeScriptFiles(path, except);
    return /\.tsx?$/.test(e.name) && path !== except ? [path] : [];
  });
}
