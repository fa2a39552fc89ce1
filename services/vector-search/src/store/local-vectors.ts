/**
 * The `local` store: search indexes in this process (`LocalIndex`: HNSW for vectors, postings for BM25), saved as
 * files in the data directory; the table keeps each row's vector (`bytea`) and lexemes, and a row's `key` names its
 * entry (ADRs 0021, 0022). Its hybrid search fuses a third list, whole files by BM25 (ADR 0049).
 */
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { sql, type Statement } from '@sextant/persistence';
import { termCounts } from '../lexical/postings.js';
import { reciprocalRank } from '../search/fusion.js';
import type { Hit } from '../search/hit.js';
import { LocalIndex } from './local-index.js';
import {
  byteaLiteral,
  floats,
  fuseChunks,
  placed,
  type ChunkTable,
  type HybridWeights,
  type RepositoryRef,
  type SearchFilter,
  type SearchOptions,
  type TableChange,
  type VectorIndex,
} from './vector-index.js';

export class LocalVectors implements VectorIndex {
  readonly column = { type: 'bytea', keyed: true, ddl: [] };
  private readonly log = new Logger('LocalVectors');
  private sql!: Record<'filtered' | 'tally' | 'page' | 'repositories', Statement>;
  private index!: LocalIndex;

  /**
   * `dir`: the data directory's search indexes (a folder per collection under it); `maxChunks`: held in memory at
   * most; `packChunks`: the pack of small repositories' at most (ADR 0062).
   */
  constructor(
    private readonly table: ChunkTable,
    private readonly dir: string,
    private readonly maxChunks: number,
    private readonly packChunks: number,
  ) {}

  literal(vector: Float32Array): string {
    return byteaLiteral(vector);
  }

  async open(): Promise<void> {
    const { name: t, collection: c, filter } = this.table;
    this.sql = {
      filtered: sql(`chunks.${c}.filtered`, `SELECT key::text AS key, embedding FROM ${t} WHERE true AND ${filter} LIMIT $1::int`),
      tally: sql(
        `chunks.${c}.tally`,
        `SELECT count(*)::int AS count, coalesce(sum(key), 0)::text AS sum FROM ${t} WHERE repository_id = $1`,
      ),
      page: sql(
        `chunks.${c}.page`,
        // In the column's order: `ORDER BY key` alone would sort the text output column (10 before 9).
        `SELECT key::text AS key, embedding, path, lexemes::text AS lexemes FROM ${t} WHERE repository_id = $1 AND key > $2::bigint ORDER BY ${t}.key LIMIT $3`,
      ),
      repositories: sql(`chunks.${c}.repositories`, `SELECT repository_id AS id FROM "vector_search"."indexed" WHERE collection = $1`),
    };
    const { db } = this.table;
    this.index = new LocalIndex({
      dir: join(this.dir, c),
      dimension: this.table.dimension,
      maxChunks: this.maxChunks,
      packChunks: this.packChunks,
      source: {
        tally: async (repositoryId) => {
          const row = (await db.run<{ count: number; sum: string }>(this.sql.tally, [repositoryId])).rows[0];
          return { count: row.count, sum: BigInt(row.sum) };
        },
        page: async (repositoryId, after, limit) =>
          (
            await db.run<{ key: string; embedding: Buffer; path: string; lexemes: string }>(this.sql.page, [
              repositoryId,
              String(after),
              limit,
            ])
          ).rows.map((r) => ({ key: BigInt(r.key), vector: floats(r.embedding), path: r.path, terms: termCounts(r.lexemes) })),
      },
    });
    // Loaded (or rebuilt) ahead of the first search, in the background.
    void db
      .run<{ id: string }>(this.sql.repositories, [c])
      .then(({ rows }) => this.index.warm(rows.map((r) => r.id)))
      .catch((error: Error) => this.log.warn(`could not load the local search indexes ahead of time (${error.message})`));
  }

  /** The row change and the index change in one order per repository (`LocalIndex.write`). */
  async write({ id }: RepositoryRef, _commit: string | null, change: TableChange): Promise<void> {
    await this.index.write(id, async () => {
      const { removed, added } = await change(async () => undefined);
      return {
        removed,
        added: added.map(({ key, row }) => ({ key, vector: row.embedding, path: row.path, terms: termCounts(row.lexemes) })),
      };
    });
  }

  async lexical(words: readonly string[], filter: SearchFilter, options: SearchOptions): Promise<Hit[]> {
    if (words.length === 0) return [];
    const ids = await this.table.repositoriesOf(filter);
    const found = await this.index.lexical(ids, words, filter.limit, filter.pathPrefix, options.maxTerms);
    return placed(found, await this.table.rowsOf(found, filter));
  }

  /**
   * Each repository's index searched, merged, then the rows of the keys found. A path filter asks for more keys; when
   * those still leave fewer than the limit, the filtered chunks are scored exactly (when there are at most `exactMax`).
   */
  async dense(vector: Float32Array, filter: SearchFilter, options: SearchOptions): Promise<Hit[]> {
    const ids = await this.table.repositoriesOf(filter);
    const k =
      filter.pathPrefix === null
        ? filter.limit
        : Math.min(options.prefixMax, Math.max(options.prefixMin, filter.limit * options.prefixFactor));
    let nearest = await this.index.nearest(ids, vector, k);
    let hits = placed(nearest, await this.table.rowsOf(nearest, filter));
    if (filter.pathPrefix !== null && hits.length < filter.limit && nearest.length >= k) {
      const { rows } = await this.table.db.run<{ key: string; embedding: Buffer }>(this.sql.filtered, [
        options.exactMax + 1,
        filter.repositoryIds,
        filter.pathPrefix,
      ]);
      if (rows.length <= options.exactMax) {
        nearest = rows
          .map((r) => ({ key: BigInt(r.key), score: dot(floats(r.embedding), vector) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, filter.limit);
        hits = placed(nearest, await this.table.rowsOf(nearest, filter));
      }
    }
    return hits.slice(0, filter.limit);
  }

  /**
   * Lexical chunks, nearest chunks and, without a path filter, whole files by BM25 (each as its best chunk), then one
   * read of their rows (not one per list: the rows are what a search waits on).
   */
  async hybrid(
    words: readonly string[],
    vector: Float32Array,
    filter: SearchFilter,
    weights: HybridWeights,
    options: SearchOptions,
  ): Promise<{ hits: Hit[]; weights: number[] }> {
    if (words.length === 0 || filter.pathPrefix !== null) return fuseChunks(this, words, vector, filter, weights, options);
    const ids = await this.table.repositoriesOf(filter);
    const lexical = await this.index.lexical(ids, words, filter.limit, null, options.maxTerms);
    const nearest = await this.index.nearest(ids, vector, filter.limit);
    const files = weights.files > 0 ? await this.index.files(ids, words, options.fileDepth, null, options.maxTerms) : [];
    const rows = await this.table.rowsOf([...lexical, ...nearest, ...files], filter);
    const lists = [weights.lexical, weights.dense, weights.files];
    return { hits: reciprocalRank([placed(lexical, rows), placed(nearest, rows), placed(files, rows)], lists), weights: lists };
  }

  async purge(repositoryIds: readonly string[]): Promise<void> {
    await this.index.drop(repositoryIds);
  }

  async close(): Promise<void> {
    await this.index?.close();
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}
