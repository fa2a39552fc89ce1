/**
 * bench/gateway — the cost of Sextant's gateway path for a cheap tool
 * (`get_project` on a one-row table), measured three ways in one run:
 *   (a) floor:       the MCP SDK alone, answer computed in the handler
 *   (b) embedded:    `npm start` (gateway + services in one process, PGlite)
 *   (c) distributed: gateway → NATS → projects service → Postgres, separate processes
 * Each server runs in its own process; this process is the MCP client.
 * (b) and (c) run as a deployment does: authentication on, every call with an
 * API key made by `sextant keys create` (docs/authentication.md), and the
 * audit trail on (ADR 0033, 0046: a record per call, stored in batches by the
 * projects service; the run checks the rows arrived). The rate limits are
 * raised out of the way (a deployment sizes them to its callers; the buckets
 * are still checked on every call).
 * Prints sequential p50/p99, calls/s at concurrency 16, CPU per call of each
 * process (from /proc/<pid>/stat) and, over a long run, the gateway's heap
 * after a forced GC (its slope per call is the leak check) and its RSS; then
 * PASS/MISS per target and one `bench_gateway_result {json}` line to collect
 * runs by.  Usage: npm run bench:gateway [-- --quick]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  callTool,
  createTestDatabase,
  httpClient,
  infrastructure,
  queryOnce,
  READY,
  cpuMs,
  repoPath,
  rssBytes,
  startGateway,
  startNode,
  startService,
  type RunningProcess,
} from '@sextant/testing';
import { summarize, verdict } from '../stats.js';

const quick = process.argv.includes('--quick');
const SEQUENTIAL = quick ? 500 : 3_000;
const CONCURRENCY = 16;
const CONCURRENT_CALLS = quick ? 2_000 : 10_000;
const LEAK_CALLS = quick ? 5_000 : 50_000;
const WARMUP = 300;
const BATCH = 250;

interface Target {
  label: string;
  url: string;
  processes: RunningProcess[];
  /** The process whose memory the leak check watches (the gateway). */
  gatewayPid: number;
  project: string;
  /** The API key every call sends (none for the floor). */
  bearer?: string;
  /** Tool calls made against it so far (to check the audit trail kept one record each). */
  calls: number;
  stop(): Promise<void>;
}

/** Authentication on, as a deployment runs, with the rate limits out of the way of a benchmark's one caller. */
const AUTH_ENV = {
  SEXTANT_AUTH: 'on',
  SEXTANT_RATE_LIMIT_PER_MINUTE: '1000000',
  SEXTANT_RATE_LIMIT_BURST: '1000000',
};

/** An admin API key made with the CLI, as an operator does (`sextant keys create`), on a database or a data directory. */
function createKey(env: { DATABASE_URL: string } | { SEXTANT_DATA_DIR: string }): string {
  const created = spawnSync(process.execPath, [repoPath('apps/sextant/dist/keys/main.js'), 'create', '--name', 'bench', '--admin'], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  if (created.status !== 0) throw new Error(`keys create failed: ${created.stderr}`);
  return created.stdout.trim();
}

interface Figures {
  p50: number;
  p99: number;
  callsPerSecond: number;
  rssStartMb?: number;
  rssEndMb?: number;
  heapStartMb?: number;
  heapEndMb?: number;
  /** Least-squares slope of heap-after-GC over calls. */
  heapBytesPerCall?: number;
}

const HEAP_PROBE = fileURLToPath(new URL('./heap-probe.js', import.meta.url));

/** The gateway's heap in use after a full GC (see heap-probe.ts). */
async function heapAfterGc(process: RunningProcess, seq: number): Promise<number> {
  const waiting = process.waitFor(new RegExp(`\\{"bench_heap_used":(\\d+),"seq":${seq}\\}`), 10_000);
  globalThis.process.kill(process.pid, 'SIGUSR2');
  return Number((await waiting)[1]);
}

/** Slope of the least-squares line through (x, y). */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return num / den;
}

async function getProject(client: Client, target: Target): Promise<void> {
  target.calls++;
  const result = await callTool(client, 'get_project', { project: target.project });
  if (result.isError) throw new Error(`get_project failed: ${JSON.stringify(result.body)}`);
}

/**
 * Sequential latency of every target, interleaved: round after round, each
 * target gets a batch in turn, so drift in the machine's speed (this is a
 * small VM) lands on all of them alike instead of on whichever ran last.
 */
async function sequential(targets: Target[]): Promise<Array<{ p50: number; p99: number }>> {
  const latencies: number[][] = targets.map(() => []);
  const rounds = Math.ceil(SEQUENTIAL / BATCH);
  for (let round = 0; round < rounds; round++) {
    for (const [i, target] of targets.entries()) {
      const client = await httpClient(target.url, { bearer: target.bearer });
      for (let w = 0; w < (round === 0 ? WARMUP : 10); w++) await getProject(client, target);
      for (let n = 0; n < BATCH; n++) {
        const start = performance.now();
        await getProject(client, target);
        latencies[i].push(performance.now() - start);
      }
      await client.close();
    }
  }
  return latencies.map(summarize);
}

// The SDK client's fetch leaves one abort listener per call on a shared signal until GC;
// a fresh client every so many calls keeps that client-side cost out of the figures.
const CALLS_PER_CLIENT = 1_000;

/** `calls` calls spread over `CONCURRENCY` clients, each with its own connection; returns calls/s. */
async function concurrent(target: Target, calls: number): Promise<number> {
  let next = 0;
  const start = performance.now();
  const connect = () => httpClient(target.url, { bearer: target.bearer });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      let client = await connect();
      for (let done = 0; next < calls; done++) {
        next++;
        if (done > 0 && done % CALLS_PER_CLIENT === 0) {
          await client.close();
          client = await connect();
        }
        await getProject(client, target);
      }
      await client.close();
    }),
  );
  return calls / ((performance.now() - start) / 1000);
}

async function createBenchProject(url: string, bearer: string): Promise<string> {
  const client = await httpClient(url, { bearer });
  // No members: they would need registered repositories (and the registry running) for nothing get_project measures.
  const created = await callTool<{ project: { id: string } }>(client, 'create_project', { name: 'bench' });
  await client.close();
  if (created.isError) throw new Error(`create_project failed: ${JSON.stringify(created.body)}`);
  return 'bench';
}

async function floor(): Promise<Target> {
  const server = await startNode('bench/dist/gateway/floor-server.js', [], { readyWhen: READY.gateway });
  const url = (await server.waitFor(READY.gateway))[1];
  return {
    label: '(a) floor: MCP SDK alone',
    url,
    processes: [server],
    gatewayPid: server.pid,
    project: 'bench',
    calls: 0,
    stop: async () => void (await server.stop()),
  };
}

async function embedded(): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sextant-bench-'));
  // On the data directory's embedded Postgres, before the server takes it (as `npx sextant keys create` is run).
  const bearer = createKey({ SEXTANT_DATA_DIR: dataDir });
  const sextant = await startNode('apps/sextant/dist/main.js', [], {
    env: { SEXTANT_PORT: '0', SEXTANT_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...AUTH_ENV },
    readyWhen: READY.embedded,
    timeoutMs: 60_000,
  });
  const url = (await sextant.waitFor(READY.embedded))[1];
  return {
    label: '(b) embedded (npm start)',
    url,
    processes: [sextant],
    gatewayPid: sextant.pid,
    project: await createBenchProject(url, bearer),
    bearer,
    calls: 0,
    stop: async () => {
      await sextant.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function distributed(): Promise<Target> {
  const infra = await infrastructure();
  const database = await createTestDatabase(infra.postgresUrl, 'sextant_bench');
  const projects = await startService('projects', { NATS_URL: infra.natsUrl, DATABASE_URL: database.url, LOG_LEVEL: 'info' });
  const bearer = createKey({ DATABASE_URL: database.url });
  const gateway = await startGateway(infra.natsUrl, AUTH_ENV, ['--expose-gc', '--import', HEAP_PROBE]);
  const target: Target = {
    label: '(c) gateway → NATS → projects',
    url: gateway.url,
    processes: [gateway.process, projects],
    gatewayPid: gateway.process.pid,
    project: await createBenchProject(gateway.url, bearer),
    bearer,
    calls: 0,
    stop: async () => {
      // The gateway hands the audit records it still holds to the projects service as it stops.
      await gateway.process.stop();
      const [{ n }] = await queryOnce<{ n: string }>(database.url, 'SELECT count(*) AS n FROM projects.audit_log');
      // create_project's record, then one per get_project.
      const missing = target.calls + 1 - Number(n);
      console.log(
        `audit trail (c): ${n} rows in projects.audit_log for ${target.calls + 1} calls${missing === 0 ? '' : ` (${missing} missing)`}`,
      );
      await projects.stop();
      await database.drop();
      await infra.stop();
    },
  };
  return target;
}

function row(label: string, f: Figures): string {
  const rss =
    f.rssStartMb === undefined
      ? ''
      : `   heap after GC ${f.heapStartMb!.toFixed(1)} → ${f.heapEndMb!.toFixed(1)} MB (${f.heapBytesPerCall!.toFixed(2)} B/call)` +
        `   RSS ${f.rssStartMb.toFixed(1)} → ${f.rssEndMb!.toFixed(1)} MB`;
  return `${label.padEnd(34)} p50 ${f.p50.toFixed(3).padStart(7)} ms   p99 ${f.p99.toFixed(3).padStart(7)} ms   ${f.callsPerSecond.toFixed(0).padStart(6)} calls/s${rss}`;
}

async function main(): Promise<void> {
  console.log(
    `bench/gateway: ${SEQUENTIAL} sequential calls per target (interleaved in batches of ${BATCH}), ` +
      `${CONCURRENT_CALLS} calls at concurrency ${CONCURRENCY}, leak check over ${LEAK_CALLS} calls after as many to warm up`,
  );
  const targets: Target[] = [];
  try {
    for (const start of [floor, embedded, distributed]) targets.push(await start());
    const latency = await sequential(targets);
    const throughput: number[] = [];
    const cpu: string[] = [];
    const cpuMicros: number[][] = [];
    for (const target of targets) {
      await concurrent(target, WARMUP * 4);
      const before = await Promise.all(target.processes.map((p) => cpuMs(p.pid)));
      throughput.push(await concurrent(target, CONCURRENT_CALLS));
      const after = await Promise.all(target.processes.map((p) => cpuMs(p.pid)));
      const micros = target.processes.map((_, i) => ((after[i] - before[i]) * 1000) / CONCURRENT_CALLS);
      cpuMicros.push(micros);
      const perCall = target.processes.map((p, i) => `${p.name} ${micros[i].toFixed(0)}`);
      cpu.push(`  ${target.label.padEnd(32)} ${perCall.join(', ')} µs/call`);
    }
    const gateway = targets[2];
    // Leak check, after a run as long to warm up: every tenth of the run, the heap still in use after a
    // forced GC (a leak grows it with the calls; garbage does not) and, for information, RSS.
    await concurrent(gateway, LEAK_CALLS);
    const heap: Array<[number, number]> = [];
    const rss: number[] = [];
    for (let i = 0; i < 10; i++) {
      await concurrent(gateway, LEAK_CALLS / 10);
      heap.push([((i + 1) * LEAK_CALLS) / 10, await heapAfterGc(gateway.processes[0], i + 1)]);
      rss.push(await rssBytes(gateway.gatewayPid));
    }
    const figures: Figures[] = targets.map((_, i) => ({ ...latency[i], callsPerSecond: throughput[i] }));
    figures[2].rssStartMb = summarize(rss.slice(0, 3)).p50 / 2 ** 20;
    figures[2].rssEndMb = summarize(rss.slice(-3)).p50 / 2 ** 20;
    figures[2].heapStartMb = heap[0][1] / 2 ** 20;
    figures[2].heapEndMb = heap.at(-1)![1] / 2 ** 20;
    figures[2].heapBytesPerCall = slope(heap);
    for (const [i, target] of targets.entries()) console.log(row(target.label, figures[i]));
    console.log('\nCPU per call at concurrency 16 (this machine has 2 cores; NATS, Postgres and the client share them):');
    for (const line of cpu) console.log(line);
    report(figures, cpuMicros);
  } catch (error) {
    // What the servers said last (a refusal names its cause there; its log line may still be in the pipe).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const target of targets)
      for (const p of target.processes) console.error(`--- ${p.name} (last lines)\n${p.output().split('\n').slice(-15).join('\n')}`);
    throw error;
  } finally {
    for (const target of targets) await target.stop();
  }
}

function report([a, b, c]: Figures[], cpuMicros: number[][]): void {
  const checks = [
    [`(b) p50 ≤ 1.1 × floor p50`, b.p50 / a.p50, b.p50 <= 1.1 * a.p50],
    [`(c) p50 ≤ 1.5 × floor p50`, c.p50 / a.p50, c.p50 <= 1.5 * a.p50],
    [`(c) calls/s ≥ 0.8 × floor`, c.callsPerSecond / a.callsPerSecond, c.callsPerSecond >= 0.8 * a.callsPerSecond],
    // 10 B/call is 0.5 MB over 50,000 calls: a leak of any object per call is well above it.
    [`gateway heap after GC grows < 10 bytes/call over ${LEAK_CALLS} calls`, c.heapBytesPerCall!, c.heapBytesPerCall! < 10],
  ] as const;
  console.log('\ntargets:');
  for (const [name, ratio, ok] of checks) console.log(verdict(ok, name, `${ratio.toFixed(3)}`));
  const result = {
    floor_p50_ms: a.p50,
    embedded_p50_ratio: b.p50 / a.p50,
    distributed_p50_ratio: c.p50 / a.p50,
    distributed_calls_ratio: c.callsPerSecond / a.callsPerSecond,
    embedded_calls_ratio: b.callsPerSecond / a.callsPerSecond,
    heap_bytes_per_call: c.heapBytesPerCall,
    cpu_us_per_call: { floor: cpuMicros[0][0], embedded: cpuMicros[1][0], gateway: cpuMicros[2][0], projects: cpuMicros[2][1] },
  };
  console.log(`\nbench_gateway_result ${JSON.stringify(result)}`);
}

await main();
