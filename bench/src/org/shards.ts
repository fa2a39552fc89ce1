/**
 * bench/org --shards: the org indexed in distributed mode with 2 shards of each indexer (symbol-indexer and
 * vector-search, SEXTANT_SHARDS), over NATS and Postgres (TEST_NATS_URL / TEST_DATABASE_URL, else the local ports), and
 * how the work split between the shards: the repositories each shard's process cloned (its checkouts), their files,
 * and its CPU time (/proc); and each process's peak RSS (VmHWM), which a run with fewer repositories
 * (`--repositories N`) compares: what grows with the number of repositories.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  cpuMs,
  createTestDatabase,
  GitDaemon,
  infrastructure,
  leanCaller,
  memory,
  startGateway,
  startService,
  type RunningProcess,
} from '@sextant/testing';
import { verdict } from '../stats.js';

interface Org {
  root: string;
  repositories: ReadonlyArray<{ name: string; files: number }>;
}

export async function shards(org: Org, inFlight: number): Promise<void> {
  const infra = await infrastructure();
  const db = await createTestDatabase(infra.postgresUrl, 'sextant_bench_org_shards');
  const daemon = await GitDaemon.start(org.root);
  const work = mkdtempSync(join(tmpdir(), 'sxo-shards-'));
  const processes: RunningProcess[] = [];
  const client = new pg.Client({ connectionString: db.url });
  const sharded = { SEXTANT_SHARDS: 'symbol-indexer=2,vector-search=2', GIT_ALLOWED_HOSTS: daemon.host };
  const base = { NATS_URL: infra.natsUrl, DATABASE_URL: db.url, LOG_LEVEL: 'info', ...sharded };
  try {
    processes.push(await startService('workspace-registry', { ...base, SEXTANT_DATA_DIR: join(work, 'registry') }));
    const workers = new Map<number, string>();
    for (const service of ['symbol-indexer', 'vector-search']) {
      for (const index of [0, 1]) {
        const p = await startService(service, {
          ...base,
          SEXTANT_SHARD: String(index),
          SEXTANT_DATA_DIR: join(work, `${service}-${index}`),
        });
        processes.push(p);
        workers.set(p.pid, `${service} shard ${index}`);
      }
    }
    const gateway = await startGateway(infra.natsUrl, {
      ...sharded,
      SEXTANT_SERVICES: 'workspace-registry,symbol-indexer,vector-search',
      SEXTANT_RATE_LIMIT_PER_MINUTE: '1000000',
      SEXTANT_RATE_LIMIT_BURST: '1000000',
    });
    processes.push(gateway.process);
    const call = leanCaller(gateway.url);
    await client.connect();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < org.repositories.length) {
          const { name } = org.repositories[next++];
          const answer = await call('index_repository', { repository: daemon.url(name) });
          if (answer.isError) throw new Error(`index_repository ${name}: ${JSON.stringify(answer.body)}`);
        }
      }),
    );
    for (;;) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "workspace_registry"."jobs" WHERE status IN ('pending', 'running')`,
      );
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const seconds = (performance.now() - started) / 1000;
    call.close();
    const { rows: jobs } = await client.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM "workspace_registry"."jobs" GROUP BY status`,
    );
    // The work each shard's process did: the repositories it cloned (its checkouts; a batch is deleted with its job),
    // their files, and its CPU time.
    const byWorker = new Map<string, { repositories: number; files: number; cpuMs: number; peak: number }>();
    for (const [pid, worker] of workers) {
      const [service, , index] = worker.split(' ');
      const dir = join(work, `${service}-${index}`, service === 'symbol-indexer' ? 'symbol-checkouts' : 'vector-checkouts');
      const entries = readdirSync(dir);
      const cloned = org.repositories.filter((r) => entries.some((e) => e.includes(`_${r.name}.git_`) || e.includes(`_${r.name}_`)));
      byWorker.set(worker, {
        repositories: cloned.length,
        files: cloned.reduce((sum, r) => sum + r.files, 0),
        cpuMs: await cpuMs(pid),
        peak: (await memory(pid)).peak,
      });
    }
    console.log(
      `distributed, 2 shards of each indexer: ${org.repositories.length} repositories indexed in ${seconds.toFixed(0)} s; jobs ${JSON.stringify(Object.fromEntries(jobs.map((j) => [j.status, j.n])))}`,
    );
    for (const [worker, sum] of [...byWorker].sort())
      console.log(
        `  ${worker.padEnd(28)}${sum.repositories} repositories, ${sum.files} files, CPU ${(sum.cpuMs / 1000).toFixed(1)} s, peak RSS ${(sum.peak / 2 ** 20).toFixed(0)} MB`,
      );
    const peakMb = async (pid: number) => ((await memory(pid)).peak / 2 ** 20).toFixed(0);
    console.log(
      `  peak RSS of workspace-registry ${await peakMb(processes[0].pid)} MB, of the gateway ${await peakMb(gateway.process.pid)} MB`,
    );
    console.log('\ntargets:');
    for (const service of ['symbol-indexer', 'vector-search']) {
      for (const measure of ['repositories', 'files', 'cpuMs'] as const) {
        const parts = [0, 1].map((i) => byWorker.get(`${service} shard ${i}`)?.[measure] ?? 0);
        const mean = (parts[0] + parts[1]) / 2;
        const spread = mean === 0 ? 1 : Math.abs(parts[0] / mean - 1);
        const what = measure === 'cpuMs' ? 'CPU time' : measure;
        console.log(
          verdict(
            spread <= 0.2,
            `${service}: 2 shards split the ${what} within ±20 %`,
            `${parts.map((p) => Math.round(p)).join(' / ')}, ±${(spread * 100).toFixed(1)} %`,
          ),
        );
      }
    }
  } finally {
    await client.end().catch(() => undefined);
    for (const p of processes.reverse()) await p.stop();
    await daemon.stop();
    await db.drop();
    await infra.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
