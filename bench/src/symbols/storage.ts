/**
 * bench/symbols/storage — what the symbol index's storage costs per row, and how much of it its indexes are: a lead
 * for issue 40's indexing target (full index ≥ 0.5× raw parse per core), where storage was measured at ~80
 * core-seconds of embedded Postgres on the event loop's thread for a full index of bench/symbols' corpus.
 *
 * Every Nth parseable file of that corpus (BENCH_EVERY, default 4) goes through the parse pool once; what it gives is
 * then stored by the symbol indexer's own `SymbolStore.replace`, in batches of INDEX_BATCH_FILES' default (200 files),
 * into a fresh database migrated as the service migrates it, once per variant:
 *   as migrated         the schema the service runs
 *   refs primary key    refs keyed by (repository_id, path, name) again, as before migration RefsByFile (ADR 0064)
 *   no secondary index  only what looks a file's rows up (the primary keys, and refs_file): every other index of the
 *                       five tables the symbols stage writes dropped
 *   no index            not even those: the rows, and each batch's deletes of its files' earlier rows scanning the
 *                       tables instead
 * on embedded Postgres (PGlite in this process, reached as `npm start`'s services reach it: its CPU is this process's)
 * and, as migrated and with the refs primary key, on the Postgres server the tests use (BENCH_POSTGRES=0 to skip). Before the first
 * timed variant, two batches are stored into a database of their own, untimed: the code paths compiled. The WAL is
 * read right after the last batch; it includes any ANALYZE the store started meanwhile (every so many rows, as the
 * service does), and on the Postgres server whatever else the server wrote. Imports are stored unresolved (target
 * null): resolving reads the checkout, not the database.
 *
 * Usage: npm run bench:symbol-storage   (builds the corpus as bench:symbols does, the first time)
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { languageOf } from '@sextant/checkouts';
import { Database, startEmbeddedPostgres } from '@sextant/persistence';
import { ParsePool } from '@sextant/parsing';
import { MIGRATIONS, SCHEMA, SymbolStore, type IndexedFile } from '@sextant/symbol-indexer';
import { createTestDatabase, infrastructure } from '@sextant/testing';
import { MAX_BYTES, symbolsCorpus } from './corpus.js';

const EVERY = Number(process.env.BENCH_EVERY ?? 4);
if (!Number.isInteger(EVERY) || EVERY < 1) {
  console.error(`BENCH_EVERY must be a whole number of at least 1 (every Nth file), not ${process.env.BENCH_EVERY}`);
  process.exit(2);
}
const BATCH_FILES = 200;
const TABLES = ['files', 'symbols', 'imports', 'refs', 'supertypes'] as const;
/** The same, as an SQL list of names. */
const TABLE_NAMES = TABLES.map((t) => `'${t}'`).join(', ');

type Variant = 'as migrated' | 'refs primary key' | 'no secondary index' | 'no index';

/** The files' extraction, as the symbols stage hands it to the store (imports unresolved). */
async function extracted(dir: string, paths: readonly string[]): Promise<IndexedFile[]> {
  const pool = new ParsePool({ timeoutMs: 2_000, maxBytes: MAX_BYTES });
  try {
    return await Promise.all(
      paths.map(async (path): Promise<IndexedFile> => {
        const language = languageOf(path)!;
        const outcome = await pool.parse(join(dir, path), language);
        if ('skipped' in outcome)
          return { path, language, skipped: outcome.skipped, symbols: [], imports: [], references: [], referenceCount: 0 };
        const { symbols, imports, references, referenceCount } = outcome;
        return {
          path,
          language,
          skipped: null,
          symbols,
          imports: imports.map((i) => ({ ...i, target: null })),
          references,
          referenceCount,
        };
      }),
    );
  } finally {
    await pool.close();
  }
}

/** Drops what `variant` goes without, on the five tables the symbols stage writes. */
async function strip(db: Database, variant: Variant): Promise<void> {
  if (variant === 'as migrated') return;
  const run = (name: string, text: string) => db.run({ name, text }, []);
  if (variant === 'refs primary key') {
    await run('bench.refs-key', `ALTER TABLE "${SCHEMA}"."refs" ADD PRIMARY KEY ("repository_id", "path", "name")`);
    await run('bench.drop.refs_file', `DROP INDEX "${SCHEMA}"."refs_file"`);
    return;
  }
  const { rows } = await db.run<{ name: string; table: string; primary: boolean }>(
    {
      name: 'bench.indexes',
      text: `SELECT i.relname AS name, t.relname AS "table", x.indisprimary AS primary FROM pg_index x
        JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE n.nspname = '${SCHEMA}' AND t.relname IN (${TABLE_NAMES})`,
    },
    [],
  );
  for (const index of rows) {
    const byFile = index.primary || index.name === 'refs_file';
    if (byFile && variant === 'no secondary index') continue;
    if (index.primary) await run(`bench.drop.${index.name}`, `ALTER TABLE "${SCHEMA}"."${index.table}" DROP CONSTRAINT "${index.name}"`);
    else await run(`bench.drop.${index.name}`, `DROP INDEX "${SCHEMA}"."${index.name}"`);
  }
}

interface Figures {
  seconds: number;
  cpuSeconds: number;
  rows: Record<string, number>;
  mb: Record<string, number>;
  walMb: number;
  /** Each index's size, largest first. */
  indexes: Array<{ name: string; mb: number }>;
}

/** The files stored batch by batch into a fresh database at `url`, as `variant`. */
async function store(url: string, variant: Variant, files: readonly IndexedFile[]): Promise<Figures> {
  const db = new Database({ url, schema: SCHEMA, migrations: MIGRATIONS, poolSize: 2, connectTimeoutMs: 5_000 });
  await db.start();
  try {
    await strip(db, variant);
    const one = async <T>(name: string, text: string) => (await db.run<T>({ name, text }, [])).rows[0];
    const { lsn } = await one<{ lsn: string }>('bench.lsn', 'SELECT pg_current_wal_lsn()::text AS lsn');
    const symbols = new SymbolStore(db);
    const repository = randomUUID();
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < files.length; i += BATCH_FILES) await symbols.replace(repository, 'bench', files.slice(i, i + BATCH_FILES), []);
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const { wal } = await one<{ wal: string }>('bench.wal', `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '${lsn}')::text AS wal`);
    const rows: Record<string, number> = {};
    const mb: Record<string, number> = {};
    for (const table of TABLES) {
      const row = await one<{ n: number; bytes: string }>(
        `bench.size.${table}`,
        `SELECT count(*)::int AS n, pg_total_relation_size('"${SCHEMA}"."${table}"')::text AS bytes FROM "${SCHEMA}"."${table}"`,
      );
      rows[table] = row.n;
      mb[table] = Number(row.bytes) / 2 ** 20;
    }
    const indexes = await db.run<{ name: string; bytes: string }>(
      {
        name: 'bench.index-sizes',
        text: `SELECT indexrelname AS name, pg_relation_size(indexrelid)::text AS bytes FROM pg_stat_user_indexes
          WHERE schemaname = '${SCHEMA}' AND relname IN (${TABLE_NAMES}) ORDER BY pg_relation_size(indexrelid) DESC`,
      },
      [],
    );
    return {
      seconds,
      cpuSeconds: (used.user + used.system) / 1e6,
      rows,
      mb,
      walMb: Number(wal) / 2 ** 20,
      indexes: indexes.rows.map((i) => ({ name: i.name, mb: Number(i.bytes) / 2 ** 20 })),
    };
  } finally {
    await db.stop();
  }
}

function report(where: string, variant: Variant, f: Figures, base?: Figures): void {
  const rows = Object.values(f.rows).reduce((a, b) => a + b, 0);
  const mb = Object.values(f.mb).reduce((a, b) => a + b, 0);
  const share = base ? `  (${((f.seconds / base.seconds) * 100).toFixed(0)} % of the time as migrated)` : '';
  console.log(
    `${where.padEnd(9)} ${variant.padEnd(19)} ${f.seconds.toFixed(1).padStart(6)} s  ${((f.seconds * 1e6) / rows).toFixed(1).padStart(5)} µs/row` +
      `  CPU in this process ${f.cpuSeconds.toFixed(1).padStart(5)} s  tables ${mb.toFixed(0).padStart(4)} MB  WAL ${f.walMb.toFixed(0).padStart(5)} MB${share}`,
  );
  console.log(`          ${TABLES.map((t) => `${t} ${f.rows[t]} rows ${f.mb[t].toFixed(1)} MB`).join(', ')}`);
  if (f.indexes.length > 0) console.log(`          indexes: ${f.indexes.map((i) => `${i.name} ${i.mb.toFixed(1)} MB`).join(', ')}`);
}

async function main(): Promise<void> {
  const corpus = symbolsCorpus();
  const paths = corpus.files.filter((_, i) => i % EVERY === 0).map((f) => f.path);
  console.log(`bench/symbol-storage: every ${EVERY}th parseable file of ${corpus.dir}: ${paths.length} files, batches of ${BATCH_FILES}`);
  const files = await extracted(corpus.dir, paths);
  const embedded = async (variant: Variant, stored: readonly IndexedFile[]) => {
    const pg = await startEmbeddedPostgres({ dataDir: 'memory://' });
    try {
      return await store(pg.url, variant, stored);
    } finally {
      await pg.stop();
    }
  };
  await embedded('as migrated', files.slice(0, 2 * BATCH_FILES)); // warm-up, untimed
  let base: Figures | undefined;
  for (const variant of ['as migrated', 'refs primary key', 'no secondary index', 'no index'] as const) {
    const figures = await embedded(variant, files);
    report('embedded', variant, figures, base);
    base ??= figures;
  }
  if (process.env.BENCH_POSTGRES !== '0') {
    const infra = await infrastructure();
    try {
      for (const variant of ['as migrated', 'refs primary key'] as const) {
        const database = await createTestDatabase(infra.postgresUrl);
        try {
          report('Postgres', variant, await store(database.url, variant, files));
        } finally {
          await database.drop();
        }
      }
    } finally {
      await infra.stop();
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
