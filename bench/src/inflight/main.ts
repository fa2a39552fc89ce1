/**
 * bench/inflight — what happens to calls in flight when the way to their
 * service breaks, distributed mode (gateway → NATS → projects → Postgres):
 *   disconnect  the gateway's connection to NATS is cut (a TCP proxy drops it)
 *   kill -9     the projects service dies while working
 *   SIGTERM     the projects service is asked to stop while working
 * Each trial holds 8 `list_projects` calls in the service (Postgres stalled
 * behind a proxy), breaks something, and times how long each call takes to
 * be answered after the break. The bus timeout stays at its 30 s default.
 * Targets: every call fails as `unavailable` within 1 s of a disconnect and
 * 3 s of a kill; on SIGTERM every call is answered (with its result).
 * Usage: npm run bench:inflight [-- --quick]
 */
import {
  callTool,
  createTestDatabase,
  FaultProxy,
  httpClient,
  infrastructure,
  startGateway,
  startService,
  type RunningProcess,
} from '@sextant/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { percentile, verdict } from '../stats.js';

const quick = process.argv.includes('--quick');
const TRIALS = quick ? 2 : 6;
const CALLS = 8;

interface Outcome {
  outcome: string;
  ms: number;
}

function proxyFor(url: string): FaultProxy {
  const u = new URL(url);
  return new FaultProxy(u.hostname, Number(u.port));
}

/** CALLS calls held in the service; `breakIt` runs once they are, and the answers are timed from then. */
async function trial(client: Client, database: FaultProxy, breakIt: () => void | Promise<void>): Promise<Outcome[]> {
  database.stall();
  let brokeAt = 0;
  const pending = Array.from({ length: CALLS }, () =>
    callTool<{ error?: string }>(client, 'list_projects', {}).then((r) => ({
      outcome: r.isError ? (r.body.error ?? 'error') : 'ok',
      ms: performance.now() - brokeAt,
    })),
  );
  await new Promise((r) => setTimeout(r, 400));
  brokeAt = performance.now();
  await breakIt();
  const results = await Promise.all(pending);
  database.restore();
  return results;
}

function report(name: string, results: Outcome[], expected: string, limitMs: number | undefined): boolean {
  const ms = results.map((r) => r.ms).sort((a, b) => a - b);
  const outcomes = [...new Set(results.map((r) => r.outcome))].join(', ');
  console.log(
    `${name.padEnd(12)} ${results.length} calls: ${outcomes.padEnd(12)} after the break p50 ${percentile(ms, 0.5).toFixed(0).padStart(5)} ms   max ${ms.at(-1)!.toFixed(0).padStart(5)} ms`,
  );
  const ok = results.every((r) => r.outcome === expected) && (limitMs === undefined || ms.at(-1)! <= limitMs);
  console.log(verdict(ok, `${name}: every call ${expected}${limitMs ? ` within ${limitMs} ms` : ''}`, `max ${ms.at(-1)!.toFixed(0)} ms`));
  return ok;
}

async function main(): Promise<void> {
  console.log(`bench/inflight: ${TRIALS} trials of ${CALLS} calls held in the projects service, per fault`);
  const infra = await infrastructure();
  const db = await createTestDatabase(infra.postgresUrl, 'sextant_bench_inflight');
  const database = proxyFor(db.url);
  const nats = proxyFor(infra.natsUrl);
  const viaDatabase = new URL(db.url);
  viaDatabase.hostname = '127.0.0.1';
  viaDatabase.port = String(await database.start());
  const natsPort = await nats.start();
  const processes: RunningProcess[] = [];
  const projects = async () => {
    const p = await startService('projects', { NATS_URL: infra.natsUrl, DATABASE_URL: viaDatabase.toString() });
    processes.push(p);
    return p;
  };
  try {
    let service = await projects();
    const direct = await startGateway(infra.natsUrl);
    const viaProxy = await startGateway(`nats://127.0.0.1:${natsPort}`);
    processes.push(direct.process, viaProxy.process);
    const client = await httpClient(direct.url);
    const proxied = await httpClient(viaProxy.url);

    const disconnect: Outcome[] = [];
    const kill: Outcome[] = [];
    const term: Outcome[] = [];
    for (let i = 0; i < TRIALS; i++) {
      disconnect.push(...(await trial(proxied, database, () => nats.cut())));
      nats.restore();
      kill.push(...(await trial(client, database, () => void process.kill(service.pid, 'SIGKILL'))));
      service = await projects();
      const stopping = service;
      term.push(
        ...(await trial(client, database, async () => {
          stopping.child.kill('SIGTERM');
          await stopping.waitFor(/no new requests/);
          setTimeout(() => database.restore(), 200); // the held queries complete while it drains
        })),
      );
      await stopping.exited;
      service = await projects();
      // The proxied gateway reconnects by itself; wait for it before the next trial.
      for (let n = 0; n < 100 && (await callTool(proxied, 'list_projects', {})).isError; n++) await new Promise((r) => setTimeout(r, 100));
    }
    await client.close();
    await proxied.close();
    report('disconnect', disconnect, 'unavailable', 1_000);
    report('kill -9', kill, 'unavailable', 3_000);
    report('SIGTERM', term, 'ok', undefined);
  } finally {
    for (const p of processes) await p.stop();
    await database.stop();
    await nats.stop();
    await db.drop();
    await infra.stop();
  }
}

await main();
