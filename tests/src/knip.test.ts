/**
 * Nothing unused: knip (knip.jsonc) finds no unused file, export, dependency or unlisted dependency in any
 * workspace. A finding is fixed where it is (remove it, or list the dependency); an entry point knip cannot see
 * (a file started by its path) goes into knip.jsonc's entries with the reason.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { repoPath } from '@sextant/testing';

describe('knip', () => {
  it('finds nothing unused or unlisted in the repository', () => {
    const run = spawnSync(process.execPath, [repoPath('node_modules/knip/bin/knip.js'), '--no-progress', '--reporter', 'compact'], {
      cwd: repoPath('.'),
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(run.status, 0, `knip's findings (fix each, see knip.jsonc):\n${run.stdout}${run.stderr}`);
  });
});
