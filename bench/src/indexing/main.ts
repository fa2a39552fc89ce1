/**
 * bench/indexing — the indexing pipeline's first stage on a ≥ 20,000-file repository:
 *   corpus      one git repository holding the bench/grep npm corpus's working trees (built once, cached)
 *   floor       `git ls-files` + reading every file's content once (Node, 16 reads in flight): what Discovery must do
 *   discovery   the first index (every file read) against the floor, and a forced full index
 *               (`index_repo {force: true}`) warm: content the manifest knows and git vouches for is not read
 *   sync        `sync_repo` after changing one file, until the job is completed (client-side), embedded and distributed
 *   poll        `index_status` p50 idle vs while a full job runs (distributed)
 *   memory      peak RSS of the workspace-registry process (distributed) over all of it
 * Usage: npm run bench:indexing [-- --quick]   (corpus under $SEXTANT_BENCH_CORPUS, default <tmp>/sextant-bench-corpus)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
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
import { buildCorpus } from '../grep/corpus.js';
import { buildMonorepo } from './monorepo.js';
import { fullIndex, waitForJob, type JobStatus } from '../jobs.js';
import { summarize, verdict } from '../stats.js';

const quick = process.argv.includes('--quick');
const SYNCS = quick ? 10 : 40;
const POLLS = quick ? 100 : 400;

/** `git ls-files` + every file read once, as Discovery does (16 reads in flight); ms. */
async function floor(dir: string): Promise<number> {
  const started = performance.now();
  const paths = execFileSync('git', ['ls-files', '-z'], { cwd: dir, maxBuffer: 1 << 28 })
    .toString()
    .split('\0')
    .filter(Boolean);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < paths.length) await readFile(join(dir, paths[next++])).catch(() => undefined);
    }),
  );
  return performance.now() - started;
}

/** `sync_repo` after touching one file, `SYNCS` times; ms per sync until completed. */
async function syncs(call: ToolCaller, dir: string): Promise<number[]> {
  const target = join(dir, 'sextant-bench-edit.ts');
  const times: number[] = [];
  for (let i = 0; i < SYNCS + 3; i++) {
    writeFileSync(target, `export const edit = ${i};\n`);
    const started = performance.now();
    const job = await call<{ job_id: string }>('sync_repo', {});
    const status = await waitForJob(call, job.body.job_id);
    if (status.stats.files_indexed !== 1) throw new Error(`a sync re-indexed ${status.stats.files_indexed} files, not 1`);
    if (i >= 3) times.push(performance.now() - started);
  }
  return times;
}

async function pollLatency(call: ToolCaller, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call('index_status', {});
    times.push(performance.now() - started);
  }
  return times;
}

async function main(): Promise<void> {
  const corpusRoot = process.env.SEXTANT_BENCH_CORPUS ?? join(tmpdir(), 'sextant-bench-corpus');
  buildCorpus(corpusRoot);
  const { dir, files } = buildMonorepo(corpusRoot);
  console.log(`bench/indexing: one repository of ${files} files (${dir}); ${SYNCS} one-file syncs per mode`);
  const floorMs = Math.min(await floor(dir), await floor(dir));
  const processes: RunningProcess[] = [];
  const work = mkdtempSync(join(tmpdir(), 'sextant-bench-indexing-'));
  const infra = await infrastructure();
  const db = await createTestDatabase(infra.postgresUrl, 'sextant_bench_indexing');
  try {
    // Embedded.
    const embedded = await startNode('apps/sextant/dist/main.js', [], {
      // The pipeline's own stages (Discovery, Finalizing): the symbols stage has its own bench (bench/symbols).
      env: {
        SEXTANT_PORT: '0',
        SEXTANT_AUTH: 'off',
        SEXTANT_DATA_DIR: join(work, 'embedded'),
        SEXTANT_WORKSPACE: dir,
        LOG_LEVEL: 'info',
        SEXTANT_INDEXING_STAGES: 'none',
      },
      readyWhen: READY.embedded,
      timeoutMs: 60_000,
    });
    processes.push(embedded);
    const embeddedCall = leanCaller((await embedded.waitFor(READY.embedded))[1]);
    const first = await fullIndex(embeddedCall); // the first index: nothing known, every file read (page cache warm from the floor)
    const warm = await fullIndex(embeddedCall); // forced again: content the manifest knows and git vouches for is not read
    const embeddedSyncs = await syncs(embeddedCall, dir);
    embeddedCall.close();
    await embedded.stop();

    // Distributed: workspace-registry and the gateway as their own processes, NATS, Postgres.
    const registry = await startService('workspace-registry', {
      NATS_URL: infra.natsUrl,
      DATABASE_URL: db.url,
      SEXTANT_WORKSPACE: dir,
      SEXTANT_DATA_DIR: join(work, 'distributed'),
      LOG_LEVEL: 'info',
      SEXTANT_INDEXING_STAGES: 'none',
    });
    const gateway = await startGateway(infra.natsUrl, { SEXTANT_SERVICES: 'workspace-registry' });
    processes.push(registry, gateway.process);
    // Ready once /health says every service of the installation answers.
    for (let i = 0; i < 100 && (await fetch(gateway.url.replace('/mcp', '/health'))).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 100));
    const call = leanCaller(gateway.url);
    const firstDistributed = await fullIndex(call);
    const warmDistributed = await fullIndex(call);
    const idle = summarize(await pollLatency(call, POLLS)).p50;
    const job = await call<{ job_id: string }>('index_repo', { force: true });
    const busy: number[] = [];
    for (;;) {
      busy.push(...(await pollLatency(call, 10)));
      const status = await call<JobStatus>('get_index_job_status', { runId: job.body.job_id });
      if (status.body.status !== 'running' && status.body.status !== 'pending') break;
    }
    const distributedSyncs = await syncs(call, dir);
    const peak = (await memory(registry.pid)).peak;
    call.close();

    const discoveryMs = warm.timings_ms?.discovery ?? warm.elapsedMs;
    const discoveryRate = (files / discoveryMs) * 1000;
    const firstMs = first.timings_ms?.discovery ?? first.elapsedMs;
    const e = summarize(embeddedSyncs);
    const d = summarize(distributedSyncs);
    const busyP50 = summarize(busy).p50;
    console.log(`floor: git ls-files + read every file   ${floorMs.toFixed(0)} ms  (${((files / floorMs) * 1000).toFixed(0)} files/s)`);
    const line = (label: string, job: typeof warm) => {
      const ms = job.timings_ms?.discovery ?? job.elapsedMs;
      console.log(
        `${label.padEnd(38)}discovery ${ms} ms (${((files / ms) * 1000).toFixed(0)} files/s), finalizing ${job.timings_ms?.finalizing} ms, job ${job.elapsedMs.toFixed(0)} ms`,
      );
    };
    line('first index, every file read (embedded)', first);
    line('full index, warm (embedded)', warm);
    line('first index (distributed)', firstDistributed);
    line('full index, warm (distributed)', warmDistributed);
    console.log(
      `sync_repo, one file changed           embedded p50 ${e.p50.toFixed(1)} ms p99 ${e.p99.toFixed(1)} ms   distributed p50 ${d.p50.toFixed(1)} ms p99 ${d.p99.toFixed(1)} ms`,
    );
    console.log(
      `index_status                          idle p50 ${idle.toFixed(2)} ms, during a full job p50 ${busyP50.toFixed(2)} ms (${busy.length} calls)`,
    );
    console.log(`workspace-registry peak RSS           ${(peak / 2 ** 20).toFixed(0)} MB`);
    console.log('\ntargets:');
    console.log(verdict(discoveryRate >= 20_000, 'Discovery ≥ 20,000 files/s warm', `${discoveryRate.toFixed(0)} files/s`));
    console.log(
      verdict(
        firstMs <= 1.5 * floorMs,
        'Discovery reading every file (first index) ≤ 1.5 × (git ls-files + read every file)',
        `ratio ${(firstMs / floorMs).toFixed(2)}`,
      ),
    );
    console.log(verdict(e.p50 < 300, 'sync_repo one file, embedded p50 < 300 ms', `${e.p50.toFixed(1)} ms`));
    console.log(verdict(d.p50 < 300, 'sync_repo one file, distributed p50 < 300 ms', `${d.p50.toFixed(1)} ms`));
    console.log(verdict(peak < 300 * 2 ** 20, 'workspace-registry peak RSS < 300 MB', `${(peak / 2 ** 20).toFixed(0)} MB`));
    console.log(verdict(busyP50 <= 2 * idle, 'index_status p50 during a job ≤ 2 × idle', `ratio ${(busyP50 / idle).toFixed(2)}`));
  } finally {
    for (const p of processes) await p.stop();
    await db.drop();
    await infra.stop();
    rmSync(join(dir, 'sextant-bench-edit.ts'), { force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
