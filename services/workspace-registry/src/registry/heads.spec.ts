import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LauncherSpawner, ProcessGitRunner, type LocatorPolicy } from '@sextant/checkouts';
import { BareRepository } from '@sextant/testing';
import { Heads } from './heads.js';
import type { Repository } from './registry.store.js';
import { readHead } from './registry.service.js';

const policy: LocatorPolicy = { allowedHosts: [], allowFileUrls: true };

describe('Heads', () => {
  const root = mkdtempSync(join(tmpdir(), 'sextant-heads-'));
  const spawner = new LauncherSpawner();
  const git = new ProcessGitRunner({
    protocols: ['file'],
    defaultTimeoutMs: 20_000,
    baseEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
    spawner,
  });
  let remote: BareRepository;
  let first: string;
  let repositories: Repository[];
  let reads: string[];
  let heads: Heads;

  const repository = (id: string, indexedCommit: string | null, lastIndexedAt: Date | null): Repository =>
    ({ id, kind: 'remote', locator: remote.fileUrl, ref: 'main', indexedRef: 'main', indexedCommit, lastIndexedAt }) as Repository;

  before(() => {
    remote = new BareRepository(root, 'library');
    first = remote.commit('main', { 'a.ts': 'export const a = 1;\n' });
    reads = [];
    heads = new Heads({
      repositories: async () => repositories,
      read: (r) => (reads.push(r.id), readHead(git, policy, r, 10_000)),
      intervalMs: 60_000,
      concurrency: 2,
    });
  });
  after(async () => {
    await heads.stop();
    await spawner.close();
    remote.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers from what it holds: the indexed commit until a round reads the branch, then what the round read', async () => {
    repositories = [repository('r1', first, new Date()), repository('r2', null, null)];
    assert.equal(heads.of(repositories[0]), first, 'just indexed: the head Discovery pinned');
    assert.equal(heads.of(repositories[1]), undefined, 'never indexed, never read');
    const moved = remote.commit('main', { 'b.ts': 'export const b = 2;\n' });
    assert.equal(heads.of(repositories[0]), first, 'asking runs no git');
    assert.deepEqual(reads, []);
    await heads.refresh();
    assert.deepEqual(reads, ['r1'], 'a round reads the indexed repositories only');
    assert.equal(heads.of(repositories[0]), moved, 'the branch moved on');
    // Indexed again after that read: the new index saw the newest head.
    const reindexed = repository('r1', moved, new Date(Date.now() + 1_000));
    assert.equal(heads.of(reindexed), moved);
  });

  it('keeps null for a head it cannot read, and forgets a repository the registry no longer holds', async () => {
    const gone = { ...repository('r3', first, new Date(0)), locator: `file://${join(root, 'missing.git')}` };
    repositories = [gone];
    await heads.refresh();
    assert.equal(heads.of(gone), null);
    repositories = [];
    await heads.refresh();
    assert.equal(heads.of(gone), first, 'no read kept: the indexed commit again');
  });
});
