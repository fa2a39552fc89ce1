import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HEADER_WEIGHT, Postings, termCounts, type TermCounts } from './postings.js';

/** BM25 written out from its definition over a plain list of documents: the oracle the postings are checked against. */
function bm25(docs: ReadonlyArray<{ key: bigint; path: string; counts: TermCounts }>, words: string[], prefix: string | null) {
  const n = docs.length;
  const length = (c: TermCounts) => [...c.values()].reduce((a, b) => a + b, 0);
  const average = docs.reduce((sum, d) => sum + length(d.counts), 0) / n;
  const idfs = words.map((w) => {
    const df = docs.filter((d) => d.counts.has(w)).length;
    return { term: w, idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)) };
  });
  const scored = docs
    .filter((d) => prefix === null || d.path.startsWith(prefix))
    .map((d) => {
      let score = 0;
      for (const { term, idf } of idfs) {
        const tf = d.counts.get(term) ?? 0;
        score += (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * length(d.counts)) / average));
      }
      return { key: d.key, score };
    })
    .filter((d) => d.score > 0)
    .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : 1));
  return { idfs, scored };
}

/** A deterministic pseudo-random corpus: words w0…w39 (low numbers common), paths under two folders. */
function corpus(size: number, seed = 7) {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: size }, (_, i) => {
    const counts: TermCounts = new Map();
    const words = 3 + Math.floor(random() * 12);
    for (let j = 0; j < words; j++) {
      const w = `w${Math.floor(random() ** 2 * 40)}`;
      counts.set(w, (counts.get(w) ?? 0) + 1);
    }
    return { key: BigInt(100 + i), path: `${i % 3 === 0 ? 'lib' : 'src'}/f${i % 50}.ts`, counts };
  });
}

function assertSameRanking(actual: Array<{ key: bigint; score: number }>, expected: Array<{ key: bigint; score: number }>, k: number) {
  const want = expected.slice(0, k);
  assert.equal(actual.length, want.length);
  actual.forEach((a, i) => {
    // Float32 accumulation: equal scores may swap, so compare scores, then keys where scores differ clearly.
    assert.ok(Math.abs(a.score - want[i].score) < 1e-4, `rank ${i + 1}: score ${a.score} vs ${want[i].score}`);
  });
  const clear = want.filter((w, i) => i === 0 || Math.abs(w.score - want[i - 1].score) > 1e-3);
  for (const w of clear.slice(0, -1))
    assert.ok(
      actual.some((a) => a.key === w.key),
      `missing ${w.key}`,
    );
}

describe('lexical postings (BM25)', () => {
  it('reads term counts from our tsvector text and from Postgres output of it (header occurrences weigh more)', () => {
    assert.deepEqual(
      termCounts(`'retry':1A,5D,9D 'it''s':2D 'back\\\\slash':3D`),
      new Map([
        ['retry', HEADER_WEIGHT + 2],
        ["it's", 1],
        ['back\\slash', 1],
      ]),
    );
    assert.deepEqual(
      termCounts(`'retry':1A,5,9 'queue':4B 'x'`),
      new Map([
        ['retry', HEADER_WEIGHT + 2],
        ['queue', HEADER_WEIGHT],
        ['x', 1],
      ]),
    );
    assert.deepEqual(termCounts(''), new Map());
  });

  for (const tailMax of [1_000_000, 97]) {
    it(`ranks as BM25 does, through additions, removals, merges and a save and load (tail of ${tailMax} entries)`, () => {
      rankingSurvivesChanges(new Postings(tailMax));
    });
  }

  function rankingSurvivesChanges(postings: Postings) {
    const docs = corpus(600);
    for (const d of docs) postings.add(d.key, d.path, d.counts);
    const check = (live: typeof docs, words: string[], prefix: string | null) => {
      const { idfs, scored } = bm25(live, words, prefix);
      assertSameRanking(postings.top(idfs, 10, prefix), scored, 10);
    };
    check(docs, ['w3', 'w17', 'w30'], null);
    check(docs, ['w0'], null);
    check(docs, ['w5', 'w25'], 'lib/');

    // Remove a third: until a merge they are skipped, after it they are gone; the ranking is the same either way.
    const removed = docs.filter((_, i) => i % 3 === 1);
    for (const d of removed) assert.equal(postings.remove(d.key), true);
    assert.equal(postings.remove(removed[0].key), false);
    const live = docs.filter((_, i) => i % 3 !== 1);
    assert.equal(postings.size, live.length);
    check(live, ['w3', 'w17', 'w30'], null);
    postings.merge();
    check(live, ['w3', 'w17', 'w30'], null);
    assert.equal(postings.df('w3'), live.filter((d) => d.counts.has('w3')).length);

    // Re-adding a key replaces its chunk.
    const changed = { ...live[0], counts: new Map([['w39', 4]]) };
    postings.add(changed.key, changed.path, changed.counts);
    const now = [changed, ...live.slice(1)];
    check(now, ['w39'], null);

    const loaded = Postings.deserialize(postings.serialize());
    assert.equal(loaded.size, now.length);
    const { idfs, scored } = bm25(now, ['w39', 'w2'], 'src/');
    assertSameRanking(loaded.top(idfs, 10, 'src/'), scored, 10);
  }

  it('refuses a damaged file clearly', () => {
    const postings = new Postings();
    postings.add(1n, 'a.ts', new Map([['x', 1]]));
    const bytes = postings.serialize();
    assert.throws(() => Postings.deserialize(bytes.subarray(0, bytes.length - 3)), /truncated/);
  });
});

describe('file-level BM25 over the postings (whole files: their chunks summed)', () => {
  /** BM25 over files written out from its definition: a file's counts are its chunks' counts summed. */
  function fileOracle(docs: ReturnType<typeof corpus>, words: string[], prefix: string | null) {
    const files = new Map<string, TermCounts>();
    for (const d of docs.filter((d) => prefix === null || d.path.startsWith(prefix))) {
      const counts = files.get(d.path) ?? new Map<string, number>();
      for (const [w, tf] of d.counts) counts.set(w, (counts.get(w) ?? 0) + tf);
      files.set(d.path, counts);
    }
    const asDocs = [...files].map(([path, counts], i) => ({ key: BigInt(i), path, counts }));
    const { idfs, scored } = bm25(asDocs, words, null);
    return { idfs, scored: scored.map((s) => ({ path: asDocs[Number(s.key)].path, score: s.score })) };
  }

  for (const prefix of [null, 'lib/']) {
    it(`ranks files as BM25 over whole files does, each as its best chunk (prefix ${prefix})`, () => {
      const docs = corpus(600);
      const postings = new Postings(200);
      for (const d of docs) postings.add(d.key, d.path, d.counts);
      // Some chunks go: a file's length and counts are its live chunks'.
      for (const d of docs.slice(0, 120)) postings.remove(d.key);
      const live = docs.slice(120);
      const words = ['w3', 'w17', 'w31', 'w39'];
      const { idfs, scored } = fileOracle(live, words, prefix);
      const found = postings.fileMatches(words, prefix);
      assert.equal(found.files, new Set(live.filter((d) => prefix === null || d.path.startsWith(prefix)).map((d) => d.path)).size);
      const average = found.length / found.files;
      const top = postings.topFiles(
        found,
        idfs.map((t) => t.idf),
        average,
        10,
      );
      assert.equal(top.length, Math.min(10, scored.length));
      const pathOf = new Map(live.map((d) => [d.key, d]));
      top.forEach((t, i) => {
        assert.ok(Math.abs(t.score - scored[i].score) < 1e-3, `rank ${i + 1}: ${t.score} vs ${scored[i].score}`);
        const chunk = pathOf.get(t.key);
        assert.ok(chunk, `rank ${i + 1}: ${t.key} is a live chunk`);
        assert.equal(chunk.path, scored[i].path, `rank ${i + 1}: the chunk is of the file ranked there`);
        // Its best chunk: the one of the file's live chunks that chunk-level BM25 (the same idfs) ranks first.
        const chunkLevel = bm25(live, words, null).scored.filter((c) => pathOf.get(c.key)!.path === chunk.path);
        assert.ok(Math.abs(chunkLevel[0].score - chunkLevel.find((c) => c.key === t.key)!.score) < 1e-3, `rank ${i + 1}: its best chunk`);
      });
    });
  }

  it('a file whose chunks hold the query words apart outranks a file with one chunk holding one of them', () => {
    const postings = new Postings();
    postings.add(1n, 'src/session.py', new Map([['hooks', 2], ['x', 5]]));
    postings.add(2n, 'src/session.py', new Map([['request', 2], ['x', 5]]));
    postings.add(3n, 'src/hooks.py', new Map([['hooks', 4], ['y', 5]]));
    for (let i = 0; i < 20; i++) postings.add(BigInt(10 + i), `src/other${i}.py`, new Map([['z', 10]]));
    const chunks = postings.top([{ term: 'hooks', idf: 1 }, { term: 'request', idf: 1 }], 1, null);
    assert.deepEqual(
      chunks.map((c) => c.key),
      [3n],
      'chunk by chunk, the file named hooks leads',
    );
    const found = postings.fileMatches(['hooks', 'request'], null);
    assert.deepEqual(
      found.terms.map((t) => t.files),
      [2, 1],
    );
    const files = postings.topFiles(found, [1, 1], found.length / found.files, 2);
    assert.ok([1n, 2n].includes(files[0].key), `whole files: session.py first (as one of its chunks), not ${files[0].key}`);
    assert.equal(files[1].key, 3n);
    // Lengths are kept between searches until a chunk comes or goes.
    postings.remove(3n);
    assert.equal(postings.fileMatches(['hooks'], null).files, 21);
    postings.add(3n, 'src/hooks.py', new Map([['hooks', 4]]));
    assert.equal(postings.fileMatches(['hooks'], null).files, 22);
    assert.equal(postings.fileMatches(['hooks'], null).length, found.length - 5);
  });
});
