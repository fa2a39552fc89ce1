import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Parts } from './parts.js';

/** Cuts `data` arriving in chunks of `chunk` bytes into parts of `size`. */
function cut(data: Buffer, chunk: number, size: number): Buffer[] {
  const parts = new Parts(size);
  const out: Buffer[] = [];
  for (let at = 0; at < data.length; at += chunk) out.push(...parts.push(data.subarray(at, at + chunk)));
  const rest = parts.rest();
  return rest ? [...out, rest] : out;
}

describe('Parts', () => {
  const data = Buffer.from(Array.from({ length: 1_000 }, (_, i) => i % 251));

  it('gives parts of exactly the size, the last one shorter, whatever the chunks', () => {
    for (const chunk of [1, 7, 100, 333, 1_000, 4_096]) {
      const parts = cut(data, chunk, 100 + 7);
      assert.deepEqual(
        parts.map((p) => p.length),
        [...Array(9).fill(107), 1_000 - 9 * 107],
        `chunks of ${chunk}`,
      );
      assert.deepEqual(Buffer.concat(parts), data, `chunks of ${chunk}: the bytes in order`);
    }
  });

  it('gives no empty last part when the data ends on a part boundary, and none for no data', () => {
    assert.deepEqual(
      cut(data, 64, 250).map((p) => p.length),
      [250, 250, 250, 250],
    );
    assert.deepEqual(cut(Buffer.alloc(0), 1, 10), []);
  });
});
