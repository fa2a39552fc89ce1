import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnWithin, VENDORED_DIRECTORIES, type Spawner } from '@sextant/checkouts';
import { workBudgets } from '@sextant/work';
import { workspacePaths } from './workspace-packages.js';

/** The indexer's entry point, from the installed package (a dependency of this service). */
const MAIN = join(dirname(createRequire(import.meta.url).resolve('@sourcegraph/scip-typescript/package.json')), 'dist/src/main.js');

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
type IndexerRun =
  { ok: true; bytes: Uint8Array; ms: number; peakRssMb: number | null } | { ok: false; cause: IndexerFailure; reason: string; ms: number };

/**
 * Runs `@sourcegraph/scip-typescript` on a checkout, in a child Node process with a heap cap, a time budget and one
 * slot of the process's `indexers` budget (the background lane: a caller's work goes first). Its configuration is
 * generated, never the repository's own, and written to a temporary directory, never into the checkout: every
 * TypeScript file under the root except vendored directories, or every JavaScript file when there is no TypeScript
 * (what the indexer's `--infer-tsconfig` would write at the root: measured better than repositories' own tsconfigs,
 * which leave tests out or index files several times), with a monorepo's workspace packages as `paths`.
 */
export async function runScipTypescript(
  spawner: Spawner,
  checkout: string,
  options: { javascriptOnly: boolean; env: NodeJS.ProcessEnv; limits: IndexerLimits; signal: AbortSignal },
): Promise<IndexerRun> {
  const started = performance.now();
  const temp = await mkdtemp(join(tmpdir(), 'sextant-scip-'));
  try {
    const config = join(temp, 'tsconfig.json');
    const output = join(temp, 'index.scip');
    await writeFile(config, JSON.stringify(await generatedConfig(checkout, options.javascriptOnly)));
    let tail = '';
    const keep = (chunk: Buffer) => (tail = (tail + chunk.toString('utf8')).slice(-TAIL_BYTES));
    const child = spawnWithin(
      spawner,
      {
        command: process.execPath,
        args: [
          `--max-old-space-size=${options.limits.maxMemoryMb}`,
          '--import',
          REPORT_RSS,
          MAIN,
          'index',
          '--cwd',
          checkout,
          '--output',
          output,
          '--no-progress-bar',
          config,
        ],
        cwd: temp,
        env: options.env,
      },
      { stdout: keep, stderr: keep },
      options.limits.timeoutMs,
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
      return {
        ok: false,
        ms,
        cause: 'time_budget',
        reason: `scip-typescript ran past its time budget of ${options.limits.timeoutMs} ms and was stopped`,
      };
    if (/heap out of memory|Allocation failed/i.test(tail)) {
      return {
        ok: false,
        ms,
        cause: 'out_of_memory',
        reason: `scip-typescript ran out of memory (heap cap ${options.limits.maxMemoryMb} MB)`,
      };
    }
    if (status.code !== 0) {
      return {
        ok: false,
        ms,
        cause: 'crashed',
        reason: `scip-typescript failed (${status.signal ?? `exit ${status.code}`}): ${said || 'no output'}`,
      };
    }
    const size = await stat(output).catch(() => undefined);
    if (!size) return { ok: false, ms, cause: 'no_index', reason: `scip-typescript wrote no index: ${said || 'no output'}` };
    if (size.size > options.limits.maxIndexBytes) {
      return {
        ok: false,
        ms,
        cause: 'index_too_large',
        reason: `scip-typescript wrote an index of ${size.size} bytes, over the limit of ${options.limits.maxIndexBytes}`,
      };
    }
    return { ok: true, bytes: await readFile(output), ms, peakRssMb: rss ? Math.round(Number(rss[1]) / 1024) : null };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

async function generatedConfig(root: string, javascriptOnly: boolean): Promise<object> {
  const paths = await workspacePaths(root);
  return {
    compilerOptions: {
      ...(javascriptOnly ? { allowJs: true } : {}),
      noEmit: true,
      // A monorepo's imports of its own packages, to their sources (a checkout has no node_modules to link them).
      ...(Object.keys(paths).length > 0 ? { paths } : {}),
      // The configuration lives elsewhere: the repository's own type packages are named where they are.
      typeRoots: [join(root, 'node_modules/@types')],
    },
    include: [join(root, '**/*')],
    exclude: VENDORED_DIRECTORIES.map((d) => join(root, '**', d)),
  };
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' | ').slice(0, 500);
}
