/**
 * The vector stores, by the name a collection records (`vector_search.collections.vectors`): a new store is its file
 * (a `VectorIndex`) and one line here, plus its value of VECTOR_STORE (config.ts) when a user may choose it (ADR 0052).
 */
import { LocalVectors } from './local-vectors.js';
import { PostgresVectors } from './postgres-vectors.js';
import { QdrantVectors } from './qdrant-vectors.js';
import type { ChunkTable, VectorIndex } from './vector-index.js';

/**
 * Where a new collection keeps its vectors (VECTOR_STORE): `local` files under `dir` (at most `maxChunks` chunks in
 * memory), `postgres` (pgvector, else exact scans), or Qdrant.
 */
export type VectorStorePreference =
  | { kind: 'local'; dir: string; maxChunks: number; packChunks: number }
  | { kind: 'postgres' }
  | { kind: 'qdrant'; url: string; apiKey: string | undefined; timeoutMs: number };

/** Makes a collection's index over its table, with the server's preference (a store reads its own settings there). */
export type VectorStoreFactory = (table: ChunkTable, preference: VectorStorePreference) => VectorIndex;

/**
 * How dense vectors are kept: pgvector (HNSW, cosine) in the table; `real[]` scored by an exact scan where the server
 * has no pgvector; `local`: in this process's indexes (HNSW for vectors, postings for BM25); or `qdrant`: in a Qdrant
 * collection (dense and sparse vectors). With `local` and `qdrant` each vector and its lexemes are also kept in the
 * table, and a row's `key` names it in the index: the table says which chunks are live.
 */
export const VECTOR_STORES = {
  pgvector: (table) => new PostgresVectors(table, 'pgvector'),
  array: (table) => new PostgresVectors(table, 'array'),
  local: (table, preference) => {
    const { dir, maxChunks, packChunks } = preference as Extract<VectorStorePreference, { kind: 'local' }>;
    return new LocalVectors(table, dir, maxChunks, packChunks);
  },
  qdrant: (table, preference) => new QdrantVectors(table, preference as Extract<VectorStorePreference, { kind: 'qdrant' }>),
} satisfies Record<string, VectorStoreFactory>;

/** The name a collection records of how it keeps its vectors. */
export type VectorColumn = keyof typeof VECTOR_STORES;
