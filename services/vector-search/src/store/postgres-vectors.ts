/**
 * The Postgres stores: the chunk table searches itself. Dense vectors in a pgvector column (HNSW, cosine), or in a
 * `real[]` column scored by an exact scan where the server has no pgvector; words by BM25 over an inverted index in
 * tables beside the chunks (`TermTables`), chunks and, in hybrid search, whole files as the local store ranks them.
 */
import { sql, type Statement } from '@sextant/persistence';
import { reciprocalRank } from '../search/fusion.js';
import type { Hit } from '../search/hit.js';
import { TermTables } from './postgres-terms.js';
import {
  numeric,
  type ChunkTable,
  type HybridWeights,
  type RepositoryRef,
  type SearchFilter,
  type SearchOptions,
  type TableChange,
  fuseChunks,
  type VectorIndex,
} from './vector-index.js';

const COLUMNS = `repository_id AS "repositoryId", path, ordinal, start_line AS "startLine", end_line AS "endLine", language, symbol, commit, content`;

export class PostgresVectors implements VectorIndex {
  readonly column: { type: string; keyed: boolean; ddl: string[] };
  private sql!: Record<'dense' | 'setSearch', Statement>;
  private readonly terms: TermTables;

  /** `pgvector`: a `vector(<dimension>)` column and its HNSW index; `array`: `real[]`, exact scans. */
  constructor(
    private readonly table: ChunkTable,
    private readonly kind: 'pgvector' | 'array',
  ) {
    const hnsw = `CREATE INDEX IF NOT EXISTS "chunks_${table.collection}_embedding" ON ${table.name} USING hnsw (embedding vector_cosine_ops)`;
    this.column =
      kind === 'pgvector' ? { type: `vector(${table.dimension})`, keyed: false, ddl: [hnsw] } : { type: 'real[]', keyed: false, ddl: [] };
    this.terms = new TermTables(table);
  }

  literal(vector: Float32Array): string {
    const body = Array.from(vector, (v) => (Number.isFinite(v) ? Number(v.toPrecision(7)) : 0)).join(',');
    return this.kind === 'pgvector' ? `[${body}]` : `{${body}}`;
  }

  async open(): Promise<void> {
    const { name: t, collection: c, filter } = this.table;
    const similarity = this.kind === 'pgvector' ? `1 - (embedding <=> $1::vector)` : `"vector_search"."dot"(embedding, $1::real[])`;
    const order = this.kind === 'pgvector' ? `embedding <=> $1::vector` : `score DESC`;
    this.sql = {
      dense: sql(`chunks.${c}.dense`, `SELECT ${COLUMNS}, ${similarity} AS score FROM ${t} WHERE ${filter} ORDER BY ${order} LIMIT $4`),
      setSearch: sql(`chunks.${c}.hnsw`, `SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', $2, true)`),
    };
    await this.terms.open();
  }

  /** `ChunkStore` writes the rows; the files they touch are counted again in the same transaction. */
  async write(repository: RepositoryRef, _commit: string | null, change: TableChange): Promise<void> {
    await change(async (_added, { paths, rows }, tx) => this.terms.recount(repository.id, paths, rows, tx));
  }

  /** BM25 over the chunks (`TermTables`). */
  async lexical(words: readonly string[], filter: SearchFilter, options: SearchOptions): Promise<Hit[]> {
    if (words.length === 0) return [];
    return this.terms.chunks(words, filter, options);
  }

  /** Approximate (pgvector's HNSW), or exact over `real[]`. */
  async dense(vector: Float32Array, filter: SearchFilter): Promise<Hit[]> {
    const { db } = this.table;
    const values = [this.literal(vector), filter.repositoryIds, filter.pathPrefix, filter.limit];
    if (this.kind !== 'pgvector') return (await db.run<Hit>(this.sql.dense, values)).rows.map(numeric);
    // The HNSW search looks at enough candidates for the limit, and keeps looking past rows a filter drops (pgvector 0.8).
    const filtered = filter.repositoryIds !== null || filter.pathPrefix !== null;
    return db.transaction(async (m) => {
      await db.run(this.sql.setSearch, [String(Math.max(40, filter.limit * 2)), filtered ? 'relaxed_order' : 'off'], m);
      return (await db.run<Hit>(this.sql.dense, values, m)).rows.map(numeric);
    });
  }

  /**
   * Lexical chunks, nearest chunks and, without a path filter, whole files by BM25 (each as its best chunk), fused by
   * reciprocal rank, as the local store's hybrid search.
   */
  async hybrid(
    words: readonly string[],
    vector: Float32Array,
    filter: SearchFilter,
    weights: HybridWeights,
    options: SearchOptions,
  ): Promise<{ hits: Hit[]; weights: number[] }> {
    if (words.length === 0 || filter.pathPrefix !== null || weights.files <= 0) {
      return fuseChunks(this, words, vector, filter, weights, options);
    }
    const [lexical, dense, files] = await Promise.all([
      this.lexical(words, filter, options),
      this.dense(vector, filter),
      this.terms.files(words, filter.repositoryIds, options),
    ]);
    const lists = [weights.lexical, weights.dense, weights.files];
    return { hits: reciprocalRank([lexical, dense, files], lists), weights: lists };
  }

  async purge(repositoryIds: readonly string[]): Promise<void> {
    await this.terms.purge(repositoryIds);
  }

  async close(): Promise<void> {}
}
