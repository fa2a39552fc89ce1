/**
 * The port of a vector store (ADR 0052): what search asks of wherever a collection's vectors and terms are indexed.
 * The chunk table in Postgres is the record (`ChunkStore`); a `VectorIndex` keeps its own index beside it (local
 * files, Qdrant) or searches the table itself (pgvector, `real[]`). A store is one file implementing this interface
 * and one line in `stores.ts`.
 */
import type { Database, RunResult, Statement } from '@sextant/persistence';
import { reciprocalRank } from '../search/fusion.js';
import type { Hit } from '../search/hit.js';

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

/** A repository as the store is told of it: its id, and its name (Qdrant's `repo` payload). */
export interface RepositoryRef {
  id: string;
  name: string;
}

/** The weights of hybrid search's lists in the fusion (files: whole files by BM25, where the store has them). */
export interface HybridWeights {
  lexical: number;
  dense: number;
  files: number;
}

/** How a search goes, past its filter: one object, with defaults (`searchOptions`). */
export interface SearchOptions {
  /** Query words used at most (the rarest first). */
  maxTerms: number;
  /** With a path filter, an index is asked for this many times the limit (at least prefixMin, at most prefixMax)… */
  prefixFactor: number;
  prefixMin: number;
  prefixMax: number;
  /** …and when that leaves too few, the filtered chunks are scored exactly if there are at most this many (local). */
  exactMax: number;
  /** Files the file-level list of hybrid search ranks, each as one chunk (stores that have it). */
  fileDepth: number;
}

const SEARCH_DEFAULTS: Readonly<SearchOptions> = Object.freeze({
  maxTerms: 16,
  prefixFactor: 8,
  prefixMin: 400,
  prefixMax: 4_096,
  exactMax: 50_000,
  fileDepth: 50,
});

/** The defaults, with `overrides` where given. */
export function searchOptions(overrides: Partial<SearchOptions> = {}): SearchOptions {
  return { ...SEARCH_DEFAULTS, ...overrides };
}

/** A row the transaction added, with the key the table gave it (the entry's name in a keyed index). */
interface AddedRow {
  key: bigint;
  row: ChunkRow;
}

/** What a write's transaction did to the table: the keys of the rows it removed and the rows it added. */
interface RowChange {
  removed: bigint[];
  added: AddedRow[];
}

/** Statements run in a write's transaction. */
export interface InTransaction {
  run<T = Record<string, unknown>>(statement: Statement, values: unknown[]): Promise<RunResult<T>>;
}

/**
 * A write's transaction on the table. `inside` runs within it, after the rows are written and before they commit
 * (Qdrant gets its points there, so a search never sees a live row without its point). `written`: the files the
 * change rewrote or removed, and the rows they now hold; `tx` runs statements in the transaction (the Postgres store
 * counts those files' terms again there).
 */
export type TableChange = (
  inside: (added: readonly AddedRow[], written: { paths: readonly string[]; rows: readonly ChunkRow[] }, tx: InTransaction) => Promise<void>,
) => Promise<RowChange>;

/** The chunk table of a collection, as a vector index reads it. */
export interface ChunkTable {
  readonly db: Database;
  /** The table's quoted name. */
  readonly name: string;
  readonly collection: string;
  readonly dimension: number;
  /** The SQL condition of a filter on `$2` (repository ids or null) and `$3` (path prefix or null). */
  readonly filter: string;
  /** The live rows of these keys that pass the filter, by key (keyed indexes). */
  rowsOf(keyed: ReadonlyArray<{ key: bigint }>, filter: SearchFilter): Promise<Map<string, Hit>>;
  /** The filter's repositories, or every repository indexed into this collection. */
  repositoriesOf(filter: SearchFilter): Promise<readonly string[]>;
}

/** Where a collection keeps its vectors; `ChunkStore` makes the table, the index does the rest. */
export interface VectorIndex {
  /**
   * The embedding column's SQL type, whether a row's `key` names its entry in this index, and what else the table
   * needs when it is made (an index on the column).
   */
  readonly column: { type: string; keyed: boolean; ddl: readonly string[] };
  /** A vector as the embedding column's input text. */
  literal(vector: Float32Array): string;
  /** Ready once the table exists (statements, files, a Qdrant collection). */
  open(): Promise<void>;
  /** Runs the table's `change` and changes this index to match. */
  write(repository: RepositoryRef, commit: string | null, change: TableChange): Promise<void>;
  /** The best chunks for the query's words (the code tokenizer's), BM25-style, best first, at most `filter.limit`. */
  lexical(words: readonly string[], filter: SearchFilter, options: SearchOptions): Promise<Hit[]>;
  /** The nearest chunks by cosine similarity, best first. */
  dense(vector: Float32Array, filter: SearchFilter, options: SearchOptions): Promise<Hit[]>;
  /** The lists of hybrid search fused by reciprocal rank, best first, with the weights of the lists fused. */
  hybrid(
    words: readonly string[],
    vector: Float32Array,
    filter: SearchFilter,
    weights: HybridWeights,
    options: SearchOptions,
  ): Promise<{ hits: Hit[]; weights: number[] }>;
  /** Forgets what this index holds of these repositories (the table's rows are gone already). */
  purge(repositoryIds: readonly string[]): Promise<void>;
  /** Saves what must outlive the process (at shutdown). */
  close(): Promise<void>;
}

/**
 * Hybrid search over chunks only: the index's lexical and dense lists fused by reciprocal rank with their weights
 * (what a store without a list of its own, or a search its own lists cannot serve, answers).
 */
export async function fuseChunks(
  index: Pick<VectorIndex, 'lexical' | 'dense'>,
  words: readonly string[],
  vector: Float32Array,
  filter: SearchFilter,
  weights: HybridWeights,
  options: SearchOptions,
): Promise<{ hits: Hit[]; weights: number[] }> {
  const lists = [weights.lexical, weights.dense];
  return {
    hits: reciprocalRank([await index.lexical(words, filter, options), await index.dense(vector, filter, options)], lists),
    weights: lists,
  };
}

/** Best score first; ties in path and chunk order. */
export function byScore(a: Hit, b: Hit): number {
  return b.score - a.score || a.path.localeCompare(b.path) || a.ordinal - b.ordinal;
}

/** The found keys' rows (keys without one dropped), with the found scores, best first. */
export function placed(found: ReadonlyArray<{ key: bigint; score: number }>, rows: ReadonlyMap<string, Hit>): Hit[] {
  return found
    .flatMap((n) => {
      const row = rows.get(String(n.key));
      return row ? [{ ...row, score: n.score }] : [];
    })
    .sort(byScore);
}

/** A row's score as a number (Postgres returns `numeric` as text). */
export function numeric(row: Hit): Hit {
  return { ...row, score: Number(row.score) };
}

/** A `bytea` of float32 values (little-endian) as a vector. */
export function floats(bytes: Buffer): Float32Array {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

/** A vector as `bytea` input text (`\\x…`, float32 little-endian). */
export function byteaLiteral(vector: Float32Array): string {
  return `\\x${Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('hex')}`;
}
