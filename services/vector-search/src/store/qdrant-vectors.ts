/**
 * The `qdrant` store: each chunk a point of a Qdrant collection, with a dense vector (cosine) and a sparse one of its
 * terms; a row's `key` is its point's id, and the table says which points are live. Hybrid search is one Query API
 * call (prefetch + rrf).
 */
import { Logger } from '@nestjs/common';
import { sql, type Statement } from '@sextant/persistence';
import { termCounts } from '../lexical/postings.js';
import { RRF_K } from '../search/fusion.js';
import type { Hit } from '../search/hit.js';
import { QdrantIndex, type QdrantHit, type QdrantIndexOptions } from './qdrant-index.js';
import {
  byScore,
  byteaLiteral,
  fuseChunks,
  placed,
  type ChunkTable,
  type HybridWeights,
  type RepositoryRef,
  type SearchFilter,
  type SearchOptions,
  type TableChange,
  type VectorIndex,
  UNKNOWN_REPOSITORY,
} from './vector-index.js';

export class QdrantVectors implements VectorIndex {
  readonly column = { type: 'bytea', keyed: true, ddl: [] };
  private readonly log = new Logger('QdrantVectors');
  private readonly qdrant: QdrantIndex;
  private any!: Statement;

  constructor(
    private readonly table: ChunkTable,
    options: Omit<QdrantIndexOptions, 'collection' | 'dimension'>,
  ) {
    this.qdrant = new QdrantIndex({ ...options, collection: table.collection, dimension: table.dimension });
  }

  literal(vector: Float32Array): string {
    return byteaLiteral(vector);
  }

  /** The Qdrant collection, made if missing; a new one while the table holds chunks means Qdrant lost them. */
  async open(): Promise<void> {
    this.any = sql(`chunks.${this.table.collection}.any`, `SELECT EXISTS (SELECT 1 FROM ${this.table.name}) AS any`);
    if ((await this.qdrant.open()) && (await this.table.db.run<{ any: boolean }>(this.any, [])).rows[0].any) {
      this.log.error(
        `Qdrant had no collection ${this.table.collection} though Postgres holds its chunks (a new or wiped Qdrant): re-index every repository (index_repo {force: true}) to fill it`,
      );
    }
  }

  /**
   * Qdrant gets the new points inside the transaction, before the rows that make them live commit, and loses the old
   * ones after: a search sees whole files.
   */
  async write({ id: repositoryId, name }: RepositoryRef, commit: string | null, change: TableChange): Promise<void> {
    const { removed } = await change((added) =>
      this.qdrant.upsert(
        added.map(({ key, row }) => ({
          ...row,
          key,
          vector: row.embedding,
          terms: termCounts(row.lexemes),
          repositoryId,
          repo: name,
          commit,
        })),
      ),
    );
    // Points of rows gone are dead already (a search keeps only live rows); failing to delete them leaves garbage, not errors.
    await this.qdrant.delete(removed).catch((error: Error) => this.log.warn(error.message));
  }

  async lexical(words: readonly string[], filter: SearchFilter, options: SearchOptions): Promise<Hit[]> {
    if (words.length === 0) return [];
    return this.found(await this.qdrant.lexical(words.slice(0, options.maxTerms), filter, depth(filter, options)), filter);
  }

  async dense(vector: Float32Array, filter: SearchFilter, options: SearchOptions): Promise<Hit[]> {
    return this.found(await this.qdrant.dense(vector, filter, depth(filter, options)), filter);
  }

  /** One Query API call: both prefetches fused by Qdrant's rrf. */
  async hybrid(
    words: readonly string[],
    vector: Float32Array,
    filter: SearchFilter,
    weights: HybridWeights,
    options: SearchOptions,
  ): Promise<{ hits: Hit[]; weights: number[] }> {
    if (words.length === 0) return fuseChunks(this, words, vector, filter, weights, options);
    // Qdrant's rrf: 1 / ((p + 1) / w + k - 1), so k = RRF_K + 1 scores a weight-1 list as `reciprocalRank` does.
    const rrf = { k: RRF_K + 1, weights: [weights.lexical, weights.dense] as const };
    const found = await this.qdrant.hybrid(words.slice(0, options.maxTerms), vector, filter, depth(filter, options), rrf);
    return { hits: await this.found(found, filter), weights: [weights.lexical, weights.dense] };
  }

  async purge(repositoryIds: readonly string[]): Promise<void> {
    await this.qdrant.deleteRepositories(repositoryIds);
  }

  async close(): Promise<void> {}

  /**
   * Qdrant's points as hits, in its order: ours are the live rows of their keys (points of rows replaced since are
   * dropped); points an older indexer wrote without `repo` come from their payload, as UNKNOWN_REPOSITORY.
   */
  private async found(points: readonly QdrantHit[], filter: SearchFilter): Promise<Hit[]> {
    const ours = points.filter((p): p is QdrantHit & { key: bigint } => p.key !== null);
    const rows = placed(ours, await this.table.rowsOf(ours, filter));
    const legacy = points.filter((p) => p.key === null).map((p) => legacyHit(p));
    return [...rows, ...legacy.filter((h) => filter.pathPrefix === null || h.path.startsWith(filter.pathPrefix))]
      .sort(byScore)
      .slice(0, filter.limit);
  }
}

/** How many points Qdrant is asked for: more when the path prefix is not a folder (its folder is filtered there, the rest here). */
function depth(filter: SearchFilter, options: SearchOptions): number {
  return filter.pathPrefix === null || filter.pathPrefix.endsWith('/')
    ? filter.limit
    : Math.min(options.prefixMax, Math.max(options.prefixMin, filter.limit * options.prefixFactor));
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
