import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Database, startEmbeddedPostgres, type EmbeddedPostgres } from '@sextant/persistence';
import { HashingEmbedder } from '../embedding/hashing-embedder.js';
import { lexemes } from '../lexical/lexemes.js';
import { tokenize } from '../lexical/tokenizer.js';
import { MIGRATIONS, SCHEMA } from '../migrations/index.js';
import type { Hit } from '../search/hit.js';
import { ChunkStore, type ChunkRow } from './chunk-store.js';

/** This package's own sources (not its specs: this one holds the words it looks for), cut into chunks of 30 lines. */
function corpus(): Array<{ path: string; chunks: Array<Omit<ChunkRow, 'embedding'>> }> {
  const root = fileURLToPath(new URL('../../src', import.meta.url));
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts')) files.push(join(dir, e.name));
    }
  };
  walk(root);
  return files.sort().map((file) => {
    const path = relative(root, file);
    const lines = readFileSync(file, 'utf8').split('\n');
    const chunks = [];
    for (let at = 0, ordinal = 0; at < lines.length; at += 30, ordinal++) {
      const content = lines.slice(at, at + 30).join('\n');
      chunks.push({ path, ordinal, startLine: at + 1, endLine: Math.min(lines.length, at + 30), language: 'typescript', symbol: null, content, lexemes: lexemes(path, null, content) });
    }
    return { path, chunks };
  });
}

const QUERIES = [
  'reciprocal rank fusion weights',
  'local index postings segment merge',
  'hybrid search whole files best chunk',
  'qdrant sparse vector payload',
  'embedding batch timeout retry',
  'term counts header weight tsvector',
];

const places = (hits: readonly Hit[]) => hits.map((h) => `${h.path}#${h.ordinal}`);

describe('BM25 in Postgres (TermTables): ranks as the local store ranks', () => {
  let pg: EmbeddedPostgres;
  let db: Database;
  let dir: string;
  // Two dimensions, two collections in one database: one kept by the local store, one by Postgres (`real[]`).
  const local = new HashingEmbedder(32);
  const postgres = new HashingEmbedder(48);
  let localStore: ChunkStore;
  let postgresStore: ChunkStore;
  const repository = { id: 'r1', name: 'vector-search' };
  const files = corpus();
  const filter = (limit: number) => ({ repositoryIds: ['r1'], pathPrefix: null, limit });

  const embedded = async (embedder: HashingEmbedder, file: (typeof files)[number]) => ({
    path: file.path,
    chunks: await Promise.all(file.chunks.map(async (c) => ({ ...c, embedding: (await embedder.embed([c.content]))[0] }))),
  });
  const count = async (table: string) =>
    Number((await db.dataSource.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM "vector_search"."${table}_${postgresStore.collection}"`))[0].n);

  before(async () => {
    pg = await startEmbeddedPostgres({ dataDir: 'memory://' });
    db = new Database({ url: pg.url, schema: SCHEMA, migrations: MIGRATIONS, poolSize: 2, connectTimeoutMs: 5_000 });
    await db.start();
    dir = mkdtempSync(join(tmpdir(), 'sx-terms-'));
    localStore = new ChunkStore(db, local, { kind: 'local', dir, maxChunks: 100_000, packChunks: 0 });
    postgresStore = new ChunkStore(db, postgres, { kind: 'postgres' });
    await localStore.replace(repository, 'c1', await Promise.all(files.map((f) => embedded(local, f))), []);
    await postgresStore.replace(repository, 'c1', await Promise.all(files.map((f) => embedded(postgres, f))), []);
  });
  after(async () => {
    await localStore.close();
    await db.stop();
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ranks chunks by BM25 as the local postings do: the same chunks, in the same order, with the same scores', async () => {
    assert.ok(files.length > 10, 'a corpus of real files');
    for (const query of QUERIES) {
      const words = [...new Set(tokenize(query))];
      const fromLocal = await localStore.lexical(words, filter(20));
      const fromPostgres = await postgresStore.lexical(words, filter(20));
      assert.ok(fromLocal.length > 0, query);
      assert.deepEqual(places(fromPostgres), places(fromLocal), query);
      fromPostgres.forEach((h, i) => assert.ok(Math.abs(h.score - fromLocal[i].score) < 1e-3 * fromLocal[i].score, `${query}: score ${i}`));
    }
  });

  it('fuses whole files ranked by BM25 into hybrid search, each as the chunk the local store picks', async () => {
    for (const query of QUERIES) {
      const words = [...new Set(tokenize(query))];
      const weights = { lexical: 1, dense: 0, files: 4 };
      // Dense weight 0 and the same lexical list: what is left to differ is the files list.
      const fromLocal = await localStore.hybrid(words, (await local.embed([query]))[0], filter(30), weights);
      const fromPostgres = await postgresStore.hybrid(words, (await postgres.embed([query]))[0], filter(30), weights);
      assert.deepEqual(fromPostgres.weights, [1, 0, 4], 'three lists');
      const top = (hits: readonly Hit[]) => places(hits.filter((h) => h.score > 0.02));
      assert.deepEqual(top(fromPostgres.hits), top(fromLocal.hits), query);
    }
  });

  it('a rewritten file is counted again and a deleted one forgotten, in the transaction of its chunks', async () => {
    const words = ['zanzibar'];
    assert.deepEqual(await postgresStore.lexical(words, filter(5)), []);
    const rows = await count('terms');
    const target = files.find((f) => f.path === 'lexical/postings.ts')!;
    const changed = { path: target.path, chunks: [{ ...target.chunks[0], content: 'zanzibar', lexemes: lexemes(target.path, null, 'zanzibar zanzibar') }] };
    await postgresStore.replace(repository, 'c2', [await embedded(postgres, changed)], ['lexical/lexemes.ts']);
    assert.deepEqual(places(await postgresStore.lexical(words, filter(5))), ['lexical/postings.ts#0']);
    assert.ok((await count('terms')) < rows, 'the old chunks’ terms are gone');
    const [gone] = await db.dataSource.query<Array<{ n: string }>>(
      `SELECT count(*) AS n FROM "vector_search"."terms_${postgresStore.collection}" WHERE path = 'lexical/lexemes.ts'`,
    );
    assert.equal(gone.n, '0', 'a deleted file leaves no terms');
    const [file] = await db.dataSource.query<Array<{ length: number; chunks: number }>>(
      `SELECT length, chunks FROM "vector_search"."files_${postgresStore.collection}" WHERE path = 'lexical/postings.ts'`,
    );
    // Path words are header (weight A: 3 each), "zanzibar" twice in the body.
    assert.deepEqual(file, { length: 3 * 3 + 2, chunks: 1 });
    await postgresStore.replace(repository, 'c3', [await embedded(postgres, target)], []);
    await postgresStore.replace(repository, 'c3', [await embedded(postgres, files.find((f) => f.path === 'lexical/lexemes.ts')!)], []);
  });

  it('counts a collection made before the term tables once, when it opens', async () => {
    const words = [...new Set(tokenize(QUERIES[0]))];
    const before = places(await postgresStore.lexical(words, filter(10)));
    for (const t of ['terms', 'files']) await db.dataSource.query(`DROP TABLE "vector_search"."${t}_${postgresStore.collection}"`);
    const reopened = new ChunkStore(db, postgres, { kind: 'postgres' });
    assert.deepEqual(places(await reopened.lexical(words, filter(10))), before);
    assert.ok((await count('files')) > 0);
  });

  it('forgets a purged repository in every term table', async () => {
    await postgresStore.purge(['r1']);
    for (const t of ['terms', 'files']) assert.equal(await count(t), 0, t);
    assert.deepEqual(await postgresStore.lexical(['postings'], filter(5)), []);
  });
});
