/**
 * The audit trail cannot be stopped or used to exhaust memory (issue 35, ADR 0046), in both modes: calls whose
 * arguments carry a NUL, control characters, a 1 MB and a 20 MB field, then normal calls. Every call is answered (none
 * `unavailable`), every call has its row in Postgres, the server's memory stays bounded and SIGTERM ends it within
 * its grace period. Before the fix, the first NUL stopped the Postgres trail for good, and 1 MB fields held the
 * gateway's memory (and, distributed, made batches larger than NATS carries).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { leanCaller, memory, queryOnce, startEmbedded, type RunningProcess, type Sextant, embeddedDatabaseUrl } from '@sextant/testing';
import { distributedStack, type Stack } from './stack.js';

const MB = 1024 * 1024;
/** The largest body the gateway is told to take here (its cap is 64 MiB): a 20 MB field is read, answered and recorded. */
const MAX_BODY_BYTES = String(64 * MB);
const GRACE_MS = 3_000;
/** Calls of each kind. */
const COUNTS = { nul: 500, controls: 500, oneMb: 100, twentyMb: 3, normal: 1_000 } as const;
const TOTAL = Object.values(COUNTS).reduce((a, b) => a + b, 0);
/**
 * How far the server process's peak RSS (VmHWM) may rise above its RSS before the calls: a few 20 MB bodies parsed
 * at once, eight 1 MB ones. Before the fix, records of 1 MB calls alone took the gateway from 106 to 417 MB after 300
 * calls, and embedded mode from 0.8 to 2.7 GB after 100.
 */
const PEAK_RSS_GROWTH_BYTES = 400 * MB;

type Call = [name: string, args: Record<string, unknown>];

function* calls(): Generator<Call> {
  for (let i = 0; i < COUNTS.nul; i++) yield ['get_file_outline', { repo: 'shop', path: `a\u0000b-${i}` }];
  for (let i = 0; i < COUNTS.controls; i++) yield ['get_file_outline', { repo: 'shop\u001b[2J', path: `x\u0007\r\n\u009b-${i}` }];
  const oneMb = 'r'.repeat(MB);
  for (let i = 0; i < COUNTS.oneMb; i++) yield ['open_file', { repo: oneMb, path: `a-${i}.ts` }];
  const twentyMb = 'w'.repeat(20 * MB);
  for (let i = 0; i < COUNTS.twentyMb; i++) yield ['open_file', { repo: twentyMb, path: `b-${i}.ts` }];
  for (let i = 0; i < COUNTS.normal; i++) yield i % 2 ? ['list_projects', {}] : ['get_project', { project: `no-such-${i}` }];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Figures {
  codes: Record<string, number>;
  seconds: number;
  startRss: number;
  peakRss: number;
  rows: number;
  rowsAfterMs: number;
  exitMs: number;
  exitCode: number | null;
}

/** Every call, eight at a time; then the rows of the trail; then SIGTERM. */
async function exercise(url: string, server: RunningProcess, databaseUrl: string): Promise<Figures> {
  const call = leanCaller(url);
  const codes: Record<string, number> = {};
  const { rss: startRss } = await memory(server.pid);
  const started = performance.now();
  try {
    const queue = calls();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let next = queue.next(); !next.done; next = queue.next()) {
          const [name, args] = next.value;
          const answer = await call<{ error?: string }>(name, args);
          const code = answer.isError ? String(answer.body.error) : 'ok';
          codes[code] = (codes[code] ?? 0) + 1;
        }
      }),
    );
  } finally {
    call.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const { peak: peakRss } = await memory(server.pid);
  const waited = performance.now();
  let rows = 0;
  for (let i = 0; i < 150 && rows < TOTAL; i++) {
    if (i > 0) await sleep(100);
    rows = (await queryOnce<{ n: number }>(databaseUrl, 'SELECT count(*)::int AS n FROM projects.audit_log'))[0].n;
  }
  const rowsAfterMs = performance.now() - waited;
  // Before the stop: embedded mode's Postgres is in the server's process.
  if (rows === TOTAL) await checkRecords(databaseUrl);
  const stopping = performance.now();
  const exitCode = await server.stop(GRACE_MS + 10_000);
  return { codes, seconds, startRss, peakRss, rows, rowsAfterMs, exitMs: performance.now() - stopping, exitCode };
}

function check(figures: Figures, label: string): void {
  // The figures, for the report (ADR 0046).
  const mb = (bytes: number) => `${Math.round(bytes / MB)} MB`;
  console.log(`${label}: ${JSON.stringify({ ...figures, startRss: mb(figures.startRss), peakRss: mb(figures.peakRss) })}`);
  const answered = Object.values(figures.codes).reduce((a, b) => a + b, 0);
  assert.equal(answered, TOTAL);
  assert.equal(figures.codes.unavailable, undefined, JSON.stringify(figures.codes));
  assert.equal(figures.codes.invalid_input, COUNTS.nul + COUNTS.controls + COUNTS.oneMb + COUNTS.twentyMb, JSON.stringify(figures.codes));
  assert.equal(figures.rows, TOTAL, `${figures.rows} of ${TOTAL} calls in projects.audit_log`);
  assert.ok(figures.peakRss - figures.startRss < PEAK_RSS_GROWTH_BYTES, `RSS ${mb(figures.startRss)}, peak ${mb(figures.peakRss)}`);
  assert.equal(figures.exitCode, 0);
  assert.ok(figures.exitMs < GRACE_MS + 2_000, `exit ${Math.round(figures.exitMs)} ms after SIGTERM`);
}

/** What the trail kept of the calls with a NUL, control characters and a 1 MB field. */
async function checkRecords(databaseUrl: string): Promise<void> {
  const [nul] = await queryOnce<{ scope: Record<string, string> }>(
    databaseUrl,
    `SELECT scope FROM projects.audit_log WHERE scope->>'path' = 'a\\u0000b-0'`,
  );
  assert.deepEqual(nul?.scope, { repo: 'shop', path: 'a\\u0000b-0' });
  const [controls] = await queryOnce<{ scope: Record<string, string> }>(
    databaseUrl,
    `SELECT scope FROM projects.audit_log WHERE scope->>'path' = 'x\\u0007\\u000d\\u000a\\u009b-0'`,
  );
  assert.deepEqual(controls?.scope, { repo: 'shop\\u001b[2J', path: 'x\\u0007\\u000d\\u000a\\u009b-0' });
  const [big] = await queryOnce<{ repo: string; bytes: number }>(
    databaseUrl,
    `SELECT scope->>'repo' AS repo, octet_length(scope::text) AS bytes FROM projects.audit_log WHERE scope->>'path' = 'a-0.ts'`,
  );
  assert.match(big.repo, /^r+…\[truncated \d+ bytes\]$/);
  const kept = big.repo.indexOf('…');
  assert.equal(kept + Number(/(\d+) bytes\]$/.exec(big.repo)![1]), MB, 'the bytes kept and the bytes it says it left out');
  assert.ok(big.bytes < 2_048, `${big.bytes} bytes`);
  const [largest] = await queryOnce<{ bytes: number }>(
    databaseUrl,
    `SELECT max(octet_length(t::text))::int AS bytes FROM projects.audit_log t`,
  );
  assert.ok(largest.bytes < 4_096, `largest row ${largest.bytes} bytes`);
}

describe('audit trail under hostile arguments, embedded mode (PGlite)', () => {
  let sextant: Sextant;
  let databaseUrl: string;

  before(async () => {
    sextant = await startEmbedded({ SEXTANT_MAX_BODY_BYTES: MAX_BODY_BYTES, SEXTANT_SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    // The embedded Postgres listens on a socket in the data directory (ADR 0004).
    databaseUrl = embeddedDatabaseUrl(sextant.dataDir);
  });
  after(() => sextant?.stop());

  it(`audits every one of ${TOTAL} calls (NUL, controls, 1 MB and 20 MB fields, then normal ones), answers none unavailable, stays bounded and stops within its grace`, async () => {
    check(await exercise(sextant.url, sextant.process, databaseUrl), 'embedded');
  });
});

describe('audit trail under hostile arguments, distributed mode (gateway and projects over NATS)', () => {
  let stack: Stack;

  before(async () => {
    stack = await distributedStack();
    await stack.startService('projects', { SEXTANT_SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    await stack.startGateway({ SEXTANT_MAX_BODY_BYTES: MAX_BODY_BYTES, SEXTANT_SHUTDOWN_GRACE_MS: String(GRACE_MS) });
  });
  after(() => stack?.stop());

  it(`audits every one of ${TOTAL} calls, none unavailable, the gateway bounded, and stops within its grace`, async () => {
    const gateway = stack.gateway!;
    const figures = await exercise(gateway.url, gateway.process, stack.database.url);
    check(figures, 'distributed');
  });
});

describe('audit trail while the projects service is down, distributed mode', () => {
  let stack: Stack;
  const BACKLOG_BYTES = 128 * 1024;

  before(async () => {
    stack = await distributedStack();
    await stack.startGateway({ SEXTANT_AUDIT_BACKLOG_BYTES: String(BACKLOG_BYTES) });
  });
  after(() => stack?.stop());

  /** A series of the gateway's /metrics (0 when it has no sample yet). */
  async function metric(name: string, labels = ''): Promise<number> {
    const text = await (await fetch(new URL('/metrics', stack.gateway!.url))).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
    return line ? Number(line.split(' ')[1]) : 0;
  }

  it('holds at most SEXTANT_AUDIT_BACKLOG_BYTES, drops the oldest (counted), and stores the rest once the service is back', async () => {
    const call = leanCaller(stack.gateway!.url);
    const calls = 1_000;
    let held = 0;
    try {
      for (let i = 0; i < calls; i++) {
        // Answered by the gateway (invalid_input), so the calls go on while projects is down.
        const answer = await call<{ error?: string }>('get_file_outline', { repo: 'shop', path: `down\u0000-${i}` });
        assert.equal(answer.body.error, 'invalid_input');
        if (i % 100 === 99) held = Math.max(held, await metric('sextant_audit_backlog_bytes'));
      }
    } finally {
      call.close();
    }
    const dropped = await metric('sextant_audit_records_dropped_total', '{reason="backlog"}');
    assert.ok(held > 0 && held <= BACKLOG_BYTES, `held ${held} bytes`);
    assert.ok(dropped > 0 && dropped < calls, `${dropped} dropped`);
    assert.match(stack.gateway!.process.output(), /\d+ dropped from a full backlog/);
    assert.equal(stack.gateway!.process.output().match(/dropped from a full backlog/g)?.length, 1, 'logged once, not per record');

    await stack.startService('projects');
    let rows = 0;
    for (let i = 0; i < 300 && rows < calls - dropped; i++) {
      await sleep(100);
      // The table is made by the projects service's migrations as it starts.
      rows = await queryOnce<{ n: number }>(stack.database.url, 'SELECT count(*)::int AS n FROM projects.audit_log').then(
        (r) => r[0].n,
        () => 0,
      );
    }
    assert.equal(rows, calls - dropped, `${rows} rows, ${dropped} dropped of ${calls}`);
    // The newest were kept.
    const [last] = await queryOnce<{ n: number }>(
      stack.database.url,
      `SELECT count(*)::int AS n FROM projects.audit_log WHERE scope->>'path' = 'down\\u0000-${calls - 1}'`,
    );
    assert.equal(last.n, 1);
    assert.equal(await metric('sextant_audit_backlog_bytes'), 0);
  });
});
