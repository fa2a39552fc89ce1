/**
 * Slow clients against the gateway (issue 35, docs/adr/0045): `npm run bench:slowloris`.
 *
 * Embedded mode with authentication on (API keys in a fresh Postgres
 * database). First the latency of `GET /livez` and of an authenticated
 * `tools/call list_projects`, each on a connection of its own, with nothing
 * else going on; then the same while a child process keeps 1,100 slow
 * sockets on it (half send a POST's headers with `Content-Length: 100000`
 * and then a byte every 5 s, half headers that never end, a byte every 5 s;
 * each reopened when the gateway closes it): p50, p99, max and failures,
 * what the slow sockets got, and the gateway's CPU while they ran.
 *
 * BENCH_SOCKETS (1100), BENCH_SECONDS (20), BENCH_RECONNECT_MS (500), and
 * any SEXTANT_HTTP_* variable to try other limits.
 */
import { spawnSync } from 'node:child_process';
import { cpuMs, createTestDatabase, infrastructure, probe, repoPath, startEmbedded, startSlowloris } from '@sextant/testing';
import { percentile } from '../stats.js';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 1_100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const RECONNECT_MS = Number(process.env.BENCH_RECONNECT_MS ?? 500);

interface Figures {
  n: number;
  failed: number;
  p50: number;
  p99: number;
  max: number;
}

function figures(samples: Array<{ status: number; ms: number } | Error>, ok: number): Figures {
  const times = samples.flatMap((s) => (s instanceof Error ? [] : [s.ms])).sort((a, b) => a - b);
  const failed = samples.filter((s) => s instanceof Error || s.status !== ok).length;
  return { n: samples.length, failed, p50: percentile(times, 0.5), p99: percentile(times, 0.99), max: times.at(-1) ?? NaN };
}

const line = (name: string, f: Figures) =>
  `  ${name.padEnd(26)} n=${String(f.n).padStart(4)}  failed=${String(f.failed).padStart(3)}  p50=${f.p50.toFixed(1)} ms  p99=${f.p99.toFixed(1)} ms  max=${f.max.toFixed(1)} ms`;

async function main(): Promise<void> {
  const infra = await infrastructure();
  const database = await createTestDatabase(infra.postgresUrl);
  const limits = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('SEXTANT_HTTP_')));
  const sextant = await startEmbedded({ DATABASE_URL: database.url, SEXTANT_AUTH: 'on', ...limits });
  try {
    const created = spawnSync(process.execPath, [repoPath('apps/sextant/dist/keys/main.js'), 'create', '--name', 'bench', '--admin'], {
      env: { PATH: process.env.PATH, DATABASE_URL: database.url },
      encoding: 'utf8',
    });
    if (created.status !== 0) throw new Error(`keys create failed: ${created.stderr}`);
    const key = created.stdout.trim();
    const base = new URL(sextant.url).origin;
    const call = () =>
      probe(`${base}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_projects', arguments: {} } }),
      });
    /** Both probes, side by side, every 50 ms for `ms`. */
    const sample = async (ms: number) => {
      const live: Array<{ status: number; ms: number } | Error> = [];
      const mcp: Array<{ status: number; ms: number } | Error> = [];
      const until = performance.now() + ms;
      while (performance.now() < until) {
        const [a, b] = await Promise.all([probe(`${base}/livez`).catch((e: Error) => e), call().catch((e: Error) => e)]);
        live.push(a);
        mcp.push(b);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { livez: figures(live, 200), mcp: figures(mcp, 200) };
    };
    await sample(2_000); // warm-up: the key verified once, then remembered
    const quiet = await sample(5_000);
    const attack = startSlowloris({ url: sextant.url, sockets: SOCKETS, durationMs: SECONDS * 1_000 + 2_000, reconnectMs: RECONNECT_MS });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const cpuBefore = await cpuMs(sextant.process.pid);
    const loaded = await sample(SECONDS * 1_000);
    const gatewayCpu = (await cpuMs(sextant.process.pid)) - cpuBefore;
    const report = await attack.done;
    console.log(
      `slowloris: ${SOCKETS} slow sockets for ${SECONDS} s (reopened ${RECONNECT_MS}-${2 * RECONNECT_MS} ms after the gateway closes one)`,
    );
    console.log(`limits: ${JSON.stringify(limits)}`);
    console.log('quiet:');
    console.log(line('GET /livez', quiet.livez));
    console.log(line('tools/call (API key)', quiet.mcp));
    console.log('under the slow sockets:');
    console.log(line('GET /livez', loaded.livez));
    console.log(line('tools/call (API key)', loaded.mcp));
    console.log(
      `slow sockets: ${report.opened} opened, at most ${report.maxOpen} open at once, ${report.closedByServer} closed by the gateway, answers ${JSON.stringify(report.statuses)}`,
    );
    console.log(`gateway CPU while they ran: ${((gatewayCpu / (SECONDS * 1_000)) * 100).toFixed(0)} % of a core`);
  } finally {
    await sextant.stop();
    await database.drop();
    await infra.stop();
  }
}

await main();
