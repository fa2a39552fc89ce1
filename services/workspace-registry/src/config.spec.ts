import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig, repositoryRootOf } from './config.js';

describe('workspace-registry configuration', () => {
  it('takes the default workspace from SEXTANT_WORKSPACE, else the git repository the working directory is in (also from a subfolder)', () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'sextant-config-')));
    try {
      mkdirSync(join(base, 'repo', '.git'), { recursive: true });
      mkdirSync(join(base, 'repo', 'src', 'deep'), { recursive: true });
      mkdirSync(join(base, 'plain'));
      assert.equal(repositoryRootOf(join(base, 'repo', 'src', 'deep')), join(base, 'repo'));
      assert.equal(repositoryRootOf(join(base, 'plain')), undefined);
      assert.equal(loadConfig({}, join(base, 'repo', 'src')).defaultWorkspace, join(base, 'repo'));
      assert.equal(loadConfig({}, join(base, 'plain')).defaultWorkspace, undefined);
      assert.equal(loadConfig({ SEXTANT_WORKSPACE: join(base, 'plain') }, join(base, 'repo')).defaultWorkspace, join(base, 'plain'));
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('reads branch heads in the background every SEXTANT_HEAD_CACHE_MS (default a minute), refusing 0: a request never reads one', () => {
    assert.equal(loadConfig({}).headCacheMs, 60_000);
    assert.equal(loadConfig({ SEXTANT_HEAD_CACHE_MS: '250' }).headCacheMs, 250);
    assert.throws(() => loadConfig({ SEXTANT_HEAD_CACHE_MS: '0' }), /SEXTANT_HEAD_CACHE_MS/);
  });

  it('refuses an allowed root that does not exist, naming the variable', () => {
    assert.throws(() => loadConfig({ SEXTANT_ALLOWED_ROOTS: '/no/such/root' }), /SEXTANT_ALLOWED_ROOTS[^]*\/no\/such\/root/);
  });
});
