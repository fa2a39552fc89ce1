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
import type { PreciseLimits } from './symbols/precise/precise-stage.js';

/** Every environment variable of the symbol-indexer service (described here; docs/configuration.md is generated: `npm run docs`). */
export const SymbolIndexerEnv = IndexingServiceEnv.extend({
  SYMBOLS_CHECKOUTS_DIR: z.string().min(1).optional().meta({
    description: 'its own persistent clones of the remote repositories it parses',
    default: '`<SEXTANT_DATA_DIR>/symbol-checkouts`',
  }),
  SYMBOLS_PARSE_THREADS: env.int(1, 64).optional().meta({
    description: 'parse worker threads; each may use up to about 300 MB (a 256 MB heap, its young generation, its grammars: ADR 0066)',
    default: "the machine's cores",
  }),
  SYMBOLS_FILE_TIMEOUT_MS: env
    .int(10, 600_000)
    .default(2_000)
    .describe('per-file parse and query budget; a file past it is kept at file level (no symbols)'),
  SYMBOLS_PRECISE_TIMEOUT_MS: env.int(100, 3_600_000).default(240_000).meta({
    description:
      'time budget of one run of one precise-stage indexer (scip-typescript, scip-python) on a repository; past it the indexer is stopped',
    details:
      'the job then completes with the search tier and a warning; keep it (twice it, for a repository with both TypeScript and Python) under `SEXTANT_STAGE_STALL_MS`, which fails a job whose stage finishes no batch for that long ([ADR 0053](adr/0053-precise-tier-from-scip.md))',
  }),
  SYMBOLS_PRECISE_MAX_MEMORY_MB: env
    .int(128, 65_536)
    .default(2_048)
    .describe("heap cap of the precise stage's indexer (`--max-old-space-size`); past it the indexer dies and the job warns"),
  SYMBOLS_PRECISE_MAX_FILES: env.int(1, 1_000_000).default(3_000).meta({
    description:
      "most files of an indexer's languages (TypeScript and JavaScript; Python) a repository may have for the precise stage to run that indexer on it",
    details:
      'a repository with more is answered from the search tier for those languages and its job warns (`too_large`) at once, instead of spending the time budget and the memory cap of a run that would not finish; a coarse bound (measured: scip-typescript 30–40 s and scip-python 135–375 s per 100k lines, [ADR 0053](adr/0053-precise-tier-from-scip.md)), the time budget still stops a smaller repository whose run overruns',
  }),
  SYMBOLS_PRECISE_MAX_INDEX_BYTES: env
    .int(1_024, 4_294_967_296)
    .default(268_435_456)
    .describe('largest SCIP index the precise stage reads or `POST /scip` takes (ADR 0056); a larger one is refused whole'),
  SYMBOLS_PRECISE_MAX_OCCURRENCES: env
    .int(1, 100_000_000)
    .default(5_000_000)
    .describe("most occurrences a SCIP index (the precise stage's or an upload) may hold; one with more is refused whole"),
});

export interface SymbolIndexerConfig extends CommonSettings, IndexerSettings {
  database: { url: string | undefined; poolSize: number; connectTimeoutMs: number };
  /** Persistent clones of the remote repositories it parses (its own; kept across restarts). */
  checkoutsDir: string;
  /** Parse worker threads; default: the machine's cores. */
  parseThreads: number | undefined;
  /** Per-file parse and query budget; a file past it is kept at file level. */
  fileTimeoutMs: number;
  /** The precise stage's indexer: time budget, heap cap, the largest repository it runs on, and the bounds of the index it reads. */
  precise: PreciseLimits;
}

export function loadConfig(environment: NodeJS.ProcessEnv): SymbolIndexerConfig {
  const e = parseEnv(SymbolIndexerEnv, environment);
  return {
    ...indexingServiceSettings(e, environment),
    checkoutsDir: resolve(e.SYMBOLS_CHECKOUTS_DIR ?? join(dataDir(e.SEXTANT_DATA_DIR, environment), 'symbol-checkouts')),
    parseThreads: e.SYMBOLS_PARSE_THREADS,
    fileTimeoutMs: e.SYMBOLS_FILE_TIMEOUT_MS,
    precise: {
      timeoutMs: e.SYMBOLS_PRECISE_TIMEOUT_MS,
      maxMemoryMb: e.SYMBOLS_PRECISE_MAX_MEMORY_MB,
      maxFiles: e.SYMBOLS_PRECISE_MAX_FILES,
      maxIndexBytes: e.SYMBOLS_PRECISE_MAX_INDEX_BYTES,
      maxOccurrences: e.SYMBOLS_PRECISE_MAX_OCCURRENCES,
    },
  };
}
