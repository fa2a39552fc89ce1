import { availableParallelism } from 'node:os';
import { currentLane, workBudgets, type Lane } from '@sextant/work';
import { Piscina } from 'piscina';
import type { Chunk } from './chunk.js';
import type { Extraction } from './extraction.js';
import type { LocalDefinition } from './locals.js';
import type { PackedReferences } from './packed.js';

/** One file to parse: its absolute path and language (as `languageOf` names it). */
export interface ParseTask {
  path: string;
  language: string;
  maxBytes: number;
  timeoutMs: number;
  /** For `chunkFile`: the hook the chunks go through in the worker, and the file's path as the hook sees it (in its repository). */
  hook?: { module: string; options: unknown; path: string };
}

/**
 * A use of `name` in a file (1-based line; 0-based column, else its first use of `name` on the line: one of the two is
 * needed), for `localDefinition`; `uses`: with the local's other uses.
 */
export interface LocalTask extends ParseTask {
  name: string | undefined;
  line: number;
  column: number | undefined;
  uses?: boolean;
}

/**
 * Work a consumer of chunks does on each file's chunks inside the parse
 * worker (the default export of a module given as `ParsePoolOptions.chunkHook`):
 * CPU work per chunk — lexemes, built-in embeddings — off the service's event
 * loop. It returns the chunks with what it added.
 */
export type ChunkHook<T extends Chunk = Chunk> = (chunks: Chunk[], file: { path: string }, options: unknown) => T[];

export type SkipCause =
  'unsupported_language' | 'grammar_unavailable' | 'unreadable' | 'too_large' | 'binary' | 'time_budget' | 'worker_failed';

/** What parsing a file gave: its definitions, imports and references (packed per name), or why it stays at file level. */
export type ParseOutcome =
  | (Omit<Extraction, 'references'> & { references: PackedReferences[]; referenceCount: number; bytes: number })
  | { skipped: SkipCause; reason?: string };

/** A file's chunks for search (`parsed`: by its definitions, else by its text), or why it has none. */
export type ChunkOutcome<T extends Chunk = Chunk> = { chunks: T[]; parsed: boolean } | { skipped: SkipCause; reason?: string };

/**
 * Old-generation heap of each parse thread (the grammars' WebAssembly memory is apart). Under a 128 MB cap the pool
 * took about a seventh more CPU on the same files (every 4th of the bench/symbols corpus, alternating runs: 65 and
 * 57 CPU seconds), and a large file could run past its budget collecting; a thread may now use up to about 300 MB
 * with its young generation and grammars (docs/adr/0066).
 */
const WORKER_HEAP_MB = 256;
/**
 * Young generation of each parse thread: a query's matches are millions of short-lived objects. At 16 MB the
 * workers spent ~15% of their time collecting; 48 MB parses a quarter of the bench corpus ~9% sooner (26.6 → 24.1 s,
 * two threads) for 40–80 MB more resident memory.
 */
const WORKER_YOUNG_MB = 48;

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
  /** A module whose default export is a `ChunkHook`, run in the worker on every file's chunks, with these options. */
  chunkHook?: { module: URL; options: unknown };
}

/**
 * Parses files in a pool of worker threads (piscina), so that a big job
 * never blocks the service's event loop. A file whose worker crashes or
 * hangs (past twice its budget and a few seconds the worker is stopped) is reported as
 * skipped, and the pool goes on with a fresh worker.
 */
export class ParsePool {
  private readonly pool: Piscina;
  /** Tasks handed to piscina at most: a file's time limit starts when it is handed over, so the rest wait here. */
  private readonly slots: number;
  private running = 0;
  /** Tasks waiting for a slot: a caller's (go to definition) ahead of an indexing job's files, each in arrival order. */
  private readonly waiting: Record<Lane, Array<() => void>> = { interactive: [], background: [] };

  constructor(private readonly options: ParsePoolOptions) {
    const threads = options.threads ?? availableParallelism();
    this.slots = threads * 2;
    this.pool = new Piscina({
      filename: (options.workerFile ?? new URL('./pool-worker.js', import.meta.url)).href,
      // One thread stays, with its grammars loaded: a one-file sync after a quiet spell does not wait for a thread to start.
      minThreads: 1,
      maxThreads: threads,
      idleTimeout: 30_000,
      // A bounded heap per thread: a file whose matches need more fails its worker and is kept at file level
      // (worker_failed), as any crash is, instead of growing the thread past what its pod may use.
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
    });
  }

  async parse(path: string, language: string): Promise<ParseOutcome> {
    const task: ParseTask = { path, language, maxBytes: this.options.maxBytes, timeoutMs: this.options.timeoutMs };
    return this.run<ParseOutcome>(task, undefined);
  }

  /**
   * The parameter or local variable `name` denotes at `line`(:`column`) of a file (`localDefinitionAt`), with its
   * other uses when `uses`; null: none.
   */
  async localDefinition(
    path: string,
    language: string,
    name: string | undefined,
    line: number,
    column: number | undefined,
    uses = false,
  ): Promise<LocalDefinition | null> {
    const task: LocalTask = { path, language, name, line, column, uses, maxBytes: this.options.maxBytes, timeoutMs: this.options.timeoutMs };
    const outcome = await this.run<LocalDefinition | null>(task, 'localDefinition');
    return outcome !== null && 'skipped' in outcome ? null : outcome;
  }

  /**
   * Runs a task in a worker once a slot is free; a task past twice its
   * budget and room for a new thread to load its grammar (about a second,
   * more on a busy machine) is stopped, and reported as `worker_failed`.
   */
  private async run<T>(task: ParseTask, name: string | undefined): Promise<T | { skipped: 'worker_failed'; reason: string }> {
    // A slot is taken, or handed over by the task that frees it.
    if (this.running < this.slots) this.running++;
    else await new Promise<void>((resolve) => this.waiting[currentLane()].push(resolve));
    try {
      // Then one of the process's parse slots: every pool of the process shares that limit.
      return await workBudgets.parses.run(
        async () =>
          (await this.pool.run(task, {
            ...(name ? { name } : {}),
            signal: AbortSignal.timeout(this.options.timeoutMs * 2 + HARD_STOP_SLACK_MS),
          })) as T,
      );
    } catch (error) {
      return { skipped: 'worker_failed', reason: error instanceof Error ? error.message : String(error) };
    } finally {
      const next = this.waiting.interactive.shift() ?? this.waiting.background.shift();
      if (next) next();
      else this.running--;
    }
  }

  /**
   * The file's chunks for search (any text file: a language without a grammar
   * is cut by its text), through the pool's chunk hook if it has one (`label`:
   * the file's path as the hook sees it; default `path`).
   */
  async chunk<T extends Chunk = Chunk>(path: string, language: string | null, label = path): Promise<ChunkOutcome<T>> {
    const hook = this.options.chunkHook;
    const task: ParseTask = {
      path,
      language: language ?? '',
      maxBytes: this.options.maxBytes,
      timeoutMs: this.options.timeoutMs,
      ...(hook ? { hook: { module: hook.module.href, options: hook.options, path: label } } : {}),
    };
    return this.run<ChunkOutcome<T>>(task, 'chunkFile');
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
