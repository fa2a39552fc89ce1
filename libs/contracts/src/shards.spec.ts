import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { repositoryShardKey, shardOf, shardSubject } from './shards.js';

describe('repository shards', () => {
  it('gives every spelling of one repository the same key', () => {
    const spellings = [
      'github:Octo/Hello',
      'git@github.com:octo/hello.git',
      'https://github.com/octo/hello',
      'https://GitHub.com/octo/hello.git',
      'https://github.com/octo//hello/',
      ' https://github.com/octo/hello ',
    ];
    assert.deepEqual(new Set(spellings.map(repositoryShardKey)), new Set(['github.com/octo/hello']));
    assert.equal(repositoryShardKey('file:///srv/git/a.git/'), repositoryShardKey('file:///srv/git/a'));
    assert.equal(repositoryShardKey('git://mirror:9418/a/b.git'), repositoryShardKey('git://mirror/a/b'));
    assert.equal(repositoryShardKey('https://mirror:443/a/b'), repositoryShardKey('https://mirror/a/b'));
    assert.notEqual(repositoryShardKey('https://gitlab.example.com/a/b'), repositoryShardKey('https://github.com/a/b'));
    assert.equal(repositoryShardKey('my-service'), 'my-service', 'a registered name is its own key');
  });

  it('maps keys onto 0..n-1, the same way every time, evenly', () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `github.com/org/repo-${i}`);
    const counts = [0, 0, 0, 0, 0];
    for (const key of keys) {
      const shard = shardOf(key, 5);
      assert.equal(shardOf(key, 5), shard);
      counts[shard]++;
    }
    // 4,000 expected per shard; a fair hash stays within ±5 % here (sd ≈ 57).
    for (const n of counts) assert.ok(Math.abs(n - 4_000) < 200, `per shard: ${counts.join(', ')}`);
    assert.equal(shardOf('anything', 1), 0);
    assert.throws(() => shardOf('x', 0), RangeError);
  });

  it('moves only about 1/(n+1) of the keys when a shard is added, all of them to the new shard', () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => `key-${i}`);
    let moved = 0;
    for (const key of keys) {
      const before = shardOf(key, 4);
      const after = shardOf(key, 5);
      if (before !== after) {
        moved++;
        assert.equal(after, 4, 'a key that moves goes to the added shard');
      }
    }
    assert.ok(Math.abs(moved / keys.length - 0.2) < 0.02, `moved ${moved} of ${keys.length}`);
  });

  it('names the shard subject after the contract subject', () => {
    assert.equal(shardSubject('git-cache.grep.v1', 3), 'git-cache.grep.v1.s3');
  });
});
