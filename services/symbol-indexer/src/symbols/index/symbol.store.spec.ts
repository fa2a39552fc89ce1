import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Database, startEmbeddedPostgres, type EmbeddedPostgres } from '@sextant/persistence';
import type { ExtractedSymbol } from '@sextant/parsing';
import { MIGRATIONS, SCHEMA } from '../../migrations/index.js';
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
