/**
 * bench/symbols — the symbols stage and the symbol tools on the bench monorepo (≥ 20,000 files, npm sources) with,
 * for a multi-language corpus, the Go and Python sources the machine holds (Go's standard library: `apt-get install
 * golang-go`; Python's and the packages Debian installed, with Debian's python3), copied beside it:
 *   raw         web-tree-sitter parse + query of every parseable file, one thread (grammars loaded before the clock
 *               starts): the floor per core
 *   raw, N      the same split over one thread per core (files dealt round-robin, grammars loaded before the clock
 *               starts): what this machine gives the floor itself in parallel, with no pool, extraction or storage
 *   extraction  `extract` (parse, query and what the index keeps of it) the same way, results dropped: the cost of
 *               extraction apart from the pool's (reading, transfer to the main thread)
 *   pool only   every parseable file through the parse pool (one thread per core, extraction included), results
 *               dropped: what a full index would take if storing cost nothing (the ceiling of any storage design)
 *   full index  `index_repo {force: true}` with the symbols stage (parse pool + storage), embedded: MB/s per core vs raw,
 *               and the CPU the process used meanwhile (how many cores it kept busy)
 *   sync        edit one file, `sync_repo`, until the new symbol is found by `locate_symbol` (end to end), embedded
 *   queries     `locate_symbol`, `get_file_outline`, `find_references`, `get_code_context` and
 *               `analyze_change_impact` (two levels of dependents) p50 through the gateway, embedded and distributed
 *   memory      peak RSS of the symbol-indexer process (distributed) while it indexes the corpus
 * Usage: npm run bench:symbols [-- --quick]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ParsePool } from '@sextant/parsing';
import {
  cpuMs,
  createTestDatabase,
  infrastructure,
  leanCaller,
  memory,
  READY,
  startGateway,
  startNode,
  startService,
  type RunningProcess,
  type ToolCaller,
} from '@sextant/testing';
import { fullIndex, waitForJob } from '../jobs.js';
import { summarize, verdict } from '../stats.js';
import { MAX_BYTES, symbolsCorpus, type ParseableFile } from './corpus.js';

const quick = process.argv.includes('--quick');
const SYNCS = quick ? 5 : 20;
const QUERIES = quick ? 50 : 200;

/**
 * Raw parse + query (no nesting, no storage), or `extract` alone, on `threads` threads (`parallel-worker.ts`; one
 * thread: the floor), files dealt round-robin, timed once every thread has its grammars: MB/s.
 */
async function parallel(
  what: 'raw' | 'extract',
  dir: string,
  files: ParseableFile[],
  threads: number,
): Promise<{ mbPerSecond: number; seconds: number }> {
  const workers = Array.from(
    { length: threads },
    (_, t) =>
      new Worker(new URL('./parallel-worker.js', import.meta.url), {
        workerData: { dir, what, files: files.filter((_, i) => i % threads === t) },
      }),
  );
  const next = (worker: Worker) =>
    new Promise<unknown>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  await Promise.all(workers.map(next));
  const started = performance.now();
  const done = workers.map(next);
  for (const worker of workers) worker.postMessage('go');
  const bytes = ((await Promise.all(done)) as number[]).reduce((a, b) => a + b, 0);
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(workers.map((w) => w.terminate()));
  return { mbPerSecond: bytes / 2 ** 20 / seconds, seconds };
}

/** Every file through the parse pool, one thread per core, as the symbols stage parses them; results dropped: MB/s. */
async function poolOnly(dir: string, files: ParseableFile[]): Promise<{ mbPerSecond: number; seconds: number }> {
  const threads = availableParallelism();
  // The symbol indexer's per-file time budget (SYMBOLS_FILE_TIMEOUT_MS) and the corpus's size cap.
  const pool = new ParsePool({ threads, timeoutMs: 2_000, maxBytes: MAX_BYTES });
  let next = 0;
  let bytes = 0;
  const started = performance.now();
  try {
    // As many files in flight as the stage keeps (two per thread).
    const lane = async () => {
      for (let i = next++; i < files.length; i = next++) {
        const outcome = await pool.parse(join(dir, files[i].path), files[i].language);
        if (!('skipped' in outcome)) bytes += outcome.bytes;
      }
    };
    await Promise.all(Array.from({ length: threads * 2 }, lane));
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return { mbPerSecond: bytes / 2 ** 20 / seconds, seconds };
}

/** Edit one file, sync, until locate_symbol finds the new name: ms each. */
async function syncs(call: ToolCaller, dir: string): Promise<number[]> {
  const target = join(dir, 'sextant-bench-symbols.ts');
  const times: number[] = [];
  for (let i = 0; i < SYNCS + 2; i++) {
    const name = `benchSymbol${Date.now()}x${i}`;
    writeFileSync(target, `export function ${name}() { return ${i}; }\n`);
    const started = performance.now();
    const job = await call<{ job_id: string }>('sync_repo', {});
    await waitForJob(call, job.body.job_id);
    const found = await call<{ definitions: unknown[] }>('locate_symbol', { name });
    if (found.isError || found.body.definitions.length !== 1)
      throw new Error(`${name} not found after the sync: ${JSON.stringify(found.body)}`);
    if (i >= 2) times.push(performance.now() - started);
  }
  rmSync(target, { force: true });
  return times;
}

/** The symbol tools measured, each with its arguments for the i-th call (names and files sampled from the corpus) and its p50 target. */
const QUERIED: Array<{
  tool: string;
  target: number;
  args: (i: number, samples: { names: string[]; paths: string[] }) => Record<string, unknown>;
}> = [
  { tool: 'locate_symbol', target: 5, args: (i, s) => ({ name: s.names[i % s.names.length] }) },
  { tool: 'get_file_outline', target: 5, args: (i, s) => ({ path: s.paths[i % s.paths.length] }) },
  { tool: 'find_references', target: 15, args: (i, s) => ({ name: s.names[i % s.names.length] }) },
  { tool: 'get_code_context', target: 50, args: (i, s) => ({ name: s.names[i % s.names.length] }) },
  { tool: 'analyze_change_impact', target: 50, args: (i, s) => ({ files: [s.paths[i % s.paths.length]] }) },
];

/**
 * p50 of each tool of QUERIED through the gateway, in turns (one call of each per round); and `cold`, the p50 of the
 * first ten rounds alone (each sample asked for the first time since an index change: the facts kept for binding are
 * read again, except those an earlier sample of the round already read).
 */
async function queries(
  call: ToolCaller,
  samples: { names: string[]; paths: string[] },
): Promise<{ warm: Map<string, number>; cold: Map<string, number> }> {
  const times = new Map<string, number[]>(QUERIED.map((q) => [q.tool, []]));
  const first = Math.max(samples.names.length, samples.paths.length);
  for (let i = 0; i < QUERIES; i++) {
    for (const q of QUERIED) {
      const started = performance.now();
      const answer = await call(q.tool, q.args(i, samples));
      times.get(q.tool)!.push(performance.now() - started);
      if (answer.isError) throw new Error(`${q.tool}: ${JSON.stringify(answer.body)}`);
    }
  }
  return {
    warm: new Map([...times].map(([tool, t]) => [tool, summarize(t).p50])),
    cold: new Map([...times].map(([tool, t]) => [tool, summarize(t.slice(0, Math.min(first, 10))).p50])),
  };
}

const line = (p50s: ReadonlyMap<string, number>) => [...p50s].map(([tool, p50]) => `${tool} ${p50.toFixed(2)}`).join(', ');

async function main(): Promise<void> {
  const { dir, total, languages, files } = symbolsCorpus();
  const megabytes = files.reduce((n, f) => n + f.bytes, 0) / 2 ** 20;
  const cores = availableParallelism();
  const byLanguage = new Map<string, number>();
  for (const f of files) byLanguage.set(f.language, (byLanguage.get(f.language) ?? 0) + f.bytes);
  const mix = [...byLanguage]
    .sort((a, b) => b[1] - a[1])
    .map(([language, bytes]) => `${language} ${(bytes / 2 ** 20).toFixed(0)}`)
    .join(', ');
  console.log(
    `bench/symbols: ${dir} (${languages.join(' + ')}): ${total} files, ${files.length} parseable (${megabytes.toFixed(0)} MB: ${mix}); ${cores} cores`,
  );
  const floor = await parallel('raw', dir, files, 1);
  console.log(`raw parse + query, one thread         ${floor.mbPerSecond.toFixed(2)} MB/s (${floor.seconds.toFixed(1)} s)`);
  const perCoreOf = (run: { mbPerSecond: number; seconds: number }) =>
    `${run.seconds.toFixed(1)} s, ${(run.mbPerSecond / cores).toFixed(2)} MB/s per core (${(run.mbPerSecond / cores / floor.mbPerSecond).toFixed(2)} × raw)`;
  console.log(`raw parse + query, ${cores} threads           ${perCoreOf(await parallel('raw', dir, files, cores))}: the floor itself in parallel`);
  console.log(`extraction alone, ${cores} threads            ${perCoreOf(await parallel('extract', dir, files, cores))}: no pool, transfer or storage`);
  const ceiling = await poolOnly(dir, files);
  console.log(`parse pool only, ${cores} threads, no storage   ${perCoreOf(ceiling)}: the full index's ceiling`);

  const samples = {
    names: ['createServer', 'Observable', 'parse', 'format', 'EventEmitter', 'Router', 'compile', 'debounce', 'isObject', 'render'],
    // Every file of the corpus equally likely: a stride through all parseable files (200 of them).
    paths: files.filter((_, i) => i % Math.max(1, Math.floor(files.length / 200)) === 0).map((f) => f.path),
  };
  const processes: RunningProcess[] = [];
  const work = mkdtempSync(join(tmpdir(), 'sextant-bench-symbols-'));
  const infra = await infrastructure();
  const db = await createTestDatabase(infra.postgresUrl, 'sextant_bench_symbols');
  try {
    const embedded = await startNode('apps/sextant/dist/main.js', [], {
      env: {
        SEXTANT_PORT: '0',
        SEXTANT_AUTH: 'off',
        SEXTANT_DATA_DIR: join(work, 'embedded'),
        SEXTANT_WORKSPACE: dir,
        SEXTANT_INDEXING_STAGES: 'symbols',
        LOG_LEVEL: 'info',
      },
      readyWhen: READY.embedded,
      timeoutMs: 60_000,
    });
    processes.push(embedded);
    const call = leanCaller((await embedded.waitFor(READY.embedded))[1]);
    const cpuBefore = await cpuMs(embedded.pid);
    const full = await fullIndex(call);
    const cpuSeconds = ((await cpuMs(embedded.pid)) - cpuBefore) / 1000;
    const seconds = full.elapsedMs / 1000;
    const perCore = megabytes / seconds / cores;
    console.log(
      `full index with symbols (embedded)    ${seconds.toFixed(1)} s, ${(megabytes / seconds).toFixed(2)} MB/s (${perCore.toFixed(2)} MB/s per core), ${full.stats.symbols_extracted} symbols`,
    );
    // Near `cores`: this process kept every core busy, and only less CPU per MB makes the index faster; well below it: its
    // threads waited (on each other, on I/O, or for CPU other processes took; its children, git, are not counted).
    console.log(
      `  CPU of the process meanwhile         ${cpuSeconds.toFixed(1)} s (user + system), ${(cpuSeconds / seconds).toFixed(2)} of ${cores} cores busy on average`,
    );
    const sync = summarize(await syncs(call, dir));
    console.log(`sync one file → symbol found          p50 ${sync.p50.toFixed(1)} ms p99 ${sync.p99.toFixed(1)} ms`);
    // After the syncs: the first round is the first answer of each name since the index changed.
    const { warm: embeddedQueries, cold: embeddedCold } = await queries(call, samples);
    console.log(`queries p50 ms (embedded)             ${line(embeddedQueries)}`);
    console.log(`  first ask of each after a sync      ${line(embeddedCold)}`);
    call.close();
    await embedded.stop();

    const env = { NATS_URL: infra.natsUrl, DATABASE_URL: db.url, LOG_LEVEL: 'info' };
    // The symbols stage alone: this bench measures it (search's vectors stage has its own bench).
    const registry = await startService('workspace-registry', {
      ...env,
      SEXTANT_WORKSPACE: dir,
      SEXTANT_DATA_DIR: join(work, 'registry'),
      SEXTANT_INDEXING_STAGES: 'symbols',
    });
    const symbols = await startService('symbol-indexer', { ...env, SEXTANT_DATA_DIR: join(work, 'symbols') });
    const gateway = await startGateway(infra.natsUrl, { SEXTANT_SERVICES: 'workspace-registry,symbol-indexer' });
    processes.push(registry, symbols, gateway.process);
    for (let i = 0; i < 100 && (await fetch(gateway.url.replace('/mcp', '/health'))).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 100));
    const remote = leanCaller(gateway.url);
    const distributedFull = await fullIndex(remote);
    console.log(`full index with symbols (distributed) ${(distributedFull.elapsedMs / 1000).toFixed(1)} s`);
    const { warm: distributedQueries, cold: distributedCold } = await queries(remote, samples);
    console.log(`queries p50 ms (distributed)          ${line(distributedQueries)}`);
    console.log(`  first ask of each after the index   ${line(distributedCold)}`);
    const peak = (await memory(symbols.pid)).peak;
    console.log(`symbol-indexer peak RSS               ${(peak / 2 ** 20).toFixed(0)} MB`);
    remote.close();

    console.log('\ntargets:');
    console.log(
      verdict(
        perCore >= 0.5 * floor.mbPerSecond,
        'full index ≥ 0.5 × raw parse+query per core',
        `${(perCore / floor.mbPerSecond).toFixed(2)} ×`,
      ),
    );
    console.log(verdict(sync.p50 < 300, 'sync one file, symbols updated end to end p50 < 300 ms', `${sync.p50.toFixed(1)} ms`));
    for (const [mode, q] of [
      ['embedded', embeddedQueries],
      ['distributed', distributedQueries],
    ] as const) {
      for (const { tool, target } of QUERIED) {
        const p50 = q.get(tool)!;
        console.log(verdict(p50 <= target, `${tool} p50 ≤ ${target} ms (${mode})`, `${p50.toFixed(2)} ms`));
      }
    }
    console.log(verdict(peak < 2 ** 30, 'symbol-indexer peak RSS < 1 GB', `${(peak / 2 ** 20).toFixed(0)} MB`));
  } finally {
    for (const p of processes) await p.stop();
    await db.drop();
    await infra.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
