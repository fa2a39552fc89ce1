import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '@sextant/testing';

/** Files the benches' monorepo holds at least. */
const MIN_FILES = 20_000;

/** One git working tree of at least MIN_FILES files: the corpus's trees side by side, copied again until there are enough. */
export function buildMonorepo(corpusRoot: string): { dir: string; files: number } {
  const dir = join(corpusRoot, 'indexing', 'monorepo');
  const done = join(dir, '.sextant-monorepo-complete');
  if (existsSync(done))
    return {
      dir,
      files: Number(
        execFileSync('git', ['ls-files'], { cwd: dir, maxBuffer: 1 << 28 })
          .toString()
          .split('\n').length - 1,
      ),
    };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '--initial-branch=main');
  const sources = readdirSync(join(corpusRoot, 'npm'));
  let files = 0;
  for (let copy = 0; files < MIN_FILES; copy++) {
    for (const name of sources) {
      const from = join(corpusRoot, 'npm', name);
      cpSync(from, join(dir, `copy${copy}`, name), { recursive: true, filter: (src) => !src.includes(`${name}/.git`) });
      files += Number(
        execFileSync('git', ['ls-files'], { cwd: from, maxBuffer: 1 << 28 })
          .toString()
          .split('\n').length - 1,
      );
      if (files >= MIN_FILES) break;
    }
  }
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=bench', '-c', 'user.email=bench@sextant.invalid', 'commit', '-q', '-m', 'monorepo');
  writeFileSync(done, '');
  return { dir, files };
}
