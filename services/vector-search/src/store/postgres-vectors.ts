/**
 * The Postgres stores: the chunk table searches itself. Dense vectors in a pgvector column (HNSW, cosine), or in a
 * `real[]` column scored by an exact scan where the server has no pgvector; terms in the `tsvector` column (GIN),
 * ranked by ts_rank weighted by each word's inverse document frequency.
 */
import { sql, type Statement } from '@sextant/persistence';
import { quote } from '../lexical/lexemes.js';
import { idf } from '../lexical/postings.js';
import type { Hit } from '../search/hit.js';
import {
  numeric,
  type ChunkTable,
  type HybridWeights,
  type SearchFilter,
  type SearchOptions,
  type TableChange,
  fuseChunks,
  type VectorIndex,
} from './vector-index.js';

const COLUMNS = `repository_id AS "repositoryId", path, ordinal, start_line AS "startLine", end_line AS "endLine", language, symbol, commit, content`;

export class PostgresVectors implements VectorIndex {
  readonly column: { type: string; keyed: boolean; ddl: string[] };
  private sql!: Record<'df' | 'lexical' | 'dense' | 'setSearch', Statement>;

  /** `pgvector`: a `vector(<dimension>)` column and its HNSW index; `array`: `real[]`, exact scans. */
  constructor(
    private readonly table: ChunkTable,
    private readonly kind: 'pgvector' | 'array',
  ) {
    const hnsw = `CREATE INDEX IF NOT EXISTS "chunks_${table.collection}_embedding" ON ${table.name} USING hnsw (embedding vector_cosine_ops)`;
    this.column =
      kind === 'pgvector' ? { type: `vector(${table.dimension})`, keyed: false, ddl: [hnsw] } : { type: 'real[]', keyed: false, ddl: [] };
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
      setSearch: sql(`chunks.${c}.hnsw`, `SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', $2, true)`),
    };
  }

  async write(_repository: unknown, _commit: unknown, change: TableChange): Promise<void> {
    await change(async () => undefined);
  }

  /**
   * The candidates are the chunks holding the rarest words (about `candidateBudget` of them), ranked on every word by
   * weight × ts_rank (lexemes weighted A in the header, D in the body).
   */
  async lexical(words: readonly string[], filter: SearchFilter, options: SearchOptions): Promise<Hit[]> {
    if (words.length === 0) return [];
    const terms = words.slice(0, options.maxTerms * 2).map(quote);
    const [{ rows: counted }, n] = await Promise.all([
      this.table.db.run<{ term: string; df: number }>(this.sql.df, [terms, options.dfCap]),
      this.table.size(),
    ]);
    const df = new Map(counted.map((r) => [r.term, r.df]));
    const known = terms
      .map((term) => ({ term, df: df.get(term) ?? 0 }))
      .filter((t) => t.df > 0)
      .sort((a, b) => a.df - b.df)
      .slice(0, options.maxTerms);
    if (known.length === 0) return [];
    const candidates: string[] = [];
    let covered = 0;
    for (const t of known) {
      if (candidates.length > 0 && covered + t.df > options.candidateBudget) break;
      candidates.push(t.term);
      covered += t.df;
    }
    const { rows } = await this.table.db.run<Hit>(this.sql.lexical, [
      candidates.join(' | '),
      filter.repositoryIds,
      filter.pathPrefix,
      known.map((t) => t.term),
      known.map((t) => idf(n, t.df)),
      filter.limit,
    ]);
    return rows.map(numeric);
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

  /** Chunks only: both lists, fused here. */
  async hybrid(
    words: readonly string[],
    vector: Float32Array,
    filter: SearchFilter,
    weights: HybridWeights,
    options: SearchOptions,
  ): Promise<{ hits: Hit[]; weights: number[] }> {
    return fuseChunks(this, words, vector, filter, weights, options);
  }

  async purge(): Promise<void> {}

  async close(): Promise<void> {}
}
