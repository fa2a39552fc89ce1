import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchCache } from './helpers.js';

describe('BatchCache', () => {
  it('fetches the keys it lacks in one go, once, and gives a missing key its default', async () => {
    const fetched: string[][] = [];
    const cache = new BatchCache(
      async (keys) => {
        fetched.push(keys);
        return new Map(keys.filter((k) => k !== 'none').map((k) => [k, k.length]));
      },
      () => -1,
    );
    assert.deepEqual(await cache.get(['ab', 'abc', 'ab']), [2, 3, 2]);
    assert.deepEqual(await cache.get(['abc', 'none', 'a']), [3, -1, 1]);
    assert.deepEqual(fetched, [
      ['ab', 'abc'],
      ['none', 'a'],
    ]);
  });

  it('does not keep a fetch that failed', async () => {
    let calls = 0;
    const cache = new BatchCache(
      async (keys) => {
        if (++calls === 1) throw new Error('connection lost');
        return new Map(keys.map((k) => [k, k]));
      },
      () => '',
    );
    await assert.rejects(cache.get(['a']), /connection lost/);
    assert.deepEqual(await cache.get(['a']), ['a']);
    assert.equal(calls, 2);
  });

  it('shares a fetch under way with a second caller', async () => {
    let calls = 0;
    let release: () => void = () => undefined;
    const cache = new BatchCache(
      async (keys) => {
        calls++;
        await new Promise<void>((resolve) => (release = resolve));
        return new Map(keys.map((k) => [k, true]));
      },
      () => false,
    );
    const first = cache.get(['x']);
    const second = cache.get(['x']);
    release();
    assert.deepEqual(await Promise.all([first, second]), [[true], [true]]);
    assert.equal(calls, 1);
  });
});
