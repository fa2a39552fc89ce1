import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pathTokens } from '../lexical/tokenizer.js';
import type { Hit } from './hit.js';
import { demoteTests, fuse, reciprocalRank, RRF_K, rrfScore, spreadAcrossFiles, withList, withoutOverlaps } from './fusion.js';

const hit = (path: string, startLine = 1, endLine = 10, symbol: string | null = null): Hit => ({
  repositoryId: 'r',
  path,
  ordinal: startLine,
  startLine,
  endLine,
  language: 'typescript',
  symbol,
  commit: null,
  content: '',
  score: 0,
});

describe('fusion', () => {
  it('ranks what both lists agree on first, scaled to 0–1', () => {
    const a = hit('a.ts');
    const b = hit('b.ts');
    const c = hit('c.ts');
    const ranked = fuse(
      [
        [a, b],
        [b, c],
      ],
      new Set(),
      pathTokens,
    );
    assert.deepEqual(
      ranked.map((r) => r.path),
      ['b.ts', 'a.ts', 'c.ts'],
    );
    assert.ok(ranked.every((r) => r.score > 0 && r.score <= 1));
  });

  it('weighs each list by its weight', () => {
    const a = hit('a.ts');
    const b = hit('b.ts');
    const order = (weights: number[]) => fuse([[a], [b]], new Set(), pathTokens, weights).map((r) => r.path);
    assert.deepEqual(order([1, 0.5]), ['a.ts', 'b.ts']);
    assert.deepEqual(order([0.5, 1]), ['b.ts', 'a.ts']);
    // First in both lists, no signals: both first ranks out of the best possible (both first ranks plus both signals, 0.75 of a weight-1 first rank).
    const both = rrfScore(0, 1) + rrfScore(0, 0.5);
    assert.ok(Math.abs(fuse([[a], [a]], new Set(), pathTokens, [1, 0.5])[0].score - both / (both + 0.75 * rrfScore(0, 1))) < 1e-9);
  });

  it('fuses one more list into fused hits as fusing every list at once would', () => {
    const [a, b, c] = [hit('a.ts'), hit('b.ts'), hit('c.ts')];
    const lists = [[a, b], [b, a]];
    const once = reciprocalRank([...lists, [c, a]], [1, 0.5, 2]);
    const later = withList(reciprocalRank(lists, [1, 0.5]), [c, a], 2);
    assert.deepEqual(
      later.map((h) => [h.path, h.score.toFixed(12)]),
      once.map((h) => [h.path, h.score.toFixed(12)]),
    );
    assert.equal(later[0].path, 'a.ts');
  });

  it("scores a rank by its list's weight over RRF_K plus the rank", () => {
    assert.equal(rrfScore(0, 1), 1 / (RRF_K + 1));
    assert.equal(rrfScore(4, 0.5), 0.5 / (RRF_K + 5));
    const [a, b, c] = [hit('a.ts'), hit('b.ts'), hit('c.ts')];
    const fused = reciprocalRank(
      [
        [a, b],
        [c, a],
      ],
      [1, 0.5],
    );
    assert.deepEqual(
      fused.map((h) => h.path),
      ['a.ts', 'b.ts', 'c.ts'],
    );
    assert.ok(Math.abs(fused[0].score - (rrfScore(0, 1) + rrfScore(1, 0.5))) < 1e-12);
  });

  it('lifts a chunk whose symbol the query names, or whose path holds its words', () => {
    const plain = hit('src/a.ts', 1, 5, 'other');
    const named = hit('src/b.ts', 1, 5, 'Queue.retryAll');
    const pathed = hit('src/retryall/c.ts', 1, 5, null);
    const ranked = fuse([[plain, named, pathed]], new Set(['retryall']), pathTokens);
    assert.deepEqual(
      ranked.map((r) => r.path),
      ['src/b.ts', 'src/retryall/c.ts', 'src/a.ts'],
    );
  });

  it('drops a chunk that overlaps a better one of the same file', () => {
    const kept = withoutOverlaps([hit('a.ts', 1, 60), hit('a.ts', 59, 118), hit('b.ts', 59, 118), hit('a.ts', 119, 130)]);
    assert.deepEqual(
      kept.map((h) => `${h.path}:${h.startLine}`),
      ['a.ts:1', 'b.ts:59', 'a.ts:119'],
    );
  });

  it('keeps at most two chunks of a file among the first results; the rest follow in order', () => {
    const ranked = [hit('a.ts', 1), hit('a.ts', 20), hit('a.ts', 40), hit('b.ts', 1), hit('a.ts', 60), hit('c.ts', 1)];
    assert.deepEqual(
      spreadAcrossFiles(ranked, 2).map((h) => `${h.path}:${h.startLine}`),
      ['a.ts:1', 'a.ts:20', 'b.ts:1', 'c.ts:1', 'a.ts:40', 'a.ts:60'],
    );
  });

  it('moves test files below the code they test unless the query asks for tests', () => {
    const scored = (path: string, score: number) => ({ ...hit(path), score });
    const ranked = [
      scored('test/router.test.js', 0.9),
      scored('middleware/compress_test.go', 0.85),
      scored('tests/test_sessions.py', 0.8),
      scored('src/__tests__/app.ts', 0.75),
      scored('lib/router.js', 0.6),
      scored('src/contest.ts', 0.5), // "test" inside a word is not a test file
      scored('spec/helpers.rb', 0.2),
    ];
    assert.deepEqual(
      demoteTests(ranked, new Set(['router', 'match']), 0.5).map((h) => h.path),
      [
        'lib/router.js',
        'src/contest.ts',
        'test/router.test.js',
        'middleware/compress_test.go',
        'tests/test_sessions.py',
        'src/__tests__/app.ts',
        'spec/helpers.rb',
      ],
    );
    // Asked for tests: the order stays.
    assert.deepEqual(
      demoteTests(ranked, new Set(['router', 'tests']), 0.5).map((h) => h.path),
      ranked.map((h) => h.path),
    );
  });
});
