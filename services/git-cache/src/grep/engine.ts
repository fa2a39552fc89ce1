import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import type { GrepEngine } from './collector.js';
import { GitGrepEngine } from './git-grep.js';
import { RipgrepEngine } from './ripgrep.js';
import { type Spawner } from '@sextant/checkouts';

/** The ripgrep binary: the one shipped in @vscode/ripgrep, else `rg` on PATH, else none. */
export async function findRipgrep(): Promise<string | undefined> {
  try {
    const { rgPath } = (await import('@vscode/ripgrep')) as { rgPath: string };
    if (existsSync(rgPath)) return rgPath;
  } catch {
    // the optional platform package is missing on this machine
  }
  return spawnSync('rg', ['--version'], { stdio: 'ignore' }).status === 0 ? 'rg' : undefined;
}

/** `auto` prefers ripgrep (linear-time regex engine, 2–10× faster) and falls back to `git grep`. */
export async function createGrepEngine(
  choice: 'auto' | 'ripgrep' | 'git-grep',
  baseEnv: { PATH: string | undefined; HOME: string | undefined },
  spawner: Spawner,
): Promise<GrepEngine> {
  const log = new Logger('Grep');
  if (choice !== 'git-grep') {
    const rg = await findRipgrep();
    if (rg) {
      log.log(`grep engine: ripgrep (${rg})`);
      return new RipgrepEngine(rg, spawner);
    }
    if (choice === 'ripgrep') throw new Error('GREP_ENGINE=ripgrep but no ripgrep binary was found (@vscode/ripgrep or rg on PATH)');
    log.warn('no ripgrep binary found; grep falls back to git grep (slower, PCRE bounded by GREP_TIMEOUT_MS)');
  }
  return new GitGrepEngine(baseEnv, spawner);
}
