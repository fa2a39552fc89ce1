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

/** Every environment variable of the vector-search service (documented in the README table). */
export const VectorSearchEnv = IndexingServiceEnv.extend({
  ALLOW_GLOBAL_SCOPE: env.bool().default(false),
  VECTORS_CHECKOUTS_DIR: z.string().min(1).optional(),
  VECTORS_PARSE_THREADS: env.int(1, 64).optional(),
  VECTORS_FILE_TIMEOUT_MS: env.int(10, 600_000).default(2_000),
  EMBEDDINGS_DIMENSIONS: env.int(16, 8_192).default(256),
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
  /** Per-file chunking budget; past it a file is cut by lines instead. */
  fileTimeoutMs: number;
  /** Dimension of the built-in (feature-hashing) embedder. */
  hashingDimension: number;
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
  return {
    ...indexingServiceSettings(e, environment),
    allowGlobalScope: e.ALLOW_GLOBAL_SCOPE,
    checkoutsDir: resolve(e.VECTORS_CHECKOUTS_DIR ?? join(dataDir(e.SEXTANT_DATA_DIR, environment), 'vector-checkouts')),
    parseThreads: e.VECTORS_PARSE_THREADS,
    fileTimeoutMs: e.VECTORS_FILE_TIMEOUT_MS,
    hashingDimension: e.EMBEDDINGS_DIMENSIONS,
    llm: e.LLM_URL && e.LLM_MODEL ? { url: e.LLM_URL, model: e.LLM_MODEL, apiKey: e.LLM_API_KEY, timeoutMs: e.LLM_TIMEOUT_MS } : undefined,
  };
}
