import { Logger } from '@nestjs/common';
import { Database, sql, type Statement } from '@sextant/persistence';
import type { Embedder } from '../embedding/embedder.js';
import type { Hit } from '../search/hit.js';
import { lazy } from '../lazy.js';
import { VECTOR_STORES, type VectorColumn, type VectorStoreFactory, type VectorStorePreference } from './stores.js';
import {
  searchOptions,
  type ChunkRow,
  type ChunkTable,
  type HybridWeights,
  type RepositoryRef,
  type SearchFilter,
  type SearchOptions,
  type VectorIndex,
} from './vector-index.js';

export { UNKNOWN_REPOSITORY, type ChunkRow, type HybridWeights, type RepositoryRef, type SearchFilter } from './vector-index.js';
export type { VectorColumn, VectorStorePreference } from './stores.js';

/** Chunks written per transaction, about (whole files). */
const WRITE_ROWS = 500;

const COLUMNS = `repository_id AS "repositoryId", path, ordinal, start_line AS "startLine", end_line AS "endLine", language, symbol, commit, content`;
/** A chunk's symbol's last name (`hooks` of `Request.hooks`). */
const LAST_NAME = `regexp_replace(symbol, '^.*[.]', '')`;
/** A filter on `$2` (repository ids or null) and `$3` (path prefix or null). */
const FILTER = `($2::text[] IS NULL OR repository_id = ANY($2::text[])) AND ($3::text IS NULL OR starts_with(path, $3))`;

/**
 * One collection's chunks: the Postgres record (a row per chunk: its place, content, lexemes for the lexical side,
 * vector) and the vector store that searches them (`VectorIndex`, one of `VECTOR_STORES`, chosen when the collection
 * is made and recorded with it). Writes replace whole files; searches go to the store, which reads rows back here.
 */
export class ChunkStore {
  private readonly log = new Logger('ChunkStore');
  private readonly table: string;
  private sql!: Record<'delete' | 'insert' | 'indexed' | 'definitions' | 'purge' | 'purgeIndexed' | 'hydrate' | 'repositories', Statement>;
  private column: VectorColumn | string | undefined;
  private index!: VectorIndex;

  /** The collection of the embedder's vectors: `<model>_<dimension>`, so two models never share one. */
  readonly collection: string;
  private readonly model: string;
  private readonly dimension: number;

  /**
   * `store`: where a new collection keeps its vectors (VECTOR_STORE); `stores`: the stores by name (a test adds its
   * own there, with `store.kind` naming it).
   */
  constructor(
    private readonly db: Database,
    embedder: Pick<Embedder, 'model' | 'dimension'>,
    private readonly store: VectorStorePreference | { kind: string } = { kind: 'postgres' },
    private readonly stores: Record<string, VectorStoreFactory> = VECTOR_STORES,
    private readonly options: SearchOptions = searchOptions(),
  ) {
    const model = embedder.model
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 40);
    this.collection = `${model}_${embedder.dimension}`;
    this.model = embedder.model;
    this.dimension = embedder.dimension;
    this.table = `"vector_search"."chunks_${this.collection}"`;
  }

  /** How this collection keeps its vectors (known once the table is made). */
  get vectors(): VectorColumn | string | undefined {
    return this.column;
  }

  /** Makes the collection's table (once, under an advisory lock: replicas take turns) and prepares its statements. */
  readonly open = lazy(() => this.create());

  /** Opens the collection in the background (a failure is logged; the next search tries again). */
  preload(): void {
    this.open().catch((error: Error) =>
      this.log.warn(`could not open collection ${this.collection} ahead of the first search (${error.message})`),
    );
  }

  private async create(): Promise<void> {
    const source = this.db.dataSource;
    const runner = source.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`sextant:collection:${this.collection}`]);
      const known = (await runner.query(`SELECT vectors FROM "vector_search"."collections" WHERE name = $1`, [this.collection])) as Array<{
        vectors: string;
      }>;
      let column = known[0]?.vectors;
      const made = column === undefined;
      if (!column) {
        if (this.store.kind !== 'postgres') column = this.store.kind;
        else column = (await this.pgvector(runner.query.bind(runner))) ? 'pgvector' : 'array';
      }
      const factory = this.stores[column];
      if (!factory) throw new Error(`collection ${this.collection} keeps its vectors in "${column}", a store this server does not have`);
      const index = factory(this.chunkTable(), this.store as VectorStorePreference);
      if (made) {
        await runner.query(`
          CREATE TABLE IF NOT EXISTS ${this.table} (
            repository_id text NOT NULL,
            path text NOT NULL,
            ordinal int NOT NULL,
            start_line int NOT NULL,
            end_line int NOT NULL,
            language text,
            symbol text,
            commit text,
            content text NOT NULL,
            lexemes tsvector NOT NULL,
            embedding ${index.column.type} NOT NULL,
            ${index.column.keyed ? 'key bigint GENERATED ALWAYS AS IDENTITY UNIQUE,' : ''}
            PRIMARY KEY (repository_id, path, ordinal)
          )`);
        await runner.query(`CREATE INDEX IF NOT EXISTS "chunks_${this.collection}_lexemes" ON ${this.table} USING gin (lexemes)`);
        for (const ddl of index.column.ddl) await runner.query(ddl);
        await runner.query(
          `INSERT INTO "vector_search"."collections" (name, model, dimension, vectors) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING`,
          [this.collection, this.model, this.dimension, column],
        );
      }
      if (index.column.keyed && this.store.kind !== column) {
        throw new Error(
          `collection ${this.collection} keeps its vectors in ${column === 'local' ? 'local index files' : column === 'qdrant' ? 'Qdrant' : `the ${column} store`}, which this server does not use (VECTOR_STORE=${this.store.kind}): set VECTOR_STORE=${column}${column === 'local' ? ' with the same data directory' : column === 'qdrant' ? ' and QDRANT_URL' : ''}, or drop the collection and re-index`,
        );
      }
      if (!index.column.keyed && this.store.kind !== 'postgres') {
        this.log.warn(
          `collection ${this.collection} keeps its vectors in Postgres (${column}), as when it was made; VECTOR_STORE=${this.store.kind} applies to new collections`,
        );
      }
      if (column === 'array') {
        this.log.warn(
          `collection ${this.collection}: this Postgres has no pgvector, so the dense side of search is an exact scan (fine for small indexes; install pgvector or set QDRANT_URL for large ones)`,
        );
      }
      // Definitions by name within the filter's repositories, one index for both conditions (a collection made before
      // them gets them now). With an index on the name alone, Postgres ANDed it with every chunk of the repository
      // through the primary key: 14 ms a name at 200k chunks, 28 ms a hybrid search; 0.4 ms so.
      await runner.query(`CREATE INDEX IF NOT EXISTS "chunks_${this.collection}_sym" ON ${this.table} (symbol, repository_id)`);
      await runner.query(`CREATE INDEX IF NOT EXISTS "chunks_${this.collection}_last" ON ${this.table} ((${LAST_NAME}), repository_id)`);
      this.column = column;
      this.sql = this.statements(index.column);
      await index.open();
      this.index = index;
    } finally {
      await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`sextant:collection:${this.collection}`]).catch(() => undefined);
      await runner.release();
    }
  }

  /** Whether pgvector is there, or can be made so (`CREATE EXTENSION` needs the right to). */
  private async pgvector(query: (text: string) => Promise<unknown>): Promise<boolean> {
    const installed = (await query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`)) as unknown[];
    if (installed.length > 0) return true;
    const available = (await query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`)) as unknown[];
    if (available.length === 0) return false;
    try {
      await query('CREATE EXTENSION IF NOT EXISTS vector');
      return true;
    } catch (error) {
      this.log.warn(`pgvector is available but could not be created (${(error as Error).message})`);
      return false;
    }
  }

  /** The table's statements: the record's writes, counts and reads of rows by key. */
  private statements({ keyed, type }: VectorIndex['column']): ChunkStore['sql'] {
    const t = this.table;
    const c = this.collection;
    return {
      delete: sql(
        `chunks.${c}.delete`,
        `DELETE FROM ${t} WHERE repository_id = $1 AND path = ANY($2::text[]) ${keyed ? 'RETURNING key::text AS key' : ''}`,
      ),
      insert: sql(
        `chunks.${c}.insert`,
        `INSERT INTO ${t} (repository_id, commit, path, ordinal, start_line, end_line, language, symbol, content, lexemes, embedding)
         SELECT $1, $2, p, o, s, e, l, sy, ct, lx::tsvector, em::${type.replace(/\(.*$/, '')}
         FROM unnest($3::text[], $4::int[], $5::int[], $6::int[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
           AS u(p, o, s, e, l, sy, ct, lx, em) ${keyed ? 'RETURNING key::text AS key, path, ordinal' : ''}`,
      ),
      indexed: sql(
        `chunks.${c}.indexed`,
        `INSERT INTO "vector_search"."indexed" (repository_id, collection, commit, updated_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (repository_id, collection) DO UPDATE SET commit = excluded.commit, updated_at = now()`,
      ),
      purge: sql(`chunks.${c}.purge`, `DELETE FROM ${t} WHERE repository_id = ANY($1::text[])`),
      purgeIndexed: sql(`chunks.${c}.purge-indexed`, `DELETE FROM "vector_search"."indexed" WHERE repository_id = ANY($1::text[])`),
      // At most $6 chunks per name, each found by its index (a name carried by more is dropped as ambiguous, so
      // more are never needed): `process` of `process.nextTick` names thousands of chunks in a large index, and
      // gathering and sorting them all took a hybrid search over 200k chunks from 8 to 150 ms.
      definitions: sql(
        `chunks.${c}.definitions`,
        `SELECT * FROM (
           SELECT named.*, 2::float8 AS score FROM unnest($4::text[]) AS n(name)
             CROSS JOIN LATERAL (SELECT ${COLUMNS} FROM ${t} WHERE symbol = n.name AND ${FILTER} LIMIT $6) named
           UNION ALL
           SELECT named.*, 1::float8 AS score FROM unnest($5::text[]) AS n(name)
             CROSS JOIN LATERAL (
               SELECT ${COLUMNS} FROM ${t} WHERE ${LAST_NAME} = n.name AND symbol <> ALL($4::text[]) AND ${FILTER} LIMIT $6) named
         ) found ORDER BY score DESC, path, ordinal, "repositoryId" LIMIT $1`,
      ),
      hydrate: sql(`chunks.${c}.hydrate`, `SELECT ${COLUMNS}, key::text AS key FROM ${t} WHERE key = ANY($1::bigint[]) AND ${FILTER}`),
      repositories: sql(`chunks.${c}.repositories`, `SELECT repository_id AS id FROM "vector_search"."indexed" WHERE collection = $1`),
    };
  }

  /** The table as a vector index reads it. */
  private chunkTable(): ChunkTable {
    return {
      db: this.db,
      name: this.table,
      collection: this.collection,
      dimension: this.dimension,
      filter: FILTER,
      rowsOf: (keyed, filter) => this.rowsOf(keyed, filter),
      repositoriesOf: (filter) => this.repositoriesOf(filter),
    };
  }

  /**
   * Replaces the chunks of `files` (and removes `deleted`) for one
   * repository, whole files at a time in transactions of about WRITE_ROWS
   * chunks (a search never sees half a file; a large batch does not hold the
   * database — in embedded mode, the process — for seconds); records the
   * commit this collection reflects.
   */
  async replace(
    repository: RepositoryRef,
    commit: string | null,
    files: ReadonlyArray<{ path: string; chunks: readonly ChunkRow[] }>,
    deleted: readonly string[],
  ): Promise<void> {
    await this.open();
    let group: Array<{ path: string; chunks: readonly ChunkRow[] }> = [];
    let rows = 0;
    let gone = deleted;
    for (const file of files) {
      if (group.length > 0 && rows + file.chunks.length > WRITE_ROWS) {
        await this.write(repository, commit, group, gone);
        [group, rows, gone] = [[], 0, []];
      }
      group.push(file);
      rows += file.chunks.length;
    }
    if (group.length > 0 || gone.length > 0) await this.write(repository, commit, group, gone);
  }

  /** One transaction of `replace`, and the store's change to match (`VectorIndex.write`). */
  private async write(
    repository: RepositoryRef,
    commit: string | null,
    files: ReadonlyArray<{ path: string; chunks: readonly ChunkRow[] }>,
    deleted: readonly string[],
  ): Promise<void> {
    const paths = [...files.map((f) => f.path), ...deleted];
    const rows = files.flatMap((f) => f.chunks);
    const written = new Map(rows.map((r) => [`${r.path}\0${r.ordinal}`, r]));
    await this.index.write(repository, commit, (inside) =>
      this.db.transaction(async (m) => {
        const removed = paths.length > 0 ? (await this.db.run<{ key: string }>(this.sql.delete, [repository.id, paths], m)).rows : [];
        const inserted =
          rows.length === 0
            ? []
            : (
                await this.db.run<{ key: string; path: string; ordinal: number }>(
                  this.sql.insert,
                  [
                    repository.id,
                    commit,
                    rows.map((r) => r.path),
                    rows.map((r) => r.ordinal),
                    rows.map((r) => r.startLine),
                    rows.map((r) => r.endLine),
                    rows.map((r) => r.language),
                    rows.map((r) => r.symbol),
                    rows.map((r) => r.content),
                    rows.map((r) => r.lexemes),
                    rows.map((r) => this.index.literal(r.embedding)),
                  ],
                  m,
                )
              ).rows;
        const added = inserted.map((r) => ({ key: BigInt(r.key), row: written.get(`${r.path}\0${r.ordinal}`)! }));
        await this.db.run(this.sql.indexed, [repository.id, this.collection, commit], m);
        await inside(added, { paths, rows }, { run: (statement, values) => this.db.run(statement, values, m) });
        return { removed: removed.map((r) => BigInt(r.key)), added };
      }),
    );
  }

  /** The best chunks for the query's words (the code tokenizer's), BM25-style, as the store ranks them. */
  async lexical(words: readonly string[], filter: SearchFilter): Promise<Hit[]> {
    await this.open();
    return this.index.lexical(words, filter, this.options);
  }

  /**
   * The store's lists fused by reciprocal rank (`weights`: lexical, dense, files), best first, each hit's score its
   * fused one, with the weights of the lists fused (a store without a files list leaves it out).
   */
  async hybrid(
    words: readonly string[],
    vector: Float32Array,
    filter: SearchFilter,
    weights: HybridWeights,
  ): Promise<{ hits: Hit[]; weights: number[] }> {
    await this.open();
    return this.index.hybrid(words, vector, filter, weights, this.options);
  }

  /**
   * The chunks of definitions a query names (`codeNames`): symbols equal to an `exact` name first, then those whose
   * last name is one of `last` (and not an exact one); in path order; at most `perName` for each name.
   */
  async definitions(names: { exact: readonly string[]; last: readonly string[] }, filter: SearchFilter, perName: number): Promise<Hit[]> {
    if (names.exact.length === 0 && names.last.length === 0) return [];
    await this.open();
    const { rows } = await this.db.run<Hit>(this.sql.definitions, [
      filter.limit,
      filter.repositoryIds,
      filter.pathPrefix,
      names.exact,
      names.last,
      perName,
    ]);
    return rows.map((r) => ({ ...r, score: Number(r.score) }));
  }

  /** The nearest chunks by cosine similarity, as the store finds them. */
  async dense(vector: Float32Array, filter: SearchFilter): Promise<Hit[]> {
    await this.open();
    return this.index.dense(vector, filter, this.options);
  }

  /** The filter's repositories, or every repository indexed into this collection. */
  private async repositoriesOf(filter: SearchFilter): Promise<readonly string[]> {
    return filter.repositoryIds ?? (await this.db.run<{ id: string }>(this.sql.repositories, [this.collection])).rows.map((r) => r.id);
  }

  /** The live rows of these keys that pass the filter, by key (a key read twice is one row). */
  private async rowsOf(keyed: ReadonlyArray<{ key: bigint }>, filter: SearchFilter): Promise<Map<string, Hit>> {
    if (keyed.length === 0) return new Map();
    const { rows } = await this.db.run<Hit & { key: string }>(this.sql.hydrate, [
      [...new Set(keyed.map((n) => String(n.key)))],
      filter.repositoryIds,
      filter.pathPrefix,
    ]);
    return new Map(rows.map(({ key, ...hit }) => [key, hit]));
  }

  /** Saves what the store keeps in files (at shutdown). */
  async close(): Promise<void> {
    await this.index?.close();
  }

  /** Drops what the collection holds of repositories the registry no longer knows. */
  async purge(repositoryIds: readonly string[]): Promise<void> {
    if (repositoryIds.length === 0) return;
    await this.open();
    await this.db.transaction(async (m) => {
      await this.db.run(this.sql.purge, [repositoryIds], m);
      await this.db.run(this.sql.purgeIndexed, [repositoryIds], m);
    });
    await this.index.purge(repositoryIds);
  }
}

/** Which collection each repository was indexed into, and at which commit. */
export async function indexedCollections(
  db: Database,
  repositoryIds: readonly string[],
): Promise<Map<string, Array<{ collection: string; commit: string | null }>>> {
  const { rows } = await db.run<{ repositoryId: string; collection: string; commit: string | null }>(INDEXED, [repositoryIds]);
  const out = new Map<string, Array<{ collection: string; commit: string | null }>>();
  for (const r of rows) out.set(r.repositoryId, [...(out.get(r.repositoryId) ?? []), { collection: r.collection, commit: r.commit }]);
  return out;
}

const INDEXED = sql(
  'indexed.of',
  `SELECT repository_id AS "repositoryId", collection, commit FROM "vector_search"."indexed" WHERE repository_id = ANY($1::text[])`,
);
