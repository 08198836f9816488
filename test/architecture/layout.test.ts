import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** The folders of src/ the README's Layout table does not name (`src/<folder>/` in backticks). */
function unnamedFolders(readme: string, folders: readonly string[]): string[] {
  const layout = readme.slice(readme.indexOf('## Layout'));
  return folders.filter((f) => !layout.includes(`\`src/${f}/\``));
}

describe("the README's Layout", () => {
  it('names every folder of src/, so the tree can be read from it', () => {
    const folders = readdirSync(join(ROOT, 'src')).filter((f) => statSync(join(ROOT, 'src', f)).isDirectory());
    expect(folders.length).toBeGreaterThan(20);
    expect(unnamedFolders(readFileSync(join(ROOT, 'README.md'), 'utf8'), folders)).toEqual([]);
  });

  it('the check bites: a folder missing from the table is reported', () => {
    expect(unnamedFolders('## Layout\n| `src/leads/` | leads |', ['leads', 'voice'])).toEqual(['voice']);
  });
});
