import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MatchCollector } from './collector.js';

describe('MatchCollector', () => {
  const query = {
    pattern: 'x',
    caseSensitive: false,
    useRegex: true,
    fileExtensions: [],
    excludeDirs: [],
    timeoutMs: 1000,
    maxResultBytes: 1_000_000,
  };

  it('converts byte ranges to UTF-16 offsets, astral characters counting two', () => {
    const c = new MatchCollector({ ...query, contextLines: 0, maxMatches: 10 });
    const line = Buffer.from('😀é x x\n');
    // 😀 is 4 bytes / 2 units, é 2 bytes / 1 unit: "x" at bytes 7 and 9 → units 4 and 6.
    c.match('./a.txt', 1, line, [
      [7, 8],
      [9, 10],
    ]);
    const m = c.result({ filesSearched: 1, elapsedMs: 0 }).matches[0];
    assert.equal(m.path, 'a.txt');
    assert.deepEqual(m.line_matches[0], {
      line_number: 1,
      line: '😀é x x',
      ranges: [
        [4, 1],
        [6, 1],
      ],
    });
  });

  it('gives context after to every match within reach, and groups a file seen again under one entry', () => {
    const c = new MatchCollector({ ...query, contextLines: 2, maxMatches: 10 });
    c.match('a', 1, Buffer.from('m1\n'), []);
    c.match('a', 2, Buffer.from('m2\n'), []);
    c.context('a', 3, Buffer.from('c3\n'));
    c.context('a', 4, Buffer.from('c4\n'));
    c.match('b', 1, Buffer.from('b1\n'), []);
    c.match('a', 9, Buffer.from('m9\n'), []);
    const { matches } = c.result({ filesSearched: 2, elapsedMs: 0 });
    assert.deepEqual(
      matches.map((f) => f.path),
      ['a', 'b'],
    );
    const [m1, m2, m9] = matches[0].line_matches;
    assert.deepEqual(m1.context_after, ['m2', 'c3'], 'a neighbouring match is context too');
    assert.deepEqual(m2.context_before, ['m1']);
    assert.deepEqual(m2.context_after, ['c3', 'c4']);
    assert.deepEqual(m9.context_before, []);
  });

  it('never takes context from the file before', () => {
    const c = new MatchCollector({ ...query, contextLines: 2, maxMatches: 10 });
    c.match('a', 4, Buffer.from('a4\n'), []);
    c.context('a', 5, Buffer.from('a5\n'));
    c.match('b', 6, Buffer.from('b6\n'), []);
    const b = c.result({ filesSearched: 2, elapsedMs: 0 }).matches[1];
    assert.deepEqual(b.line_matches[0].context_before, []);
  });

  it('stops at max_matches and reports unreadable lines in notes', () => {
    const c = new MatchCollector({ ...query, contextLines: 0, maxMatches: 1 });
    c.match('a', 1, Buffer.from('x\n'), [[0, 1]]);
    c.match('a', 2, Buffer.from('x\n'), [[0, 1]]);
    c.skipUnreadable();
    const result = c.result({ filesSearched: 1, elapsedMs: 0 });
    assert.equal(result.truncated, true);
    assert.equal(result.stats.total_matches, 1);
    assert.match(result.notes![0], /^1 matching line\(s\) could not be read/);
  });

  it('stops when the answer would pass its size budget, and says so in notes', () => {
    const c = new MatchCollector({ ...query, contextLines: 0, maxMatches: 1000, maxResultBytes: 500 });
    for (let n = 1; n <= 100 && c.wantsMore; n++) c.match('src/file.ts', n, Buffer.from(`${'x'.repeat(60)}\n`), [[0, 1]]);
    const result = c.result({ filesSearched: 1, elapsedMs: 0 });
    assert.equal(result.truncated, true);
    assert.ok(result.stats.total_matches > 0 && result.stats.total_matches < 10, `${result.stats.total_matches} lines`);
    assert.ok(Buffer.byteLength(JSON.stringify(result.matches)) <= 500);
    assert.match(result.notes![0], /cut at \d+ matching lines to stay under 500 bytes \(GREP_MAX_RESULT_BYTES\)/);
  });
});
