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
import { DEFINITION_WEIGHT } from './search/code-names.js';
import type { VectorStorePreference } from './store/chunk-store.js';

/** Every environment variable of the vector-search service (described here; docs/configuration.md is generated: `npm run docs`). */
export const VectorSearchEnv = IndexingServiceEnv.extend({
  ALLOW_GLOBAL_SCOPE: env
    .bool()
    .default(false)
    .describe('`true` allows `search_code`/`ask_code` with `scope: {type: "all"}` (else `forbidden`)'),
  VECTORS_CHECKOUTS_DIR: z.string().min(1).optional().meta({
    description: 'its own persistent clones of the remote repositories it indexes',
    default: '`<SEXTANT_DATA_DIR>/vector-checkouts`',
  }),
  VECTORS_PARSE_THREADS: env.int(1, 64).optional().meta({
    description: 'chunking worker threads; each may use up to about 300 MB (a 256 MB heap, its young generation, its grammars: ADR 0066)',
    default: "the machine's cores",
  }),
  VECTORS_FILE_TIMEOUT_MS: env
    .int(10, 600_000)
    .default(2_000)
    .describe('per-file chunking budget; a file past it is cut by lines instead of by definitions'),
  VECTOR_STORE: z.enum(['local', 'postgres', 'qdrant']).optional().meta({
    description:
      'where a new collection keeps its search indexes: `local`, `postgres` or `qdrant`; a collection keeps the store it was made with',
    default: '`qdrant` when `QDRANT_URL` is set; else `local` embedded, `postgres` as a service',
    details:
      "`local`: in this process, saved as files (HNSW for the vectors, BM25 postings for the words; one writer per data directory; ADRs [0021](adr/0021-local-vector-index.md), [0022](adr/0022-local-lexical-index.md)). `postgres`: pgvector's HNSW, else an exact scan of `real[]` where the server has no pgvector; BM25 for the words, over term tables beside the chunks ([ADR 0058](adr/0058-bm25-in-postgres.md)). `qdrant`: a dense and a sparse vector per chunk, hybrid search in one Query API call ([ADR 0023](adr/0023-qdrant-store.md)).",
  }),
  SEARCH_DEFINITION_WEIGHT: env
    .int(0, 100)
    .default(DEFINITION_WEIGHT)
    .meta({
      description:
        "hybrid `search_code`: the weight, in the reciprocal-rank fusion, of the list of definitions a query names as code (`Request.hooks`, `url_for`); `0` leaves the list out",
      details:
        'the lexical list weighs 1, the whole-file list 4, the dense list 0.5 with the built-in embedder (1 with a model); figures per weight in [ADR 0049](adr/0049-search-ranks-sources-before-tests.md).',
    }),
  QDRANT_URL: env
    .url(['http', 'https'])
    .optional()
    .describe('the Qdrant server (REST, e.g. `http://qdrant:6333`); Qdrant down makes searches `unavailable` and indexing batches retry'),
  QDRANT_API_KEY: z.string().min(1).optional().describe("Qdrant's API key (sent as `api-key`)"),
  QDRANT_TIMEOUT_MS: env.int(100, 600_000).default(10_000).describe('per Qdrant request'),
  VECTORS_INDEX_DIR: z.string().min(1).optional().meta({
    description:
      'the local index files (`VECTOR_STORE=local`: `.usearch`, `.postings` and a `.json` tally per repository); locked by one process',
    default: '`<SEXTANT_DATA_DIR>/vector-index`',
  }),
  VECTOR_LOCAL_CHUNKS_MAX: env
    .int(1_000, 1_000_000_000)
    .default(1_000_000)
    .meta({
      description:
        'chunks the local search indexes (`VECTOR_STORE=local`) hold in memory at most, over every repository: past it, the least recently used repositories\' indexes are saved and closed, and opened again from their files on demand',
      details:
        'memory then follows this setting, not the number of repositories; a search over more repositories than fit opens each it needs, and holds them while it runs ([ADR 0054](adr/0054-org-scale.md)).',
    }),
  VECTOR_LOCAL_PACK_CHUNKS: env
    .int(0, 1_000_000_000)
    .default(250_000)
    .meta({
      description:
        'chunks the pack holds at most (`VECTOR_STORE=local`): one search index of the repositories with at most 2,000 chunks each, which a search over 64 repositories or more, among them every one in the pack, reads instead of each one\'s own; `0`: no pack',
      details:
        'held in memory beside `VECTOR_LOCAL_CHUNKS_MAX` (twice, while a new pack is built beside the one in use); built from Postgres in the background once writes pause for 5 s, and again after a write to a repository it holds ([ADR 0062](adr/0062-pack-small-repositories.md)).',
    }),
  EMBEDDINGS_URL: env.url(['http', 'https']).optional().meta({
    description:
      'an OpenAI-compatible `/v1/embeddings` endpoint (its base `…/v1` or the full URL; OpenAI, Ollama, vLLM, TEI); goes with `EMBEDDINGS_MODEL`',
    default: 'unset: the built-in feature-hashing embedder',
  }),
  EMBEDDINGS_MODEL: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("the endpoint's model; with `EMBEDDINGS_MODEL_DIR`, the local model's name (default: the directory's name)"),
  EMBEDDINGS_API_KEY: z.string().min(1).optional().describe("the endpoint's API key"),
  EMBEDDINGS_DIMENSIONS: env.int(16, 8_192).optional().meta({
    description:
      "the endpoint model's vector size (required with `EMBEDDINGS_URL`; an answer of another size fails the job); without an endpoint, the built-in embedder's dimension",
    default: '`256` (built-in)',
    details: 'the collection is `<model>_<dimension>`, so two models never mix.',
  }),
  EMBEDDINGS_BATCH_SIZE: env.int(1, 2_048).default(64).describe('texts per endpoint request (or per local-model inference)'),
  EMBEDDINGS_CONCURRENCY: env.int(1, 64).default(4).describe('endpoint requests in flight'),
  EMBEDDINGS_TIMEOUT_MS: env.int(100, 600_000).default(30_000).describe('per endpoint request while indexing'),
  EMBEDDINGS_RETRIES: env
    .int(0, 20)
    .default(5)
    .describe(
      'retries of an endpoint request before the batch fails (backoff; 429 honours `Retry-After`; 5xx, timeouts, dropped connections)',
    ),
  EMBEDDINGS_QUERY_TIMEOUT_MS: env
    .int(100, 600_000)
    .default(5_000)
    .describe(
      "how long a search waits for its query's embedding (once) before answering lexically with a warning; after a failure the endpoint is left alone for 10 s",
    ),
  EMBEDDINGS_MAX_CHARS: env.int(100, 1_000_000).default(8_000).describe('characters of a chunk sent to the embedder at most'),
  EMBEDDINGS_MODEL_DIR: z.string().min(1).optional().meta({
    description:
      "a local sentence-embedding model in transformers.js's layout, run in-process on ONNX Runtime's CPU provider; not with `EMBEDDINGS_URL`",
    details:
      "the directory holds `config.json`, `tokenizer.json` and `onnx/model.onnx` (e.g. all-MiniLM-L6-v2 you provide), run through the optional `@huggingface/transformers`; nothing is downloaded. `EMBEDDINGS_MODEL` names it (default: the directory's name); `EMBEDDINGS_BATCH_SIZE` and `EMBEDDINGS_MAX_CHARS` apply ([ADR 0024](adr/0024-local-onnx-embeddings.md)).",
  }),
  EMBEDDINGS_THREADS: env.int(1, 64).optional().meta({
    description: 'ONNX Runtime threads per inference of the local model (graph optimizations: all)',
    default: "the machine's cores",
  }),
  LLM_URL: env.url(['http', 'https']).optional().meta({
    description:
      "an OpenAI-compatible chat endpoint (`…/v1`, e.g. Ollama's `http://localhost:11434/v1`) for `ask_code`; goes with `LLM_MODEL`",
    default: 'unset: answers are extractive',
  }),
  LLM_MODEL: z.string().min(1).max(200).optional().describe('the chat model'),
  LLM_API_KEY: z.string().min(1).optional().describe("the chat endpoint's API key"),
  LLM_TIMEOUT_MS: env
    .int(1_000, 600_000)
    .default(60_000)
    .describe('how long `ask_code` waits for the model before answering extractively (with a warning)'),
});

export interface VectorSearchConfig extends CommonSettings, IndexerSettings {
  database: { url: string | undefined; poolSize: number; connectTimeoutMs: number };
  /** `scope: {type: "all"}` is allowed (ALLOW_GLOBAL_SCOPE=true). */
  allowGlobalScope: boolean;
  /** Its own persistent clones of the remote repositories it indexes. */
  checkoutsDir: string;
  parseThreads: number | undefined;
  /** Where new collections keep their search indexes: in this process, saved as files (HNSW and BM25 postings; one writer), Postgres (pgvector, else exact scans; BM25 over term tables), or Qdrant (dense + sparse vectors). */
  vectorStore: VectorStorePreference;
  /** Hybrid search's weight of the definitions a query names (0: not looked up). */
  definitionWeight: number;
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
    definitionWeight: e.SEARCH_DEFINITION_WEIGHT,
    vectorStore:
      store === 'local'
        ? {
            kind: 'local',
            dir: resolve(e.VECTORS_INDEX_DIR ?? join(dataDir(e.SEXTANT_DATA_DIR, environment), 'vector-index')),
            maxChunks: e.VECTOR_LOCAL_CHUNKS_MAX,
            packChunks: e.VECTOR_LOCAL_PACK_CHUNKS,
          }
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
