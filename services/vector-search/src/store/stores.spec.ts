import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Database, startEmbeddedPostgres, type EmbeddedPostgres } from '@sextant/persistence';
import { HashingEmbedder } from '../embedding/hashing-embedder.js';
import { lexemes } from '../lexical/lexemes.js';
import { termCounts, type TermCounts } from '../lexical/postings.js';
import type { Hit } from '../search/hit.js';
import { MIGRATIONS, SCHEMA } from '../migrations/index.js';
import { ChunkStore } from './chunk-store.js';
import { VECTOR_STORES } from './stores.js';
import {
  byteaLiteral,
  placed,
  type ChunkTable,
  type HybridWeights,
  type SearchFilter,
  type TableChange,
  fuseChunks,
  type SearchOptions,
  type VectorIndex,
} from './vector-index.js';

/**
 * A store made for this test, as ADR 0052 says a store is made: one class implementing `VectorIndex`, one entry in
 * the stores `ChunkStore` is given. Exact and in memory: every vector and term kept in a map by the row's key.
 */
class MemoryVectors implements VectorIndex {
  readonly column = { type: 'bytea', keyed: true, ddl: [] };
  readonly points = new Map<bigint, { repositoryId: string; vector: Float32Array; terms: TermCounts }>();

  constructor(private readonly table: ChunkTable) {}

  literal(vector: Float32Array): string {
    return byteaLiteral(vector);
  }

  async open(): Promise<void> {}

  async write({ id }: { id: string }, _commit: string | null, change: TableChange): Promise<void> {
    const { removed, added } = await change(async () => undefined);
    for (const key of removed) this.points.delete(key);
    for (const { key, row } of added) this.points.set(key, { repositoryId: id, vector: row.embedding, terms: termCounts(row.lexemes) });
  }

  async lexical(words: readonly string[], filter: SearchFilter): Promise<Hit[]> {
    return this.ranked(filter, (p) => words.reduce((sum, w) => sum + (p.terms.get(w) ?? 0), 0));
  }

  async dense(vector: Float32Array, filter: SearchFilter): Promise<Hit[]> {
    return this.ranked(filter, (p) => p.vector.reduce((sum, v, i) => sum + v * vector[i], 0));
  }

  async hybrid(words: readonly string[], vector: Float32Array, filter: SearchFilter, weights: HybridWeights, options: SearchOptions) {
    return fuseChunks(this, words, vector, filter, weights, options);
  }

  async purge(repositoryIds: readonly string[]): Promise<void> {
    for (const [key, p] of this.points) if (repositoryIds.includes(p.repositoryId)) this.points.delete(key);
  }

  async close(): Promise<void> {}

  private async ranked(filter: SearchFilter, score: (p: MemoryVectors['points'] extends Map<bigint, infer P> ? P : never) => number) {
    const found = [...this.points]
      .filter(([, p]) => filter.repositoryIds === null || filter.repositoryIds.includes(p.repositoryId))
      .map(([key, p]) => ({ key, score: score(p) }))
      .filter((f) => f.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, filter.limit);
    return placed(found, await this.table.rowsOf(found, filter));
  }
}

describe('vector stores: a new one is one class and one entry (ADR 0052)', () => {
  let pg: EmbeddedPostgres;
  let db: Database;
  const embedder = new HashingEmbedder(64);
  let made: MemoryVectors | undefined;
  const stores = { ...VECTOR_STORES, memory: (table: ChunkTable) => (made = new MemoryVectors(table)) };

  before(async () => {
    pg = await startEmbeddedPostgres({ dataDir: 'memory://' });
    db = new Database({ url: pg.url, schema: SCHEMA, migrations: MIGRATIONS, poolSize: 2, connectTimeoutMs: 5_000 });
    await db.start();
  });
  after(async () => {
    await db.stop();
    await pg.stop();
  });

  const chunk = async (path: string, ordinal: number, content: string) => ({
    path,
    ordinal,
    startLine: ordinal * 10 + 1,
    endLine: ordinal * 10 + 9,
    language: 'typescript',
    symbol: null,
    content,
    lexemes: lexemes(path, null, content),
    embedding: (await embedder.embed([content]))[0],
  });

  it('writes through ChunkStore, records the store with the collection, and answers every search from it', async () => {
    const store = new ChunkStore(db, embedder, { kind: 'memory' }, stores);
    const repository = { id: 'r1', name: 'shop' };
    await store.replace(
      repository,
      'c1',
      [
        { path: 'src/retry.ts', chunks: [await chunk('src/retry.ts', 0, 'export function retryWithBackoff(attempts) { sleep(backoff) }')] },
        { path: 'src/cart.ts', chunks: [await chunk('src/cart.ts', 0, 'export class Cart { addItem(item) { this.items.push(item) } }')] },
      ],
      [],
    );
    assert.equal(store.vectors, 'memory');
    const recorded = await db.dataSource.query(`SELECT vectors FROM "vector_search"."collections" WHERE name = $1`, [store.collection]);
    assert.deepEqual(recorded, [{ vectors: 'memory' }]);
    assert.equal(made!.points.size, 2, 'the store holds what the table holds');

    const filter = { repositoryIds: ['r1'], pathPrefix: null, limit: 10 };
    assert.deepEqual(
      (await store.lexical(['backoff'], filter)).map((h) => h.path),
      ['src/retry.ts'],
    );
    const [query] = await embedder.embed(['addItem to the Cart']);
    assert.equal((await store.dense(query, filter))[0].path, 'src/cart.ts');
    const fused = await store.hybrid(['cart'], query, filter, { lexical: 1, dense: 1, files: 4 });
    assert.deepEqual(fused.weights, [1, 1], 'a store without a files list fuses two lists');
    assert.equal(fused.hits[0].path, 'src/cart.ts');

    // A file replaced: its old row and point go, the new ones come.
    await store.replace(
      repository,
      'c2',
      [{ path: 'src/cart.ts', chunks: [await chunk('src/cart.ts', 0, 'export class Basket {}')] }],
      ['src/retry.ts'],
    );
    assert.equal(made!.points.size, 1);
    assert.deepEqual(await store.lexical(['backoff'], filter), []);
    await store.purge(['r1']);
    assert.equal(made!.points.size, 0);
  });

  it('the local store rebuilds an index from Postgres in key order (keys 1 to 12: as text, 10 sorts before 9)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sx-local-rebuild-'));
    try {
      const local = { kind: 'local' as const, dir, maxChunks: 100_000, packChunks: 0 };
      // A collection of its own (the first test's is recorded with the memory store): its keys start at 1.
      const own = new HashingEmbedder(32);
      const first = new ChunkStore(db, own, local);
      const repository = { id: 'r-rebuild', name: 'many' };
      const files = await Promise.all(
        Array.from({ length: 12 }, async (_, i) => {
          const path = `src/f${i}.ts`;
          const c = await chunk(path, 0, `export const widget${i} = 1`);
          return { path, chunks: [{ ...c, embedding: (await own.embed([c.content]))[0] }] };
        }),
      );
      await first.replace(repository, 'c1', files, []);
      await first.close();
      // A tally that no longer matches: the next open rebuilds from Postgres, one page after another.
      for (const name of readdirSync(join(dir, first.collection))) if (name.endsWith('.json')) rmSync(join(dir, first.collection, name));
      const second = new ChunkStore(db, own, local);
      const filter = { repositoryIds: ['r-rebuild'], pathPrefix: null, limit: 20 };
      const [query] = await own.embed(['export const widget']);
      assert.equal((await second.dense(query, filter)).length, 12);
      assert.deepEqual(
        (await second.lexical(['widget11'], filter)).map((h) => h.path),
        ['src/f11.ts'],
      );
      await second.purge(['r-rebuild']);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds the chunks of definitions by name: exact names first, then by last name; within the filter', async () => {
    const small = new HashingEmbedder(24);
    const store = new ChunkStore(db, small, { kind: 'postgres' });
    const named = async (path: string, ordinal: number, symbol: string) => ({
      ...(await chunk(path, ordinal, `def ${symbol}`)),
      symbol,
      embedding: (await small.embed([symbol]))[0],
    });
    await store.replace(
      { id: 'r2', name: 'models' },
      'c1',
      [
        { path: 'models.py', chunks: [await named('models.py', 0, 'Request'), await named('models.py', 1, 'Request.prepare_hooks')] },
        { path: 'hooks.py', chunks: [await named('hooks.py', 0, 'dispatch_hook')] },
        { path: 'sessions.py', chunks: [await named('sessions.py', 0, 'Session.dispatch_hook')] },
      ],
      [],
    );
    const filter = { repositoryIds: ['r2'], pathPrefix: null, limit: 10 };
    const places = (hits: readonly Hit[]) => hits.map((h) => `${h.path}#${h.ordinal}`);
    assert.deepEqual(places(await store.definitions({ exact: ['Request.hooks', 'Request'], last: [] }, filter, 6)), ['models.py#0']);
    // The exact match once (not again as a last name), before the last-name ones.
    assert.deepEqual(places(await store.definitions({ exact: ['dispatch_hook'], last: ['dispatch_hook'] }, filter, 6)), [
      'hooks.py#0',
      'sessions.py#0',
    ]);
    assert.deepEqual(await store.definitions({ exact: ['Request'], last: [] }, { ...filter, repositoryIds: ['elsewhere'] }, 6), []);
    assert.deepEqual(await store.definitions({ exact: [], last: [] }, filter, 6), []);
    // A name many chunks carry: `perName` of them, whatever the filter's limit.
    await store.replace(
      { id: 'r2', name: 'models' },
      'c1',
      await Promise.all(Array.from({ length: 9 }, async (_, i) => ({ path: `h${i}.py`, chunks: [await named(`h${i}.py`, 0, `H${i}.handle`)] }))),
      [],
    );
    assert.equal((await store.definitions({ exact: [], last: ['handle'] }, filter, 6)).length, 6);
    const [exact, ...byLast] = places(await store.definitions({ exact: ['H3.handle'], last: ['handle'] }, filter, 2));
    assert.equal(exact, 'h3.py#0');
    assert.equal(byLast.length, 2);
    assert.ok(!byLast.includes('h3.py#0'), byLast.join());
  });

  it('a collection recorded with a store this server lacks fails to open, naming it', async () => {
    const without = new ChunkStore(db, embedder, { kind: 'postgres' });
    await assert.rejects(without.open(), /keeps its vectors in "memory", a store this server does not have/);
  });
});
