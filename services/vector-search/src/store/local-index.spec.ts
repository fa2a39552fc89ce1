import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LocalIndex, PACK_MIN_REPOSITORIES, PACK_REPOSITORY_CHUNKS, type ChunkSource, type IndexedChunk } from './local-index.js';

const DIM = 8;

/** A unit vector pointing mostly along axis `i`, so the nearest neighbour of axis `i` is known. */
function axis(i: number, noise = 0): Float32Array {
  const v = new Float32Array(DIM).fill(noise);
  v[i % DIM] = 1;
  return v;
}

/** The record the index must agree with: rows per repository, as Postgres would hold them. */
class Rows implements ChunkSource {
  readonly byRepo = new Map<string, Map<bigint, IndexedChunk>>();
  pagesRead = 0;
  /** Called before a page is read (a test's write in the middle of a build). */
  onPage: ((repo: string) => Promise<void>) | undefined;

  apply(repo: string, removed: bigint[], added: Array<{ key: bigint; vector: Float32Array; words?: string[]; path?: string }>) {
    const rows = this.byRepo.get(repo) ?? new Map<bigint, IndexedChunk>();
    for (const key of removed) rows.delete(key);
    const chunks = added.map(({ key, vector, words = [], path = `src/${key}.ts` }) => ({
      key,
      vector,
      path,
      terms: new Map(words.map((w) => [w, 1])),
    }));
    for (const c of chunks) rows.set(c.key, c);
    this.byRepo.set(repo, rows);
    return { removed, added: chunks };
  }

  async tally(repo: string) {
    const keys = [...(this.byRepo.get(repo)?.keys() ?? [])];
    return { count: keys.length, sum: keys.reduce((s, k) => s + k, 0n) };
  }

  async page(repo: string, afterKey: bigint, limit: number) {
    this.pagesRead++;
    await this.onPage?.(repo);
    return [...(this.byRepo.get(repo)?.values() ?? [])]
      .filter(({ key }) => key > afterKey)
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .slice(0, limit);
  }
}

describe('LocalIndex (per repository: HNSW vectors and BM25 postings; Postgres as the record)', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'sextant-local-vectors-'));
    dirs.push(d);
    return d;
  };
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('finds the nearest vectors across repositories and forgets removed keys in both indexes', async () => {
    const rows = new Rows();
    const vectors = new LocalIndex({ dir: dir(), dimension: DIM, source: rows });
    await vectors.write('a', async () =>
      rows.apply(
        'a',
        [],
        [0, 1, 2].map((i) => ({ key: BigInt(i + 1), vector: axis(i), words: i === 1 ? ['gone'] : [] })),
      ),
    );
    await vectors.write('b', async () => rows.apply('b', [], [{ key: 10n, vector: axis(3) }]));

    assert.deepEqual(
      (await vectors.nearest(['a', 'b'], axis(3, 0.01), 1)).map((m) => m.key),
      [10n],
    );
    assert.deepEqual(
      (await vectors.nearest(['a'], axis(1, 0.01), 1)).map((m) => m.key),
      [2n],
    );

    await vectors.write('a', async () => rows.apply('a', [2n], []));
    const left = (await vectors.nearest(['a'], axis(1, 0.01), 3)).map((m) => m.key);
    assert.deepEqual(await vectors.lexical(['a'], ['gone'], 3, null, 16), []);
    assert.ok(!left.includes(2n), `removed key still found: ${left.join(',')}`);
    assert.equal(await vectors.size('a'), 2);
    await vectors.close();
  });

  it('holds at most maxChunks chunks in memory: the least recently used indexes are saved, closed and opened again on demand', async () => {
    const rows = new Rows();
    const d = dir();
    const vectors = new LocalIndex({ dir: d, dimension: DIM, source: rows, maxChunks: 4 });
    for (const [i, repo] of ['a', 'b', 'c'].entries()) {
      await vectors.write(repo, async () =>
        rows.apply(
          repo,
          [],
          [0, 1].map((j) => ({ key: BigInt(i * 10 + j + 1), vector: axis(i * 2 + j), words: [repo, 'shared'] })),
        ),
      );
    }
    assert.deepEqual([vectors.chunksInMemory(), vectors.repositoriesInMemory()], [4, 2], 'a, the least recently used, is closed');
    // A search over all three opens each it needs; answers are whole, and memory is back under the bound after it.
    assert.deepEqual(
      (await vectors.nearest(['a', 'b', 'c'], axis(0, 0.01), 1)).map((m) => m.key),
      [1n],
    );
    assert.deepEqual(
      (await vectors.lexical(['a', 'b', 'c'], ['shared'], 10, null, 16)).map((m) => m.key).sort((x, y) => (x < y ? -1 : 1)),
      [1n, 2n, 11n, 12n, 21n, 22n],
    );
    assert.ok(vectors.chunksInMemory() <= 4, `${vectors.chunksInMemory()} chunks in memory`);
    // Writes reach an index whether it is in memory or closed.
    await vectors.write('a', async () => rows.apply('a', [1n], []));
    await vectors.write('c', async () => rows.apply('c', [], [{ key: 23n, vector: axis(7), words: ['c'] }]));
    assert.deepEqual(
      (await vectors.lexical(['a', 'b', 'c'], ['shared'], 10, null, 16)).map((m) => m.key).sort((x, y) => (x < y ? -1 : 1)),
      [2n, 11n, 12n, 21n, 22n],
    );
    assert.equal(rows.pagesRead, 0, 'closed indexes come back from their files, not rebuilt from Postgres');
    // Ranked as by an index that holds everything (a search over indexes not all in memory counts in two passes).
    const all = ['a', 'b', 'c'];
    const bounded = [await vectors.lexical(all, ['shared', 'c'], 10, null, 16), await vectors.files(all, ['shared', 'c'], 10, null, 16)];
    assert.ok(vectors.chunksInMemory() <= 4, `${vectors.chunksInMemory()} chunks in memory`);
    await vectors.close();
    const reopened = new LocalIndex({ dir: d, dimension: DIM, source: rows });
    assert.deepEqual([await reopened.size('a'), await reopened.size('b'), await reopened.size('c')], [1, 2, 3]);
    assert.equal(rows.pagesRead, 0, 'every change reached the files');
    assert.deepEqual(
      [await reopened.lexical(all, ['shared', 'c'], 10, null, 16), await reopened.files(all, ['shared', 'c'], 10, null, 16)],
      bounded,
    );
    assert.equal(bounded[1].length, 6, 'each of the 6 live chunks is a file of its own holding a word');
    await reopened.close();
  });

  it('reopens a saved index without reading Postgres when its tally matches', async () => {
    const rows = new Rows();
    const d = dir();
    const first = new LocalIndex({ dir: d, dimension: DIM, source: rows });
    await first.write('a', async () =>
      rows.apply(
        'a',
        [],
        [
          { key: 1n, vector: axis(0), words: ['queue'] },
          { key: 2n, vector: axis(1), words: ['retry'] },
        ],
      ),
    );
    await first.close();

    const second = new LocalIndex({ dir: d, dimension: DIM, source: rows });
    assert.equal(await second.size('a'), 2);
    assert.equal(rows.pagesRead, 0, 'a matching index must load from its file');
    assert.deepEqual(
      (await second.lexical(['a'], ['retry'], 5, null, 16)).map((m) => m.key),
      [2n],
    );
    await second.close();
  });

  it('rebuilds from Postgres an index that missed a change (a crash before its save) or whose file is damaged', async () => {
    const rows = new Rows();
    const d = dir();
    const first = new LocalIndex({ dir: d, dimension: DIM, source: rows });
    await first.write('a', async () => rows.apply('a', [], [{ key: 1n, vector: axis(0), words: ['webhook'] }]));
    await first.close();
    // Rows written after the last save: the file's tally no longer matches.
    rows.apply(
      'a',
      [],
      [
        { key: 2n, vector: axis(1), words: ['retry', 'webhook'] },
        { key: 3n, vector: axis(2) },
      ],
    );

    const second = new LocalIndex({ dir: d, dimension: DIM, source: rows });
    assert.equal(await second.size('a'), 3);
    assert.ok(rows.pagesRead > 0, 'a stale index must be rebuilt from the record');
    assert.deepEqual(
      (await second.nearest(['a'], axis(2, 0.01), 1)).map((m) => m.key),
      [3n],
    );
    assert.deepEqual(
      (await second.lexical(['a'], ['retry', 'webhook'], 5, null, 16)).map((m) => m.key),
      [2n, 1n],
    );
    await second.close();

    // A damaged tally file is a mismatch too, not a crash.
    writeFileSync(join(d, 'a.json'), '{"count": 3, "sum": "999"}');
    rows.pagesRead = 0;
    const third = new LocalIndex({ dir: d, dimension: DIM, source: rows });
    assert.equal(await third.size('a'), 3);
    assert.ok(rows.pagesRead > 0);
    await third.close();

    // So are unreadable files.
    writeFileSync(join(d, 'a.json'), 'not json');
    writeFileSync(join(d, 'a.usearch'), 'not an index');
    const fourth = new LocalIndex({ dir: d, dimension: DIM, source: rows });
    assert.equal(await fourth.size('a'), 3);
    await fourth.close();
  });

  it('drops a repository: its index and files', async () => {
    const rows = new Rows();
    const d = dir();
    const vectors = new LocalIndex({ dir: d, dimension: DIM, source: rows });
    await vectors.write('a', async () => rows.apply('a', [], [{ key: 1n, vector: axis(0) }]));
    await vectors.save();
    await vectors.drop(['a']);
    rows.byRepo.delete('a');
    assert.equal(await vectors.size('a'), 0);
    assert.deepEqual(await vectors.nearest(['a'], axis(0), 5), []);
    await vectors.close();
  });

  it('packs small repositories into one index that a search over many reads, answering as their own indexes do', async () => {
    const rows = new Rows();
    const small = Array.from({ length: PACK_MIN_REPOSITORIES + 6 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    // Every small repository's chunks are as long on average as the pack's (BM25 normalizes by the index's average).
    const words = ['alpha', 'retry', 'queue', 'parse', 'token'];
    // Distinct directions, so that no two chunks tie for nearest.
    let seed = 40;
    const random = () => Float32Array.from({ length: DIM }, () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647 - 0.5);
    const probe = random();
    small.forEach((repo, i) =>
      rows.apply(
        repo,
        [],
        [0, 1, 2].map((j) => ({
          key: BigInt(i * 10 + j + 1),
          vector: random(),
          words: [repo, words[(i + j) % words.length], ...(j === 0 ? ['shared'] : [])],
          // The same path in two repositories is two files.
          path: j === 0 ? 'src/index.ts' : `src/${repo}/${j}.ts`,
        })),
      ),
    );
    rows.apply(
      'big',
      [],
      Array.from({ length: PACK_REPOSITORY_CHUNKS + 1 }, (_, j) => ({
        key: 100_000n + BigInt(j),
        // Away from the probe: the large repository's HNSW graph (2,001 nodes, built on several threads) is not an
        // exact search, so the nearest lists compared below come from the small repositories, searched exactly.
        vector: Float32Array.from(random(), (noise, d) => -probe[d] + 0.05 * noise),
        words: ['big', words[j % words.length]],
      })),
    );
    const all = [...small, 'big'];
    const own = new LocalIndex({ dir: dir(), dimension: DIM, source: rows });
    const packed = new LocalIndex({ dir: dir(), dimension: DIM, source: rows, maxChunks: 1, packChunks: 100_000, packQuietMs: 10 });
    // The lexical and file lists, exact in both. The nearest list is compared apart: HNSW is approximate, and a graph
    // built on several threads differs from one run to the next.
    const answers = async (index: LocalIndex, ids: readonly string[]) => [
      await index.lexical(ids, ['retry', 'shared', 'r07'], 10, null, 16),
      await index.files(ids, ['shared', 'queue'], 100, null, 16),
    ];

    // Asked for at start (before a search), built once writes pause; its repositories' own indexes are never read.
    await packed.warm(all);
    await packed.packed();
    assert.equal(packed.repositoriesPacked(), small.length, 'every small repository is packed, the large one is not');
    const expected = await answers(own, all);
    const read = rows.pagesRead;
    assert.deepEqual(await answers(packed, all), expected);
    const near = async (index: LocalIndex) => (await index.nearest(all, probe, 10)).map((h) => h.key);
    const exact = new Set(await near(own));
    const found = (await near(packed)).filter((key) => exact.has(key)).length;
    assert.ok(found >= 8, `the pack's nearest 10 hold ${found} of the exact 10`);
    assert.equal(rows.pagesRead - read, 2, 'only the large repository was opened (read from the record: two pages)');
    assert.equal(expected[1].filter((f) => f.key % 10n === 1n).length, small.length, "every repository's src/index.ts is a file");

    // A write to a packed repository: the pack is dropped at once (searches read that repository's own index), and
    // built again once writes pause.
    await packed.write('r05', async () => rows.apply('r05', [51n], [{ key: 59n, vector: probe, words: ['r05', 'retry', 'fresh'] }]));
    assert.equal(packed.repositoriesPacked(), 0);
    // What indexes read afresh from the record answer (an index in memory counts a removed chunk's terms in its df
    // until it merges; one saved and opened again, as with maxChunks 1 here, no longer does).
    const reread = new LocalIndex({ dir: dir(), dimension: DIM, source: rows });
    const fresh = await answers(reread, all);
    await reread.close();
    assert.deepEqual(await answers(packed, all), fresh);
    assert.equal((await packed.nearest(all, probe, 1))[0].key, 59n, "the repository's own index has the write");
    await packed.packed();
    assert.equal(packed.repositoriesPacked(), small.length);
    assert.deepEqual(await answers(packed, all), fresh);
    assert.equal((await packed.nearest(all, probe, 1))[0].key, 59n, 'the new pack has the write');

    // A search over part of the pack's repositories reads their own indexes.
    const part = all.filter((id) => id !== 'r05');
    assert.deepEqual(await answers(packed, part), await answers(own, part));

    // A write to a repository already read while a build runs: that pack is thrown away, and the next one has it.
    await packed.write('r05', async () => rows.apply('r05', [59n], [{ key: 58n, vector: random(), words: ['r05', 'retry', 'later'] }]));
    rows.onPage = async (repo) => {
      if (repo !== 'r40') return;
      rows.onPage = undefined;
      // One chunk for another as long: the repository's average chunk length stays the pack's.
      await packed.write('r03', async () => rows.apply('r03', [33n], [{ key: 39n, vector: probe, words: ['r03', 'midway'] }]));
    };
    // The build that finds r03 written stops; the next, after a pause, holds the write.
    await packed.packed();
    assert.equal(rows.onPage, undefined, 'the write happened during a build');
    assert.equal(packed.repositoriesPacked(), small.length);
    assert.deepEqual(
      (await packed.lexical(all, ['midway'], 5, null, 16)).map((h) => h.key),
      [39n],
    );
    const again = new LocalIndex({ dir: dir(), dimension: DIM, source: rows });
    assert.deepEqual(await answers(packed, all), await answers(again, all));
    await again.close();

    // A repository dropped: the pack is built again without it.
    await packed.drop(['r07']);
    rows.byRepo.delete('r07');
    assert.equal(packed.repositoriesPacked(), 0);
    await packed.packed();
    assert.equal(packed.repositoriesPacked(), small.length - 1);
    assert.deepEqual(
      (
        await packed.lexical(
          all.filter((id) => id !== 'r07'),
          ['r07'],
          5,
          null,
          16,
        )
      ).map((h) => h.key),
      [],
    );
    await own.close();
    await packed.close();
  });
});
