/**
 * bench/audit — the audit trail under hostile arguments (issue 35, ADR 0046), at the scale: 10,000 calls
 * each with a NUL in `path`, with control characters, with a 1 MB `repo`, then 10,000 normal calls, and a few with a
 * 20 MB `repo` (SEXTANT_MAX_BODY_BYTES raised to 64 MiB), in embedded mode (PGlite) and distributed mode (gateway and
 * projects over NATS, Postgres). Prints, per mode: calls/s, answers by code, rows in projects.audit_log and how long
 * after the last answer they were all there, the server's RSS before and at its peak, the audit drops it counted
 * (sextant_audit_records_dropped_total) and how long SIGTERM took.
 * Usage: npm run bench:audit [-- --quick] [-- --embedded | --distributed]; needs NATS and Postgres for distributed
 * (TEST_NATS_URL, TEST_DATABASE_URL, as the tests).
 */
import {
  createTestDatabase,
  infrastructure,
  leanCaller,
  memory,
  queryOnce,
  startEmbedded,
  startGateway,
  startService,
  type RunningProcess,
  embeddedDatabaseUrl,
} from '@sextant/testing';

const quick = process.argv.includes('--quick');
const modes = process.argv.includes('--embedded')
  ? ['embedded']
  : process.argv.includes('--distributed')
    ? ['distributed']
    : ['embedded', 'distributed'];
const N = quick ? 1_000 : 10_000;
const MB = 1024 * 1024;
const COUNTS = { nul: N, controls: N, oneMb: N, twentyMb: quick ? 3 : 20, normal: N };
const TOTAL = Object.values(COUNTS).reduce((a, b) => a + b, 0);
const GRACE_MS = 10_000;
const ENV = { SEXTANT_MAX_BODY_BYTES: String(64 * MB), SEXTANT_SHUTDOWN_GRACE_MS: String(GRACE_MS) };

type Call = [name: string, args: Record<string, unknown>];

function* calls(): Generator<Call> {
  for (let i = 0; i < COUNTS.nul; i++) yield ['get_file_outline', { repo: 'shop', path: `a\u0000b-${i}` }];
  for (let i = 0; i < COUNTS.controls; i++) yield ['get_file_outline', { repo: 'shop\u001b[2J', path: `x\u0007\r\n-${i}` }];
  const oneMb = 'r'.repeat(MB);
  for (let i = 0; i < COUNTS.oneMb; i++) yield ['open_file', { repo: oneMb, path: `a-${i}.ts` }];
  const twentyMb = 'w'.repeat(20 * MB);
  for (let i = 0; i < COUNTS.twentyMb; i++) yield ['open_file', { repo: twentyMb, path: `b-${i}.ts` }];
  for (let i = 0; i < COUNTS.normal; i++) yield i % 2 ? ['list_projects', {}] : ['get_project', { project: `no-such-${i}` }];
}

async function droppedAudit(url: string): Promise<string> {
  const text = await (await fetch(new URL('/metrics', url))).text();
  const lines = text.split('\n').filter((l) => l.startsWith('sextant_audit_records_dropped_total'));
  return lines.length > 0 ? lines.map((l) => l.replace('sextant_audit_records_dropped_total', '')).join(' ') : 'none';
}

async function run(mode: string, url: string, server: RunningProcess, databaseUrl: string): Promise<void> {
  const call = leanCaller(url);
  const codes: Record<string, number> = {};
  const startRss = (await memory(server.pid)).rss;
  const started = performance.now();
  const queue = calls();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let next = queue.next(); !next.done; next = queue.next()) {
        const answer = await call<{ error?: string }>(...next.value);
        const code = answer.isError ? String(answer.body.error) : 'ok';
        codes[code] = (codes[code] ?? 0) + 1;
      }
    }),
  );
  call.close();
  const seconds = (performance.now() - started) / 1000;
  const { peak } = await memory(server.pid);
  const waited = performance.now();
  let rows = 0;
  for (let i = 0; i < 600 && rows < TOTAL; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 100));
    rows = (await queryOnce<{ n: number }>(databaseUrl, 'SELECT count(*)::int AS n FROM projects.audit_log'))[0].n;
  }
  const rowsMs = performance.now() - waited;
  const [largest] = await queryOnce<{ bytes: number }>(
    databaseUrl,
    'SELECT max(octet_length(t::text))::int AS bytes FROM projects.audit_log t',
  );
  const dropped = await droppedAudit(url);
  const stopping = performance.now();
  const exit = await server.stop(GRACE_MS + 20_000);
  const exitMs = performance.now() - stopping;
  console.log(
    `\n${mode}: ${TOTAL} calls in ${seconds.toFixed(1)} s (${Math.round(TOTAL / seconds)} calls/s), answers ${JSON.stringify(codes)}`,
  );
  console.log(
    `  rows in projects.audit_log: ${rows} of ${TOTAL}, all there ${Math.round(rowsMs)} ms after the last answer; largest row ${largest?.bytes} bytes`,
  );
  console.log(`  RSS ${Math.round(startRss / MB)} MB before, peak ${Math.round(peak / MB)} MB; audit drops counted: ${dropped}`);
  console.log(`  SIGTERM: exit ${exit} after ${Math.round(exitMs)} ms (grace ${GRACE_MS} ms)`);
}

for (const mode of modes) {
  if (mode === 'embedded') {
    const sextant = await startEmbedded(ENV);
    try {
      await run(mode, sextant.url, sextant.process, embeddedDatabaseUrl(sextant.dataDir));
    } finally {
      await sextant.stop();
    }
  } else {
    const infra = await infrastructure();
    const database = await createTestDatabase(infra.postgresUrl);
    const prefix = `benchaudit${process.pid}`;
    const projects = await startService('projects', {
      NATS_URL: infra.natsUrl,
      SEXTANT_NATS_PREFIX: prefix,
      DATABASE_URL: database.url,
      ...ENV,
    });
    const gateway = await startGateway(infra.natsUrl, { SEXTANT_NATS_PREFIX: prefix, ...ENV });
    try {
      await run(mode, gateway.url, gateway.process, database.url);
    } finally {
      await gateway.process.stop();
      await projects.stop();
      await database.drop();
      await infra.stop();
    }
  }
}
