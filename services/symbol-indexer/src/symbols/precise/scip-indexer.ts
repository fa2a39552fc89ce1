import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnWithin, type Spawner } from '@sextant/checkouts';
import { workBudgets } from '@sextant/work';

/** The child reports its peak resident memory on its last line of stderr (Node's own count, in kB). */
const RSS_MARK = 'sextant-max-rss-kb';
const REPORT_RSS = `data:text/javascript,process.on("exit",()=>process.stderr.write("\\n${RSS_MARK} "+process.resourceUsage().maxRSS+"\\n"))`;

/** Output kept from the child for its failure message. */
const TAIL_BYTES = 4_096;

export interface IndexerLimits {
  /** Killed past this. */
  timeoutMs: number;
  /** V8's heap cap (`--max-old-space-size`); past it the child dies of out-of-memory. */
  maxMemoryMb: number;
  /** An index file larger than this is not read. */
  maxIndexBytes: number;
}

/** Why a run gave no index: the job's warning names it (`precise_failed_<cause>`). */
type IndexerFailure = 'time_budget' | 'out_of_memory' | 'crashed' | 'no_index' | 'index_too_large';

/** What a run gave: the index's bytes, or why there is none (the cause, and a sentence for the log). */
export type IndexerRun =
  { ok: true; bytes: Uint8Array; ms: number; peakRssMb: number | null } | { ok: false; cause: IndexerFailure; reason: string; ms: number };

/**
 * A SCIP indexer that runs on Node: its name (for messages), its entry point, and how it is told to index a
 * checkout into `output`, with whatever configuration it needs written under `temp` (never into the checkout).
 */
export interface ScipIndexer {
  readonly name: string;
  readonly main: string;
  arguments(checkout: string, temp: string, output: string): Promise<string[]>;
}

/**
 * Runs a SCIP indexer on a checkout, in a child Node process with a heap cap, a time budget and one slot of the
 * process's `indexers` budget (the background lane: a caller's work goes first), in a temporary directory that is
 * removed afterwards.
 */
export async function runScipIndexer(
  spawner: Spawner,
  indexer: ScipIndexer,
  checkout: string,
  options: { env: NodeJS.ProcessEnv; limits: IndexerLimits; signal: AbortSignal },
): Promise<IndexerRun> {
  const started = performance.now();
  const temp = await mkdtemp(join(tmpdir(), 'sextant-scip-'));
  const { name } = indexer;
  const { limits } = options;
  try {
    const output = join(temp, 'index.scip');
    const args = await indexer.arguments(checkout, temp, output);
    let tail = '';
    const keep = (chunk: Buffer) => (tail = (tail + chunk.toString('utf8')).slice(-TAIL_BYTES));
    const child = spawnWithin(
      spawner,
      {
        command: process.execPath,
        args: [`--max-old-space-size=${limits.maxMemoryMb}`, '--import', REPORT_RSS, indexer.main, ...args],
        cwd: temp,
        env: options.env,
      },
      { stdout: keep, stderr: keep },
      limits.timeoutMs,
      workBudgets.indexers,
    );
    // The service is stopping: the indexer goes with it rather than holding the shutdown for its whole budget.
    const stop = () => child.kill();
    options.signal.addEventListener('abort', stop, { once: true });
    const status = await child.exit.finally(() => options.signal.removeEventListener('abort', stop));
    const ms = Math.round(performance.now() - started);
    const rss = new RegExp(`${RSS_MARK} (\\d+)`).exec(tail);
    const said = lastLines(tail.replace(new RegExp(`${RSS_MARK} \\d+`), ''));
    if (status.timedOut)
      return { ok: false, ms, cause: 'time_budget', reason: `${name} ran past its time budget of ${limits.timeoutMs} ms and was stopped` };
    if (/heap out of memory|Allocation failed/i.test(tail))
      return { ok: false, ms, cause: 'out_of_memory', reason: `${name} ran out of memory (heap cap ${limits.maxMemoryMb} MB)` };
    if (status.code !== 0)
      return {
        ok: false,
        ms,
        cause: 'crashed',
        reason: `${name} failed (${status.signal ?? `exit ${status.code}`}): ${said || 'no output'}`,
      };
    const size = await stat(output).catch(() => undefined);
    if (!size) return { ok: false, ms, cause: 'no_index', reason: `${name} wrote no index: ${said || 'no output'}` };
    if (size.size > limits.maxIndexBytes) {
      return {
        ok: false,
        ms,
        cause: 'index_too_large',
        reason: `${name} wrote an index of ${size.size} bytes, over the limit of ${limits.maxIndexBytes}`,
      };
    }
    return { ok: true, bytes: await readFile(output), ms, peakRssMb: rss ? Math.round(Number(rss[1]) / 1024) : null };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' | ').slice(0, 500);
}
