import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TopK, type Scored } from './top-k.js';

describe('TopK', () => {
  it('keeps what sorting every list together keeps, best first, ties in the order offered', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 200; round++) {
      const k = 1 + Math.floor(random() * 20);
      // Scores from a few values, so that ties are common; some below zero (cosine).
      const lists: Scored[][] = Array.from({ length: 1 + Math.floor(random() * 8) }, (_, l) =>
        Array.from({ length: Math.floor(random() * 12) }, (_, i) => ({
          key: BigInt(l * 100 + i),
          score: Math.floor(random() * 6) / 4 - 0.5,
        })),
      );
      const expected = lists
        .flat()
        .sort((a, b) => b.score - a.score)
        .slice(0, k);
      const top = new TopK(k);
      // As a repository's search does: what does not beat the floor is not offered.
      for (const list of lists) top.offerAll(list.filter((s) => s.score > top.floor));
      assert.deepEqual(top.sorted(), expected, `round ${round}`);
    }
  });

  it('has no floor until it holds k, then the worst kept score', () => {
    const top = new TopK(2);
    assert.equal(top.floor, -Infinity);
    top.offer(1n, 0.5);
    assert.equal(top.floor, -Infinity);
    top.offer(2n, 0.9);
    assert.equal(top.floor, 0.5);
    top.offer(3n, 0.7);
    assert.equal(top.floor, 0.7);
    assert.deepEqual(new TopK(0).sorted(), []);
  });
});
