import { join, resolve } from 'node:path';
import { z } from 'zod';
import {
  type CommonSettings,
  ConfigError,
  dataDir,
  env,
  type IndexerSettings,
  IndexingServiceEnv,
  indexingServiceSettings,
  parseEnv,
} from '@sextant/runtime';
import type { EndpointEmbedderOptions } from './embedding/endpoint-embedder.js';
import type { VectorStorePreference } from './store/chunk-store.js';

/** Every environment variable of the vector-search service (documented in the README table). */
export const VectorSearchEnv = IndexingServiceEnv.extend({
  ALLOW_GLOBAL_SCOPE: env.bool().default(false),
  VECTORS_CHECKOUTS_DIR: z.string().min(1).optional(),
  VECTORS_PARSE_THREADS: env.int(1, 64).optional(),
  VECTORS_FILE_TIMEOUT_MS: env.int(10, 600_000).default(2_000),
  VECTOR_STORE: z.enum(['local', 'postgres', 'qdrant']).optional(),
  QDRANT_URL: env.url(['http', 'https']).optional(),
  QDRANT_API_KEY: z.string().min(1).optional(),
  QDRANT_TIMEOUT_MS: env.int(100, 600_000).default(10_000),
  VECTORS_INDEX_DIR: z.string().min(1).optional(),
  EMBEDDINGS_URL: env.url(['http', 'https']).optional(),
  EMBEDDINGS_MODEL: z.string().min(1).max(200).optional(),
  EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  EMBEDDINGS_DIMENSIONS: env.int(16, 8_192).optional(),
  EMBEDDINGS_BATCH_SIZE: env.int(1, 2_048).default(64),
  EMBEDDINGS_CONCURRENCY: env.int(1, 64).default(4),
  EMBEDDINGS_TIMEOUT_MS: env.int(100, 600_000).default(30_000),
  EMBEDDINGS_RETRIES: env.int(0, 20).default(5),
  EMBEDDINGS_QUERY_TIMEOUT_MS: env.int(100, 600_000).default(5_000),
  EMBEDDINGS_MAX_CHARS: env.int(100, 1_000_000).default(8_000),
  EMBEDDINGS_MODEL_DIR: z.string().min(1).optional(),
  EMBEDDINGS_THREADS: env.int(1, 64).optional(),
  LLM_URL: env.url(['http', 'https']).optional(),
  LLM_MODEL: z.string().min(1).max(200).optional(),
  LLM_API_KEY: z.string().min(1).optional(),
  LLM_TIMEOUT_MS: env.int(1_000, 600_000).default(60_000),
});

export interface VectorSearchConfig extends CommonSettings, IndexerSettings {
  database: { url: string | undefined; poolSize: number; connectTimeoutMs: number };
  /** `scope: {type: "all"}` is allowed (ALLOW_GLOBAL_SCOPE=true). */
  allowGlobalScope: boolean;
  /** Its own persistent clones of the remote repositories it indexes. */
  checkoutsDir: string;
  parseThreads: number | undefined;
  /** Where new collections keep their search indexes: in this process, saved as files (HNSW and BM25 postings; one writer), Postgres (pgvector, else exact scans; ts_rank), or Qdrant (dense + sparse vectors). */
  vectorStore: VectorStorePreference;
  /** Per-file chunking budget; past it a file is cut by lines instead. */
  fileTimeoutMs: number;
  /** Dimension of the built-in (feature-hashing) embedder. */
  hashingDimension: number;
  /** An OpenAI-compatible embeddings endpoint; absent: the built-in embedder. */
  embeddings: (Omit<EndpointEmbedderOptions, 'dimension'> & { dimension: number; queryTimeoutMs: number }) | undefined;
  /** A local ONNX model (transformers.js layout) run in this process; absent: the endpoint, else the built-in embedder. */
  localModel: { dir: string; model: string | undefined; batchSize: number; maxChars: number; threads: number | undefined } | undefined;
  /** An OpenAI-compatible chat endpoint for ask_code; absent: extractive answers. */
  llm: { url: string; model: string; apiKey: string | undefined; timeoutMs: number } | undefined;
}

export function loadConfig(environment: NodeJS.ProcessEnv): VectorSearchConfig {
  const e = parseEnv(VectorSearchEnv, environment);
  if ((e.LLM_URL === undefined) !== (e.LLM_MODEL === undefined)) {
    throw new ConfigError({
      [e.LLM_URL === undefined ? 'LLM_URL' : 'LLM_MODEL']: 'is required with the other (LLM_URL and LLM_MODEL go together)',
    });
  }
  if (e.EMBEDDINGS_MODEL_DIR === undefined && (e.EMBEDDINGS_URL === undefined) !== (e.EMBEDDINGS_MODEL === undefined)) {
    throw new ConfigError({
      [e.EMBEDDINGS_URL === undefined ? 'EMBEDDINGS_URL' : 'EMBEDDINGS_MODEL']:
        'is required with the other (EMBEDDINGS_URL and EMBEDDINGS_MODEL go together)',
    });
  }
  if (e.EMBEDDINGS_URL !== undefined && e.EMBEDDINGS_MODEL_DIR !== undefined) {
    throw new ConfigError({ EMBEDDINGS_MODEL_DIR: 'is a local model; EMBEDDINGS_URL an endpoint: set one of the two' });
  }
  if (e.EMBEDDINGS_URL !== undefined && e.EMBEDDINGS_DIMENSIONS === undefined) {
    throw new ConfigError({
      EMBEDDINGS_DIMENSIONS:
        "is required with EMBEDDINGS_URL: the model's vector size (e.g. 1536 for text-embedding-3-small, 768 for nomic-embed-text)",
    });
  }
  // Qdrant when its URL is given, else Postgres (embedded mode asks for `local`).
  const store = e.VECTOR_STORE ?? (e.QDRANT_URL ? 'qdrant' : 'postgres');
  if (store === 'qdrant' && e.QDRANT_URL === undefined) {
    throw new ConfigError({ QDRANT_URL: 'is required with VECTOR_STORE=qdrant (e.g. http://qdrant:6333)' });
  }
  return {
    ...indexingServiceSettings(e, environment),
    allowGlobalScope: e.ALLOW_GLOBAL_SCOPE,
    checkoutsDir: resolve(e.VECTORS_CHECKOUTS_DIR ?? join(dataDir(e.SEXTANT_DATA_DIR, environment), 'vector-checkouts')),
    parseThreads: e.VECTORS_PARSE_THREADS,
    vectorStore:
      store === 'local'
        ? { kind: 'local', dir: resolve(e.VECTORS_INDEX_DIR ?? join(dataDir(e.SEXTANT_DATA_DIR, environment), 'vector-index')) }
        : store === 'qdrant'
          ? { kind: 'qdrant', url: e.QDRANT_URL!, apiKey: e.QDRANT_API_KEY, timeoutMs: e.QDRANT_TIMEOUT_MS }
          : { kind: 'postgres' },
    fileTimeoutMs: e.VECTORS_FILE_TIMEOUT_MS,
    hashingDimension: e.EMBEDDINGS_DIMENSIONS ?? 256,
    embeddings:
      e.EMBEDDINGS_URL && e.EMBEDDINGS_MODEL
        ? {
            url: e.EMBEDDINGS_URL,
            model: e.EMBEDDINGS_MODEL,
            dimension: e.EMBEDDINGS_DIMENSIONS!,
            apiKey: e.EMBEDDINGS_API_KEY,
            batchSize: e.EMBEDDINGS_BATCH_SIZE,
            concurrency: e.EMBEDDINGS_CONCURRENCY,
            timeoutMs: e.EMBEDDINGS_TIMEOUT_MS,
            retries: e.EMBEDDINGS_RETRIES,
            maxChars: e.EMBEDDINGS_MAX_CHARS,
            queryTimeoutMs: e.EMBEDDINGS_QUERY_TIMEOUT_MS,
          }
        : undefined,
    localModel: e.EMBEDDINGS_MODEL_DIR
      ? {
          dir: resolve(e.EMBEDDINGS_MODEL_DIR),
          model: e.EMBEDDINGS_MODEL,
          batchSize: e.EMBEDDINGS_BATCH_SIZE,
          maxChars: e.EMBEDDINGS_MAX_CHARS,
          threads: e.EMBEDDINGS_THREADS,
        }
      : undefined,
    llm: e.LLM_URL && e.LLM_MODEL ? { url: e.LLM_URL, model: e.LLM_MODEL, apiKey: e.LLM_API_KEY, timeoutMs: e.LLM_TIMEOUT_MS } : undefined,
  };
}
