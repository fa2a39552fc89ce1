import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { Database, sql, type Statement } from '@sextant/persistence';
import type { Embedder } from '../embedding/embedder.js';
import { quote } from '../lexical/lexemes.js';
import { idf, termCounts } from '../lexical/postings.js';
import { reciprocalRank, RRF_K } from '../search/fusion.js';
import type { Hit } from '../search/hit.js';
import { lazy } from '../lazy.js';
import { LocalIndex } from './local-index.js';
import { QdrantIndex, type QdrantHit } from './qdrant-index.js';

/** A chunk as the vectors stage writes it. */
export interface ChunkRow {
  path: string;
  ordinal: number;
  startLine: number;
  endLine: number;
  language: string | null;
  symbol: string | null;
  content: string;
  /** `tsvector` input (see `lexemes`). */
  lexemes: string;
  embedding: Float32Array;
}

export interface SearchFilter {
  /** Repository ids; null: every repository of the collection. */
  repositoryIds: readonly string[] | null;
  pathPrefix: string | null;
  limit: number;
}

/** The repository of a point an older indexer wrote without a `repo` payload (Qdrant): shown as `(unknown)`. */
export const UNKNOWN_REPOSITORY = '(unknown)';

/**
 * How dense vectors are kept: pgvector (HNSW, cosine) in the table; `real[]`
 * scored by an exact scan where the server has no pgvector; `local`: in
 * this process's indexes (`LocalIndex`: HNSW for vectors, postings for BM25);
 * or `qdrant`: in a Qdrant collection (dense and sparse vectors). With
 * `local` and `qdrant` each vector and its lexemes are also kept in the
 * table (`bytea`, `tsvector`), and a row's `key` names it in the index: the
 * table says which chunks are live.
 */
export type VectorColumn = 'pgvector' | 'array' | 'local' | 'qdrant';

/** Where a new collection keeps its vectors (VECTOR_STORE): `local` files under `dir`, `postgres` (pgvector, else exact scans), or Qdrant. */
export type VectorStorePreference =
  { kind: 'local'; dir: string } | { kind: 'postgres' } | { kind: 'qdrant'; url: string; apiKey: string | undefined; timeoutMs: number };

/** A repository as the store is told of it: its id, and its name (Qdrant's `repo` payload). */
/** The weights of hybrid search's lists in the fusion (files: whole files by BM25, where the store has them). */
export interface HybridWeights {
  lexical: number;
  dense: number;
  files: number;
}

export interface RepositoryRef {
  id: string;
  name: string;
}

/** Documents per collection counted at most this often (BM25's N). */
const COUNT_TTL_MS = 30_000;
/** A term's document frequency is counted up to this; past it, a term is common whatever its exact count. */
const DF_CAP = 20_000;
/** Query words used at most (the rarest first). */
const MAX_TERMS = 16;
/** In Postgres, the lexical candidates are the chunks holding the rarest query words, up to about this many. */
const CANDIDATE_BUDGET = 5_000;
/** With a path filter, the local index is asked for this many times the limit (at least PREFIX_MIN, at most PREFIX_MAX)… */
const PREFIX_FACTOR = 8;
const PREFIX_MIN = 400;
const PREFIX_MAX = 4_096;
/** …and when that leaves too few, the filtered chunks are scored exactly if there are at most this many. */
const EXACT_MAX = 50_000;
/** Chunks written per transaction, about (whole files). */
const WRITE_ROWS = 500;
/** Files the file-level list of hybrid search ranks (each as one chunk). */
const FILE_DEPTH = 50;

const COLUMNS = `repository_id AS "repositoryId", path, ordinal, start_line AS "startLine", end_line AS "endLine", language, symbol, commit, content`;

/**
 * One collection's chunks in Postgres (schema `vector_search`, table
 * `chunks_<collection>`, made on first use): text, lexemes (`tsvector`,
 * GIN) for the lexical side, and a dense vector (pgvector HNSW, or an exact
 * scan over `real[]`). A batch replaces whole files in one transaction, so
 * a search never sees half a file.
 */
export class ChunkStore {
  private readonly log = new Logger('ChunkStore');
  private readonly table: string;
  private sql!: Record<string, Statement>;
  private counted: { n: number; at: number } | undefined;
  private column: VectorColumn | undefined;
  private local: LocalIndex | undefined;
  private qdrant: QdrantIndex | undefined;

  /** The collection of the embedder's vectors: `<model>_<dimension>`, so two models never share one. */
  readonly collection: string;
  private readonly model: string;
  private readonly dimension: number;

  constructor(
    private readonly db: Database,
    embedder: Pick<Embedder, 'model' | 'dimension'>,
    private readonly store: VectorStorePreference = { kind: 'postgres' },
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
  get vectors(): VectorColumn | undefined {
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
        vectors: VectorColumn;
      }>;
      let column = known[0]?.vectors;
      if (!column) {
        if (this.store.kind !== 'postgres') column = this.store.kind;
        else column = (await this.pgvector(runner.query.bind(runner))) ? 'pgvector' : 'array';
        const type = column === 'pgvector' ? `vector(${this.dimension})` : keyed(column) ? 'bytea' : 'real[]';
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
            embedding ${type} NOT NULL,
            ${keyed(column) ? 'key bigint GENERATED ALWAYS AS IDENTITY UNIQUE,' : ''}
            PRIMARY KEY (repository_id, path, ordinal)
          )`);
        await runner.query(`CREATE INDEX IF NOT EXISTS "chunks_${this.collection}_lexemes" ON ${this.table} USING gin (lexemes)`);
        if (column === 'pgvector') {
          await runner.query(
            `CREATE INDEX IF NOT EXISTS "chunks_${this.collection}_embedding" ON ${this.table} USING hnsw (embedding vector_cosine_ops)`,
          );
        }
        await runner.query(
          `INSERT INTO "vector_search"."collections" (name, model, dimension, vectors) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING`,
          [this.collection, this.model, this.dimension, column],
        );
      }
      if (keyed(column) && this.store.kind !== column) {
        throw new Error(
          `collection ${this.collection} keeps its vectors in ${column === 'local' ? 'local index files' : 'Qdrant'}, which this server does not use (VECTOR_STORE=${this.store.kind}): set VECTOR_STORE=${column}${column === 'local' ? ' with the same data directory' : ' and QDRANT_URL'}, or drop the collection and re-index`,
        );
      }
      if (!keyed(column) && this.store.kind !== 'postgres') {
        this.log.warn(
          `collection ${this.collection} keeps its vectors in Postgres (${column}), as when it was made; VECTOR_STORE=${this.store.kind} applies to new collections`,
        );
      }
      if (column === 'array') {
        this.log.warn(
          `collection ${this.collection}: this Postgres has no pgvector, so the dense side of search is an exact scan (fine for small indexes; install pgvector or set QDRANT_URL for large ones)`,
        );
      }
      this.column = column;
      this.sql = this.statements(column);
      if (column === 'local') this.local = this.localIndex((this.store as { dir: string }).dir);
      if (column === 'qdrant') this.qdrant = await this.qdrantIndex(this.store as Extract<VectorStorePreference, { kind: 'qdrant' }>);
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

  private statements(column: VectorColumn): Record<string, Statement> {
    const t = this.table;
    const c = this.collection;
    const filter = `($2::text[] IS NULL OR repository_id = ANY($2::text[])) AND ($3::text IS NULL OR starts_with(path, $3))`;
    const similarity = column === 'pgvector' ? `1 - (embedding <=> $1::vector)` : `"vector_search"."dot"(embedding, $1::real[])`;
    const returning = keyed(column) ? 'RETURNING key::text AS key, path, ordinal' : '';
    const order = column === 'pgvector' ? `embedding <=> $1::vector` : `score DESC`;
    return {
      delete: sql(
        `chunks.${c}.delete`,
        `DELETE FROM ${t} WHERE repository_id = $1 AND path = ANY($2::text[]) ${keyed(column) ? 'RETURNING key::text AS key' : ''}`,
      ),
      insert: sql(
        `chunks.${c}.insert`,
        `INSERT INTO ${t} (repository_id, commit, path, ordinal, start_line, end_line, language, symbol, content, lexemes, embedding)
         SELECT $1, $2, p, o, s, e, l, sy, ct, lx::tsvector, em::${column === 'pgvector' ? 'vector' : keyed(column) ? 'bytea' : 'real[]'}
         FROM unnest($3::text[], $4::int[], $5::int[], $6::int[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
           AS u(p, o, s, e, l, sy, ct, lx, em) ${returning}`,
      ),
      indexed: sql(
        `chunks.${c}.indexed`,
        `INSERT INTO "vector_search"."indexed" (repository_id, collection, commit, updated_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (repository_id, collection) DO UPDATE SET commit = excluded.commit, updated_at = now()`,
      ),
      count: sql(`chunks.${c}.count`, `SELECT count(*)::int AS n FROM ${t}`),
      df: sql(
        `chunks.${c}.df`,
        `SELECT t AS term, (SELECT count(*) FROM (SELECT 1 FROM ${t} WHERE lexemes @@ t::tsquery LIMIT $2) x)::int AS df
         FROM unnest($1::text[]) AS t`,
      ),
      lexical: sql(
        `chunks.${c}.lexical`,
        `SELECT ${COLUMNS},
           (SELECT sum(w * ts_rank('{0.1,0.2,0.4,1.0}', lexemes, q::tsquery, 1)) FROM unnest($4::text[], $5::float8[]) AS u(q, w)) AS score
         FROM ${t} WHERE lexemes @@ $1::tsquery AND ${filter} ORDER BY score DESC, path, ordinal LIMIT $6`,
      ),
      dense: sql(`chunks.${c}.dense`, `SELECT ${COLUMNS}, ${similarity} AS score FROM ${t} WHERE ${filter} ORDER BY ${order} LIMIT $4`),
      purge: sql(`chunks.${c}.purge`, `DELETE FROM ${t} WHERE repository_id = ANY($1::text[])`),
      purgeIndexed: sql(`chunks.${c}.purge-indexed`, `DELETE FROM "vector_search"."indexed" WHERE repository_id = ANY($1::text[])`),
      setSearch: sql(`chunks.${c}.hnsw`, `SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', $2, true)`),
      hydrate: sql(`chunks.${c}.hydrate`, `SELECT ${COLUMNS}, key::text AS key FROM ${t} WHERE key = ANY($1::bigint[]) AND ${filter}`),
      filtered: sql(`chunks.${c}.filtered`, `SELECT key::text AS key, embedding FROM ${t} WHERE true AND ${filter} LIMIT $1::int`),
      tally: sql(
        `chunks.${c}.tally`,
        `SELECT count(*)::int AS count, coalesce(sum(key), 0)::text AS sum FROM ${t} WHERE repository_id = $1`,
      ),
      page: sql(
        `chunks.${c}.page`,
        `SELECT key::text AS key, embedding, path, lexemes::text AS lexemes FROM ${t} WHERE repository_id = $1 AND key > $2::bigint ORDER BY key LIMIT $3`,
      ),
      repositories: sql(`chunks.${c}.repositories`, `SELECT repository_id AS id FROM "vector_search"."indexed" WHERE collection = $1`),
      any: sql(`chunks.${c}.any`, `SELECT EXISTS (SELECT 1 FROM ${t}) AS any`),
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
    this.counted = undefined;
  }

  /**
   * One transaction of `replace`, with the local index or Qdrant. Qdrant gets
   * the new points inside the transaction, before the rows that make them
   * live commit, and loses the old ones after: a search sees whole files.
   */
  private async write(
    { id: repositoryId, name }: RepositoryRef,
    commit: string | null,
    files: ReadonlyArray<{ path: string; chunks: readonly ChunkRow[] }>,
    deleted: readonly string[],
  ): Promise<void> {
    const paths = [...files.map((f) => f.path), ...deleted];
    const rows = files.flatMap((f) => f.chunks);
    const written = new Map(rows.map((r) => [`${r.path}\0${r.ordinal}`, r]));
    /** The transaction: the keys of the rows it removed, and each row it added with its new key. */
    const change = () =>
      this.db.transaction(async (m) => {
        const removed = paths.length > 0 ? (await this.db.run<{ key: string }>(this.sql.delete!, [repositoryId, paths], m)).rows : [];
        const inserted =
          rows.length === 0
            ? []
            : (
                await this.db.run<{ key: string; path: string; ordinal: number }>(
                  this.sql.insert!,
                  [
                    repositoryId,
                    commit,
                    rows.map((r) => r.path),
                    rows.map((r) => r.ordinal),
                    rows.map((r) => r.startLine),
                    rows.map((r) => r.endLine),
                    rows.map((r) => r.language),
                    rows.map((r) => r.symbol),
                    rows.map((r) => r.content),
                    rows.map((r) => r.lexemes),
                    rows.map((r) => vectorLiteral(r.embedding, this.column!)),
                  ],
                  m,
                )
              ).rows;
        const added = inserted.map((r) => ({ key: BigInt(r.key), row: written.get(`${r.path}\0${r.ordinal}`)! }));
        await this.db.run(this.sql.indexed!, [repositoryId, this.collection, commit], m);
        if (this.qdrant) {
          await this.qdrant.upsert(
            added.map(({ key, row }) => ({
              ...row,
              key,
              vector: row.embedding,
              terms: termCounts(row.lexemes),
              repositoryId,
              repo: name,
              commit,
            })),
          );
        }
        return { removed: removed.map((r) => BigInt(r.key)), added };
      });
    if (this.local) {
      await this.local.write(repositoryId, async () => {
        const { removed, added } = await change();
        return {
          removed,
          added: added.map(({ key, row }) => ({ key, vector: row.embedding, path: row.path, terms: termCounts(row.lexemes) })),
        };
      });
    } else if (this.qdrant) {
      const { removed } = await change();
      // Points of rows gone are dead already (a search keeps only live rows); failing to delete them leaves garbage, not errors.
      await this.qdrant.delete(removed).catch((error: Error) => this.log.warn(error.message));
    } else await change();
  }

  /** Chunks in the collection (cached a few seconds): BM25's N. */
  private async size(): Promise<number> {
    if (this.counted && Date.now() - this.counted.at < COUNT_TTL_MS) return this.counted.n;
    const n = (await this.db.run<{ n: number }>(this.sql.count!, [])).rows[0]!.n;
    this.counted = { n, at: Date.now() };
    return n;
  }

  /**
   * The best chunks for the query's words (the code tokenizer's), BM25-style:
   * each word weighted by its inverse document frequency, words no chunk
   * holds dropped, at most MAX_TERMS (the rarest). Local indexes rank by BM25
   * over their postings; in Postgres the candidates are the chunks holding
   * the rarest words (about CANDIDATE_BUDGET of them), ranked on every word
   * by weight × ts_rank (lexemes weighted A in the header, D in the body).
   */
  async lexical(words: readonly string[], filter: SearchFilter): Promise<Hit[]> {
    await this.open();
    if (words.length === 0) return [];
    if (this.qdrant) return this.fromQdrant(await this.qdrant.lexical(words.slice(0, MAX_TERMS), filter, this.depth(filter)), filter);
    if (this.local) {
      const found = await this.local.lexical(await this.repositoriesOf(filter), words, filter.limit, filter.pathPrefix, MAX_TERMS);
      return this.hydrate(found, filter);
    }
    const terms = words.slice(0, MAX_TERMS * 2).map(quote);
    const [{ rows: counted }, n] = await Promise.all([
      this.db.run<{ term: string; df: number }>(this.sql.df!, [terms, DF_CAP]),
      this.size(),
    ]);
    const df = new Map(counted.map((r) => [r.term, r.df]));
    const known = terms
      .map((term) => ({ term, df: df.get(term) ?? 0 }))
      .filter((t) => t.df > 0)
      .sort((a, b) => a.df - b.df)
      .slice(0, MAX_TERMS);
    if (known.length === 0) return [];
    const candidates: string[] = [];
    let covered = 0;
    for (const t of known) {
      if (candidates.length > 0 && covered + t.df > CANDIDATE_BUDGET) break;
      candidates.push(t.term);
      covered += t.df;
    }
    const { rows } = await this.db.run<Hit>(this.sql.lexical!, [
      candidates.join(' | '),
      filter.repositoryIds,
      filter.pathPrefix,
      known.map((t) => t.term),
      known.map((t) => idf(n, t.df)),
      filter.limit,
    ]);
    return rows.map(numeric);
  }

  /**
   * Both sides fused by reciprocal rank (`weights`: lexical, dense, files), best first, each hit's score its fused
   * one, with the weights of the lists fused: one Query API call in Qdrant (prefetch + rrf), else the lists here. The
   * `local` store adds a third list, whole files by BM25 (each as its best chunk: `LocalIndex.files`); the others fuse
   * chunks only (their `weights` leave files out).
   */
  async hybrid(
    words: readonly string[],
    vector: Float32Array,
    filter: SearchFilter,
    weights: HybridWeights,
  ): Promise<{ hits: Hit[]; weights: number[] }> {
    await this.open();
    const chunksOnly = [weights.lexical, weights.dense];
    if (this.qdrant && words.length > 0) {
      // Qdrant's rrf: 1 / ((p + 1) / w + k - 1), so k = RRF_K + 1 scores a weight-1 list as `reciprocalRank` does.
      const rrf = { k: RRF_K + 1, weights: [weights.lexical, weights.dense] as const };
      const found = await this.qdrant.hybrid(words.slice(0, MAX_TERMS), vector, filter, this.depth(filter), rrf);
      return { hits: await this.fromQdrant(found, filter), weights: chunksOnly };
    }
    if (this.local && words.length > 0 && filter.pathPrefix === null) {
      // The local searches, then one read of their rows (not one per list): the rows are what a search waits on.
      const ids = await this.repositoriesOf(filter);
      const lexical = await this.local.lexical(ids, words, filter.limit, null, MAX_TERMS);
      const nearest = await this.local.nearest(ids, vector, filter.limit);
      const files = weights.files > 0 ? await this.local.files(ids, words, FILE_DEPTH, null, MAX_TERMS) : [];
      const rows = await this.rowsOf([...lexical, ...nearest, ...files], filter);
      const all = [weights.lexical, weights.dense, weights.files];
      return { hits: reciprocalRank([placed(lexical, rows), placed(nearest, rows), placed(files, rows)], all), weights: all };
    }
    const lexical = await this.lexical(words, filter);
    return { hits: reciprocalRank([lexical, await this.dense(vector, filter)], chunksOnly), weights: chunksOnly };
  }

  /** How many points Qdrant is asked for: more when the path prefix is not a folder (its folder is filtered there, the rest here). */
  private depth(filter: SearchFilter): number {
    return filter.pathPrefix === null || filter.pathPrefix.endsWith('/')
      ? filter.limit
      : Math.min(PREFIX_MAX, Math.max(PREFIX_MIN, filter.limit * PREFIX_FACTOR));
  }

  /**
   * Qdrant's points as hits, in its order: ours are the live rows of their
   * keys (points of rows replaced since are dropped); points an older indexer
   * wrote without `repo` come from their payload, as UNKNOWN_REPOSITORY.
   */
  private async fromQdrant(points: readonly QdrantHit[], filter: SearchFilter): Promise<Hit[]> {
    const ours = points.filter((p): p is QdrantHit & { key: bigint } => p.key !== null);
    const rows = await this.hydrate(ours, filter);
    const legacy = points.filter((p) => p.key === null).map((p) => legacyHit(p));
    return [...rows, ...legacy.filter((h) => filter.pathPrefix === null || h.path.startsWith(filter.pathPrefix))]
      .sort(byScore)
      .slice(0, filter.limit);
  }

  /** The filter's repositories, or every repository indexed into this collection. */
  private async repositoriesOf(filter: SearchFilter): Promise<readonly string[]> {
    return filter.repositoryIds ?? (await this.db.run<{ id: string }>(this.sql.repositories!, [this.collection])).rows.map((r) => r.id);
  }

  /** The nearest chunks by cosine similarity: approximate (HNSW, pgvector's or local), or exact over `real[]`. */
  async dense(vector: Float32Array, filter: SearchFilter): Promise<Hit[]> {
    await this.open();
    if (this.qdrant) return this.fromQdrant(await this.qdrant.dense(vector, filter, this.depth(filter)), filter);
    if (this.local) return this.localDense(this.local, vector, filter);
    const values = [vectorLiteral(vector, this.column!), filter.repositoryIds, filter.pathPrefix, filter.limit];
    if (this.column !== 'pgvector') return (await this.db.run<Hit>(this.sql.dense!, values)).rows.map(numeric);
    // The HNSW search looks at enough candidates for the limit, and keeps looking past rows a filter drops (pgvector 0.8).
    const filtered = filter.repositoryIds !== null || filter.pathPrefix !== null;
    return this.db.transaction(async (m) => {
      await this.db.run(this.sql.setSearch!, [String(Math.max(40, filter.limit * 2)), filtered ? 'relaxed_order' : 'off'], m);
      return (await this.db.run<Hit>(this.sql.dense!, values, m)).rows.map(numeric);
    });
  }

  /**
   * The local indexes of the filter's repositories (each searched, merged),
   * then the rows of the keys found. A path filter asks for more keys; when
   * those still leave fewer than the limit, the filtered chunks are scored
   * exactly (when there are at most EXACT_MAX of them).
   */
  private async localDense(local: LocalIndex, vector: Float32Array, filter: SearchFilter): Promise<Hit[]> {
    const ids = await this.repositoriesOf(filter);
    const k = filter.pathPrefix === null ? filter.limit : Math.min(PREFIX_MAX, Math.max(PREFIX_MIN, filter.limit * PREFIX_FACTOR));
    let nearest = await local.nearest(ids, vector, k);
    let hits = await this.hydrate(nearest, filter);
    if (filter.pathPrefix !== null && hits.length < filter.limit && nearest.length >= k) {
      const { rows } = await this.db.run<{ key: string; embedding: Buffer }>(this.sql.filtered!, [
        EXACT_MAX + 1,
        filter.repositoryIds,
        filter.pathPrefix,
      ]);
      if (rows.length <= EXACT_MAX) {
        nearest = rows
          .map((r) => ({ key: BigInt(r.key), score: dot(floats(r.embedding), vector) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, filter.limit);
        hits = await this.hydrate(nearest, filter);
      }
    }
    return hits.slice(0, filter.limit);
  }

  /** The rows of `nearest` that pass the filter, in its order, with its scores. */
  private async hydrate(nearest: ReadonlyArray<{ key: bigint; score: number }>, filter: SearchFilter): Promise<Hit[]> {
    return placed(nearest, await this.rowsOf(nearest, filter));
  }

  /** The live rows of these keys that pass the filter, by key (a key read twice is one row). */
  private async rowsOf(keyed: ReadonlyArray<{ key: bigint }>, filter: SearchFilter): Promise<Map<string, Hit>> {
    if (keyed.length === 0) return new Map();
    const { rows } = await this.db.run<Hit & { key: string }>(this.sql.hydrate!, [
      [...new Set(keyed.map((n) => String(n.key)))],
      filter.repositoryIds,
      filter.pathPrefix,
    ]);
    return new Map(rows.map(({ key, ...hit }) => [key, hit]));
  }

  /** The local indexes, backed by this table. */
  private localIndex(dir: string): LocalIndex {
    const local = new LocalIndex({
      dir: join(dir, this.collection),
      dimension: this.dimension,
      source: {
        tally: async (repositoryId) => {
          const row = (await this.db.run<{ count: number; sum: string }>(this.sql.tally!, [repositoryId])).rows[0]!;
          return { count: row.count, sum: BigInt(row.sum) };
        },
        page: async (repositoryId, after, limit) =>
          (
            await this.db.run<{ key: string; embedding: Buffer; path: string; lexemes: string }>(this.sql.page!, [
              repositoryId,
              String(after),
              limit,
            ])
          ).rows.map((r) => ({ key: BigInt(r.key), vector: floats(r.embedding), path: r.path, terms: termCounts(r.lexemes) })),
      },
    });
    // Loaded (or rebuilt) ahead of the first search, in the background.
    void this.db
      .run<{ id: string }>(this.sql.repositories!, [this.collection])
      .then(({ rows }) => local.warm(rows.map((r) => r.id)))
      .catch((error: Error) => this.log.warn(`could not load the local search indexes ahead of time (${error.message})`));
    return local;
  }

  /** The Qdrant collection, made if missing; a new one while the table holds chunks means Qdrant lost them. */
  private async qdrantIndex(store: Extract<VectorStorePreference, { kind: 'qdrant' }>): Promise<QdrantIndex> {
    const qdrant = new QdrantIndex({ ...store, collection: this.collection, dimension: this.dimension });
    if ((await qdrant.open()) && (await this.db.run<{ any: boolean }>(this.sql.any!, [])).rows[0]!.any) {
      this.log.error(
        `Qdrant had no collection ${this.collection} though Postgres holds its chunks (a new or wiped Qdrant): re-index every repository (index_repo {force: true}) to fill it`,
      );
    }
    return qdrant;
  }

  /** Saves the local indexes (at shutdown). */
  async close(): Promise<void> {
    await this.local?.close();
  }

  /** Drops what the collection holds of repositories the registry no longer knows. */
  async purge(repositoryIds: readonly string[]): Promise<void> {
    if (repositoryIds.length === 0) return;
    await this.open();
    await this.db.transaction(async (m) => {
      await this.db.run(this.sql.purge!, [repositoryIds], m);
      await this.db.run(this.sql.purgeIndexed!, [repositoryIds], m);
    });
    await this.local?.drop(repositoryIds);
    await this.qdrant?.deleteRepositories(repositoryIds);
    this.counted = undefined;
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

/** A vector as pgvector (`[…]`), Postgres array (`{…}`) or `bytea` (`\\x…`, float32 little-endian) input text. */
function vectorLiteral(vector: Float32Array, column: VectorColumn): string {
  if (column === 'local') return `\\x${Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('hex')}`;
  const body = Array.from(vector, (v) => (Number.isFinite(v) ? Number(v.toPrecision(7)) : 0)).join(',');
  return column === 'pgvector' ? `[${body}]` : `{${body}}`;
}

/** Best score first; ties in path and chunk order. */
function byScore(a: Hit, b: Hit): number {
  return b.score - a.score || a.path.localeCompare(b.path) || a.ordinal - b.ordinal;
}

/** The found keys' rows (keys without one dropped), with the found scores, best first. */
function placed(found: ReadonlyArray<{ key: bigint; score: number }>, rows: ReadonlyMap<string, Hit>): Hit[] {
  return found
    .flatMap((n) => {
      const row = rows.get(String(n.key));
      return row ? [{ ...row, score: n.score }] : [];
    })
    .sort(byScore);
}

function numeric(row: Hit): Hit {
  return { ...row, score: Number(row.score) };
}

/** A `bytea` of float32 values (little-endian) as a vector. */
function floats(bytes: Buffer): Float32Array {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Whether a collection's vectors live in an index outside the table, a row's `key` naming its entry there. */
function keyed(column: VectorColumn): column is 'local' | 'qdrant' {
  return column === 'local' || column === 'qdrant';
}

/** A point an older indexer wrote (payload `repo_root`, no `repo`), as a hit from its payload. */
function legacyHit({ score, payload }: QdrantHit): Hit {
  const text = (...names: string[]) => names.map((n) => payload[n]).find((v): v is string => typeof v === 'string') ?? null;
  const line = (...names: string[]) => names.map((n) => payload[n]).find((v): v is number => typeof v === 'number');
  const startLine = line('startLine', 'start_line') ?? 1;
  return {
    repositoryId: UNKNOWN_REPOSITORY,
    path: text('path', 'relativePath', 'file_path') ?? '',
    ordinal: startLine,
    startLine,
    endLine: line('endLine', 'end_line') ?? startLine,
    language: text('language'),
    symbol: text('symbol'),
    commit: null,
    content: text('content', 'text', 'code', 'snippet') ?? '',
    score,
  };
}
