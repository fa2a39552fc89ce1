/**
 * bench/gateway — the cost of Sextant's gateway path for a cheap tool
 * (`get_project` on a one-row table), measured three ways in one run:
 *   (a) floor:       the MCP SDK alone, answer computed in the handler
 *   (b) embedded:    `npm start` (gateway + services in one process, PGlite)
 *   (c) distributed: gateway → NATS → projects service → Postgres, separate processes
 * Each server runs in its own process; this process is the MCP client.
 * Prints sequential p50/p99, calls/s at concurrency 16, and, over a long run,
 * the gateway's heap after a forced GC (its slope per call is the leak check)
 * and its RSS.  Usage: npm run bench:gateway [-- --quick]
 */
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
  READY,
  cpuMs,
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
  stop(): Promise<void>;
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

async function getProject(client: Client, project: string): Promise<void> {
  const result = await callTool(client, 'get_project', { project });
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
      const client = await httpClient(target.url);
      for (let w = 0; w < (round === 0 ? WARMUP : 10); w++) await getProject(client, target.project);
      for (let n = 0; n < BATCH; n++) {
        const start = performance.now();
        await getProject(client, target.project);
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
async function concurrent(url: string, project: string, calls: number): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      let client = await httpClient(url);
      for (let done = 0; next < calls; done++) {
        next++;
        if (done > 0 && done % CALLS_PER_CLIENT === 0) {
          await client.close();
          client = await httpClient(url);
        }
        await getProject(client, project);
      }
      await client.close();
    }),
  );
  return calls / ((performance.now() - start) / 1000);
}

async function createBenchProject(url: string): Promise<string> {
  const client = await httpClient(url);
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
    stop: async () => void (await server.stop()),
  };
}

async function embedded(): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sextant-bench-'));
  const sextant = await startNode('apps/sextant/dist/main.js', [], {
    env: { SEXTANT_PORT: '0', SEXTANT_DATA_DIR: dataDir, LOG_LEVEL: 'info', SEXTANT_AUTH: 'off' },
    readyWhen: READY.embedded,
    timeoutMs: 60_000,
  });
  const url = (await sextant.waitFor(READY.embedded))[1];
  return {
    label: '(b) embedded (npm start)',
    url,
    processes: [sextant],
    gatewayPid: sextant.pid,
    project: await createBenchProject(url),
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
  const gateway = await startGateway(infra.natsUrl, {}, ['--expose-gc', '--import', HEAP_PROBE]);
  return {
    label: '(c) gateway → NATS → projects',
    url: gateway.url,
    processes: [gateway.process, projects],
    gatewayPid: gateway.process.pid,
    project: await createBenchProject(gateway.url),
    stop: async () => {
      await gateway.process.stop();
      await projects.stop();
      await database.drop();
      await infra.stop();
    },
  };
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
    for (const target of targets) {
      await concurrent(target.url, target.project, WARMUP * 4);
      const before = await Promise.all(target.processes.map((p) => cpuMs(p.pid)));
      throughput.push(await concurrent(target.url, target.project, CONCURRENT_CALLS));
      const after = await Promise.all(target.processes.map((p) => cpuMs(p.pid)));
      const perCall = target.processes.map((p, i) => `${p.name} ${((after[i]! - before[i]!) / CONCURRENT_CALLS).toFixed(3)}`);
      cpu.push(`  ${target.label.padEnd(32)} ${perCall.join(', ')} ms`);
    }
    const gateway = targets[2];
    // Leak check, after a run as long to warm up: every tenth of the run, the heap still in use after a
    // forced GC (a leak grows it with the calls; garbage does not) and, for information, RSS.
    await concurrent(gateway.url, gateway.project, LEAK_CALLS);
    const heap: Array<[number, number]> = [];
    const rss: number[] = [];
    for (let i = 0; i < 10; i++) {
      await concurrent(gateway.url, gateway.project, LEAK_CALLS / 10);
      heap.push([((i + 1) * LEAK_CALLS) / 10, await heapAfterGc(gateway.processes[0]!, i + 1)]);
      rss.push(await rssBytes(gateway.gatewayPid));
    }
    const figures: Figures[] = targets.map((_, i) => ({ ...latency[i], callsPerSecond: throughput[i] }));
    figures[2].rssStartMb = summarize(rss.slice(0, 3)).p50 / 2 ** 20;
    figures[2].rssEndMb = summarize(rss.slice(-3)).p50 / 2 ** 20;
    figures[2].heapStartMb = heap[0]![1] / 2 ** 20;
    figures[2].heapEndMb = heap.at(-1)![1] / 2 ** 20;
    figures[2].heapBytesPerCall = slope(heap);
    for (const [i, target] of targets.entries()) console.log(row(target.label, figures[i]));
    console.log('\nCPU per call at concurrency 16 (this machine has 2 cores; NATS, Postgres and the client share them):');
    for (const line of cpu) console.log(line);
    report(figures);
  } finally {
    for (const target of targets) await target.stop();
  }
}

function report([a, b, c]: Figures[]): void {
  const checks = [
    [`(b) p50 ≤ 1.5 × floor p50`, b.p50 / a.p50, b.p50 <= 1.5 * a.p50],
    [`(c) p50 ≤ 1.5 × floor p50`, c.p50 / a.p50, c.p50 <= 1.5 * a.p50],
    [`(c) calls/s ≥ 0.8 × floor`, c.callsPerSecond / a.callsPerSecond, c.callsPerSecond >= 0.8 * a.callsPerSecond],
    // 10 B/call is 0.5 MB over 50,000 calls: a leak of any object per call is well above it.
    [`gateway heap after GC grows < 10 bytes/call over ${LEAK_CALLS} calls`, c.heapBytesPerCall!, c.heapBytesPerCall! < 10],
  ] as const;
  console.log('\ntargets:');
  for (const [name, ratio, ok] of checks) console.log(verdict(ok, name, `${ratio.toFixed(3)}`));
}

await main();
