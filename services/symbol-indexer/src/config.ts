import { join, resolve } from 'node:path';
import { z } from 'zod';
import {
  type CommonSettings,
  dataDir,
  env,
  type IndexerSettings,
  IndexingServiceEnv,
  indexingServiceSettings,
  parseEnv,
} from '@sextant/runtime';

/** Every environment variable of the symbol-indexer service (described here; docs/configuration.md is generated: `npm run docs`). */
export const SymbolIndexerEnv = IndexingServiceEnv.extend({
  SYMBOLS_CHECKOUTS_DIR: z.string().min(1).optional().meta({
    description: 'its own persistent clones of the remote repositories it parses',
    default: '`<SEXTANT_DATA_DIR>/symbol-checkouts`',
  }),
  SYMBOLS_PARSE_THREADS: env.int(1, 64).optional().meta({ description: 'parse worker threads', default: "the machine's cores" }),
  SYMBOLS_FILE_TIMEOUT_MS: env
    .int(10, 600_000)
    .default(2_000)
    .describe('per-file parse and query budget; a file past it is kept at file level (no symbols)'),
});

export interface SymbolIndexerConfig extends CommonSettings, IndexerSettings {
  database: { url: string | undefined; poolSize: number; connectTimeoutMs: number };
  /** Persistent clones of the remote repositories it parses (its own; kept across restarts). */
  checkoutsDir: string;
  /** Parse worker threads; default: the machine's cores. */
  parseThreads: number | undefined;
  /** Per-file parse and query budget; a file past it is kept at file level. */
  fileTimeoutMs: number;
}

export function loadConfig(environment: NodeJS.ProcessEnv): SymbolIndexerConfig {
  const e = parseEnv(SymbolIndexerEnv, environment);
  return {
    ...indexingServiceSettings(e, environment),
    checkoutsDir: resolve(e.SYMBOLS_CHECKOUTS_DIR ?? join(dataDir(e.SEXTANT_DATA_DIR, environment), 'symbol-checkouts')),
    parseThreads: e.SYMBOLS_PARSE_THREADS,
    fileTimeoutMs: e.SYMBOLS_FILE_TIMEOUT_MS,
  };
}
