import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { headOf, lineSplitter } from './lines.js';

function split(chunks: string[], maxBytes: number, keep = 8): { lines: string[]; long: string[] } {
  const lines: string[] = [];
  const long: string[] = [];
  const feed = lineSplitter(
    (line) => lines.push(line.toString()),
    (start) => headOf(start, keep, (head) => long.push(head.toString())),
    maxBytes,
  );
  for (const chunk of chunks) feed(Buffer.from(chunk));
  return { lines, long };
}

describe('lineSplitter', () => {
  it('joins lines across chunks and splits several lines in one chunk', () => {
    assert.deepEqual(split(['ab', 'c\nd', 'e\nf\n', '\n'], 100).lines, ['abc', 'de', 'f', '']);
  });

  it('streams a line longer than the limit to a sink instead of buffering it, then goes on', () => {
    const { lines, long } = split(['short\n{"ty', 'pe"', 'x'.repeat(50), 'y'.repeat(50), '\nafter\n'], 40, 12);
    assert.deepEqual(lines, ['short', 'after']);
    assert.deepEqual(long, ['{"type"xxxxx']);
  });

  it('holds back a last line until its newline arrives', () => {
    assert.deepEqual(split(['one\ntw'], 100).lines, ['one']);
  });
});
