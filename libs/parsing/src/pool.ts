import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { Chunk } from './chunk.js';
import type { Extraction } from './extract.js';
import type { PackedReferences } from './packed.js';

/** One file to parse: its absolute path and language (as `languageOf` names it). */
export interface ParseTask {
  path: string;
  language: string;
  maxBytes: number;
  timeoutMs: number;
}

export type SkipCause =
  'unsupported_language' | 'grammar_unavailable' | 'unreadable' | 'too_large' | 'binary' | 'time_budget' | 'worker_failed';

/** What parsing a file gave: its definitions, imports and references (packed per name), or why it stays at file level. */
export type ParseOutcome =
  | (Omit<Extraction, 'references'> & { references: PackedReferences[]; referenceCount: number; bytes: number })
  | { skipped: SkipCause; reason?: string };

/** A file's chunks for search (`parsed`: by its definitions, else by its text), or why it has none. */
export type ChunkOutcome = { chunks: Chunk[]; parsed: boolean } | { skipped: SkipCause; reason?: string };

/** Old-generation heap of each parse thread (the grammars' WebAssembly memory is apart). */
const WORKER_HEAP_MB = 128;

/** Past its budget × 2 plus this, a file's worker is stopped (a hang, not a slow file). */
const HARD_STOP_SLACK_MS = 5_000;

export interface ParsePoolOptions {
  /** Worker threads; default: the machine's cores. */
  threads?: number;
  /** Per-file budget for parse and query; a file past it stays at file level. */
  timeoutMs: number;
  /** Larger files are not parsed. */
  maxBytes: number;
  /** The worker module (default: `pool-worker.js`); its default export takes a `ParseTask`. Tests give one that misbehaves. */
  workerFile?: URL;
}

/**
 * Parses files in a pool of worker threads (piscina), so that a big job
 * never blocks the service's event loop. A file whose worker crashes or
 * hangs (past twice its budget and a few seconds the worker is stopped) is reported as
 * skipped, and the pool goes on with a fresh worker.
 */
export class ParsePool {
  private readonly pool: Piscina;

  constructor(private readonly options: ParsePoolOptions) {
    const threads = options.threads ?? availableParallelism();
    this.pool = new Piscina({
      filename: (options.workerFile ?? new URL('./pool-worker.js', import.meta.url)).href,
      // One thread stays, with its grammars loaded: a one-file sync after a quiet spell does not wait for a thread to start.
      minThreads: 1,
      maxThreads: threads,
      idleTimeout: 30_000,
      // A bounded heap per thread: V8 collects sooner instead of growing every worker to the size of the largest file's
      // matches (the corpus of bench/symbols: pool peak 979 → ~700 MB). A file that needs more fails its worker and is
      // kept at file level (worker_failed), as any crash is.
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 16 },
    });
  }

  async parse(path: string, language: string): Promise<ParseOutcome> {
    const task: ParseTask = { path, language, maxBytes: this.options.maxBytes, timeoutMs: this.options.timeoutMs };
    try {
      // Twice the budget, and room for a new thread to load its grammar (about a second, more on a busy machine).
      return (await this.pool.run(task, { signal: AbortSignal.timeout(this.options.timeoutMs * 2 + HARD_STOP_SLACK_MS) })) as ParseOutcome;
    } catch (error) {
      return { skipped: 'worker_failed', reason: error instanceof Error ? error.message : String(error) };
    }
  }

  /** The file's chunks for search (any text file: a language without a grammar is cut by its text). */
  async chunk(path: string, language: string | null): Promise<ChunkOutcome> {
    const task: ParseTask = { path, language: language ?? '', maxBytes: this.options.maxBytes, timeoutMs: this.options.timeoutMs };
    try {
      return (await this.pool.run(task, {
        name: 'chunkFile',
        signal: AbortSignal.timeout(this.options.timeoutMs * 2 + HARD_STOP_SLACK_MS),
      })) as ChunkOutcome;
    } catch (error) {
      return { skipped: 'worker_failed', reason: error instanceof Error ? error.message : String(error) };
    }
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
