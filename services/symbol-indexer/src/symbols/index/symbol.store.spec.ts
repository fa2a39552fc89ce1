import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Database, startEmbeddedPostgres, type EmbeddedPostgres } from '@sextant/persistence';
import type { ExtractedSymbol } from '@sextant/parsing';
import { MIGRATIONS, SCHEMA } from '../../migrations/index.js';
import { RefsByFile1733300000000 } from '../../migrations/1733300000000-refs-by-file.js';
import { SymbolStore, type IndexedFile } from './symbol.store.js';

/** A file of `n` functions, each calling the next by name: more rows than one insert statement takes. */
function bigFile(path: string, n: number, name = (i: number) => `f${i}`): IndexedFile {
  const symbols: ExtractedSymbol[] = Array.from({ length: n }, (_, i) => ({
    name: name(i),
    kind: 'function',
    line: i + 1,
    endLine: i + 1,
    column: 16,
    container: null,
    signature: `export function ${name(i)}()`,
    parent: -1,
  }));
  const references = Array.from({ length: n }, (_, i) => ({ name: `f${i + 1}`, occurrences: `${i + 1},30,c,${i},-` }));
  return { path, language: 'typescript', skipped: null, symbols, imports: [], references, referenceCount: n };
}

describe('SymbolStore (PGlite, real SQL and migrations)', () => {
  let pg: EmbeddedPostgres;
  let db: Database;
  let store: SymbolStore;
  const count = async (table: string) =>
    (await db.run<{ n: number }>({ name: `count.${table}`, text: `SELECT count(*)::int AS n FROM ${SCHEMA}.${table}` }, [])).rows[0].n;

  before(async () => {
    pg = await startEmbeddedPostgres({ dataDir: 'memory://' });
    db = new Database({ url: pg.url, schema: SCHEMA, migrations: MIGRATIONS, poolSize: 2, connectTimeoutMs: 2_000 });
    await db.start();
    store = new SymbolStore(db);
  });
  after(async () => {
    await db?.stop();
    await pg?.stop();
  });

  it('stores a file of more rows than one statement takes, whole and in order', async () => {
    const n = 2_345;
    assert.equal(await store.replace('r1', 'c1', [bigFile('src/big.ts', n)], []), n);
    assert.equal(await count('symbols'), n);
    assert.equal(await count('refs'), n);
    const outline = await store.outline('r1', 'src/big.ts');
    assert.deepEqual(
      outline?.symbols.map((s) => [s.name, s.line]),
      Array.from({ length: n }, (_, i) => [`f${i}`, i + 1]),
    );
    const [last] = await store.references([`f${n}`], ['r1'], 10);
    assert.deepEqual(last.occurrences, [{ line: n, column: 30, kind: 'call', enclosing: n - 1, qualifier: null }]);
  });

  it('leaves the files as they were when a later statement of the write fails (one transaction)', async () => {
    await store.replace('r2', 'c1', [bigFile('src/kept.ts', 10, (i) => `k${i}`)], []);
    const before = await count('symbols');
    // The last symbol has no name (the column is NOT NULL): the third of its statements fails, after two went in.
    const broken = bigFile('src/kept.ts', 2_500, (i) => (i === 2_499 ? (null as unknown as string) : `g${i}`));
    await assert.rejects(store.replace('r2', 'c2', [broken], []), /null value in column "name"/);
    assert.equal(await count('symbols'), before);
    assert.deepEqual((await store.locate('g0', { repositoryIds: ['r2'], limit: 5 })).rows, []);
    assert.deepEqual(
      (await store.outline('r2', 'src/kept.ts'))?.symbols.map((s) => s.name),
      Array.from({ length: 10 }, (_, i) => `k${i}`),
    );
  });
});

describe('migration RefsByFile (PGlite): refs looked up by file instead of a primary key on file and name', () => {
  it('keeps the references stored before it, and a file indexed again replaces its rows', async () => {
    const pg = await startEmbeddedPostgres({ dataDir: 'memory://' });
    const options = { url: pg.url, schema: SCHEMA, poolSize: 2, connectTimeoutMs: 2_000 };
    const earlier = new Database({ ...options, migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(RefsByFile1733300000000)) });
    const db = new Database({ ...options, migrations: MIGRATIONS });
    try {
      await earlier.start();
      await new SymbolStore(earlier).replace('r1', 'c1', [bigFile('src/a.ts', 30), bigFile('src/b.ts', 20)], []);
      await earlier.stop();
      await db.start();
      const store = new SymbolStore(db);
      const indexes = await db.run<{ name: string }>(
        { name: 'refs.indexes', text: `SELECT indexname AS name FROM pg_indexes WHERE schemaname = '${SCHEMA}' AND tablename = 'refs' ORDER BY 1` },
        [],
      );
      assert.deepEqual(
        indexes.rows.map((r) => r.name),
        ['refs_file', 'refs_name'],
      );
      // f10 is called in both files: found in each, as stored before the migration.
      const before = await store.references(['f10'], ['r1'], 10);
      assert.deepEqual(
        before.map((r) => r.path),
        ['src/a.ts', 'src/b.ts'],
      );
      // Indexed again, a file's rows are replaced, not added to: one row per name, as before.
      await store.replace('r1', 'c2', [bigFile('src/a.ts', 30)], []);
      const rows = await db.run<{ n: number }>(
        { name: 'refs.count', text: `SELECT count(*)::int AS n FROM ${SCHEMA}.refs WHERE repository_id = 'r1' AND path = 'src/a.ts'` },
        [],
      );
      assert.equal(rows.rows[0].n, 30);
      assert.deepEqual(
        (await store.references(['f10'], ['r1'], 10)).map((r) => r.path),
        ['src/a.ts', 'src/b.ts'],
      );
    } finally {
      await earlier.stop();
      await db.stop();
      await pg.stop();
    }
  });
});
