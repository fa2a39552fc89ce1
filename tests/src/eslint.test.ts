/**
 * No lint finding: ESLint with typescript-eslint's type-checked rules (eslint.config.mjs) finds nothing in the
 * sources. A finding is fixed where it is; a rule wrong for the whole codebase is turned off in eslint.config.mjs with
 * its reason, a deliberate exception is one `// eslint-disable-next-line <rule> -- <reason>` line.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { repoPath } from '@sextant/testing';

describe('eslint', () => {
  // Type-aware linting of every package takes minutes (about 5.5 on a shared 2-core machine), past the runner's 5-minute default.
  it('finds nothing in the sources', { timeout: 900_000 }, () => {
    const run = spawnSync(
      process.execPath,
      [repoPath('node_modules/eslint/bin/eslint.js'), '--max-warnings', '0', '--format', 'stylish', '.'],
      {
        cwd: repoPath('.'),
        encoding: 'utf8',
        timeout: 900_000,
      },
    );
    assert.equal(run.status, 0, `ESLint's findings (fix each, see eslint.config.mjs):\n${run.stdout}${run.stderr}`);
  });
});
