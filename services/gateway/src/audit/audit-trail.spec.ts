import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { Controller, Logger, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { RecordAudit, type AuditRecord } from '@sextant/contracts';
import { BusExceptionFilter, InProcessBus, ToolHandler } from '@sextant/messaging';
import { ServiceError } from '@sextant/work';
import { auditRecordsDropped } from '@sextant/telemetry';
import { loadConfig } from '../config.js';
import { auditDetails, AuditTrail } from './audit-trail.js';

describe('auditDetails: what a call contributes to its audit record', () => {
  it('takes the repositories an answer covers from its freshness', () => {
    const details = auditDetails(
      { query: 'q', scope: { type: 'project', project: 'web' } },
      { freshness: [{ repo: 'a' }, { repo: 'b' }, { repo: 'a' }] },
      true,
    );
    assert.deepEqual(details, { scope: { scope: { type: 'project', project: 'web' } }, repositories: ['a', 'b'], query: 'q' });
  });

  it('takes the one repository a git tool named when its answer has no freshness, and none when the call failed', () => {
    assert.deepEqual(auditDetails({ repo: 'web-dir', path: 'a.ts' }, { content: '' }, true).repositories, ['web-dir']);
    assert.deepEqual(auditDetails({ workspace: '/srv/w', pattern: 'x' }, { matches: [] }, true).repositories, ['/srv/w']);
    assert.deepEqual(auditDetails({ repository: 'github:o/r', pattern: 'x' }, undefined, true).repositories, []);
  });

  it('keeps the query out for a caller who opted out', () => {
    assert.equal(auditDetails({ pattern: 'secret' }, { matches: [] }, false).query, null);
  });
});

/**
 * The hand-over to the projects service, over the real in-process bus (the bus of embedded mode: JSON round trip,
 * timeouts, errors as data) to a stand-in of the projects service that validates with the real contract and keeps
 * records by request id, as the store does. What it may do: take records, refuse the ones named `poison` (a record
 * the store refuses), answer `unavailable` (database or service down), or not answer in time.
 */
@Controller()
class ProjectsStandIn {
  static mode: 'store' | 'unavailable' | 'hang' = 'store';
  static readonly stored = new Map<string, AuditRecord>();
  static requests = 0;
  static largestRequestBytes = 0;

  @ToolHandler(RecordAudit)
  async record(input: RecordAudit.Request): Promise<RecordAudit.Response> {
    ProjectsStandIn.requests += 1;
    // A store that does not answer within the bus timeout (2 s here).
    if (ProjectsStandIn.mode === 'hang') await sleep(3_000);
    ProjectsStandIn.largestRequestBytes = Math.max(ProjectsStandIn.largestRequestBytes, Buffer.byteLength(JSON.stringify(input)));
    if (ProjectsStandIn.mode === 'unavailable') throw ServiceError.of('unavailable', 'The database is not reachable right now.');
    // Postgres refuses a NUL in text and jsonb: as JSON, an unescaped \u0000.
    if (/(^|[^\\])\\u0000/.test(JSON.stringify(input))) throw ServiceError.of('internal_error', 'unsupported Unicode escape sequence');
    if (input.records.some((r) => r.tool === 'poison')) throw ServiceError.of('internal_error', 'the store refused a record');
    let stored = 0;
    for (const r of input.records as AuditRecord[]) {
      if (ProjectsStandIn.stored.has(r.request_id)) continue;
      ProjectsStandIn.stored.set(r.request_id, r);
      stored += 1;
    }
    return { stored };
  }

  static reset(): void {
    ProjectsStandIn.mode = 'store';
    ProjectsStandIn.stored.clear();
    ProjectsStandIn.requests = 0;
    ProjectsStandIn.largestRequestBytes = 0;
  }
}

@Module({ controllers: [ProjectsStandIn] })
class StandInModule {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function droppedCount(reason: string): Promise<number> {
  return (await auditRecordsDropped.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

let serial = 0;
function entry(fields: Partial<AuditRecord> = {}): AuditRecord {
  serial += 1;
  return {
    at: new Date().toISOString(),
    principal: 'key:ci',
    principal_id: 'k1',
    tool: 'get_file_outline',
    scope: { path: `src/file-${serial}.ts` },
    repositories: [],
    code: 'ok',
    duration_ms: 1,
    trace_id: null,
    request_id: `req-${serial}`,
    query: null,
    ...fields,
  };
}

describe('AuditTrail: bounded records, batches and backlog; refusals split and set aside', () => {
  const bus = new InProcessBus({ timeoutMs: 2_000 });
  let app: INestMicroservice;
  const warnings: string[] = [];
  const trails: AuditTrail[] = [];
  const trail = (env: Record<string, string> = {}) => {
    const made = new AuditTrail(bus, loadConfig({ SEXTANT_SHUTDOWN_GRACE_MS: '1000', ...env }));
    trails.push(made);
    return made;
  };

  before(async () => {
    app = await NestFactory.createMicroservice(StandInModule, { strategy: bus, logger: false });
    app.useGlobalFilters(new BusExceptionFilter());
    await app.listen();
    // After the app is made (it sets its own logger): the warnings the trail logs, to count them.
    Logger.overrideLogger({
      log: () => undefined,
      error: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
      warn: (message: unknown) => void warnings.push(typeof message === 'string' ? message : JSON.stringify(message)),
    });
  });
  beforeEach(() => {
    ProjectsStandIn.reset();
    warnings.length = 0;
  });
  // Each test's trails stopped (what they hold handed over), so none of them asks the stand-in during the next test.
  afterEach(async () => {
    ProjectsStandIn.mode = 'store';
    await Promise.all(trails.splice(0).map((t) => t.onModuleDestroy()));
  });
  after(() => app.close());

  it('keeps a record with a NUL and a 1 MB path bounded and clean, and the projects service takes it', async () => {
    const audit = trail();
    audit.record(entry({ scope: { path: 'a\u0000b' }, request_id: 'nul' }));
    audit.record(entry({ scope: { repo: 'r'.repeat(1024 * 1024) }, request_id: 'huge' }));
    assert.ok(audit.backlog.bytes < 4 * 1024, `${audit.backlog.bytes} bytes held for two records`);
    await audit.flush();
    assert.deepEqual(ProjectsStandIn.stored.get('nul')?.scope, { path: 'a\\u0000b' });
    assert.match(String(ProjectsStandIn.stored.get('huge')?.scope.repo), /^r+…\[truncated \d+ bytes\]$/);
    assert.equal(audit.backlog.records, 0);
  });

  it('splits a batch the service refuses until the one record refused is alone: the others are stored, it is set aside, nothing is sent again', async () => {
    const audit = trail();
    const refusedBefore = await droppedCount('refused');
    for (let i = 0; i < 100; i++) audit.record(entry(i === 37 ? { tool: 'poison', request_id: 'poison' } : {}));
    await audit.flush();
    assert.equal(ProjectsStandIn.stored.size, 99);
    assert.ok(!ProjectsStandIn.stored.has('poison'));
    assert.equal((await droppedCount('refused')) - refusedBefore, 1);
    assert.ok(ProjectsStandIn.requests <= 2 * Math.ceil(Math.log2(100)) + 1, `${ProjectsStandIn.requests} requests`);
    assert.ok(
      warnings.some((w) => w.includes('refused an audit record') && w.includes('"request_id":"poison"')),
      warnings.join('\n'),
    );
    const requests = ProjectsStandIn.requests;
    await audit.flush();
    await sleep(1_200);
    assert.equal(ProjectsStandIn.requests, requests, 'the refused record is not sent again');
    assert.equal(audit.backlog.records, 0);
  });

  it('holds at most SEXTANT_AUDIT_BACKLOG_BYTES while the service cannot take records, dropping the oldest, counted and logged once', async () => {
    const backlogBytes = 128 * 1024;
    const audit = trail({ SEXTANT_AUDIT_BACKLOG_BYTES: String(backlogBytes) });
    ProjectsStandIn.mode = 'unavailable';
    const droppedBefore = await droppedCount('backlog');
    const total = 5_000;
    let largest = 0;
    for (let i = 0; i < total; i++) {
      audit.record(entry({ scope: { path: `${'p'.repeat(200)}-${i}` } }));
      largest = Math.max(largest, audit.backlog.bytes);
    }
    assert.ok(largest <= backlogBytes, `held ${largest} bytes`);
    await sleep(50);
    const held = audit.backlog.records;
    const dropped = (await droppedCount('backlog')) - droppedBefore;
    assert.equal(held + dropped, total);
    assert.ok(dropped > 0);
    // The service was asked a few times, not once per record; the drops were logged once, not per record.
    assert.ok(ProjectsStandIn.requests <= 3, `${ProjectsStandIn.requests} requests while it was down`);
    assert.equal(warnings.filter((w) => w.includes('dropped from a full backlog')).length, 1, warnings.join('\n'));
    ProjectsStandIn.mode = 'store';
    await audit.flush();
    assert.equal(ProjectsStandIn.stored.size, held, 'the newest records were kept and stored');
    assert.ok(ProjectsStandIn.stored.has(`req-${serial}`));
  });

  it('backs off while the service is down: the retries double their wait', async () => {
    const audit = trail();
    ProjectsStandIn.mode = 'unavailable';
    const started = Date.now();
    for (let i = 0; i < 2_000; i++) audit.record(entry());
    while (Date.now() - started < 3_500) {
      audit.record(entry());
      await sleep(20);
    }
    // Tries at about 0, 1 and 3 s (waits of 1 then 2 s), not one per record nor one a second.
    assert.ok(ProjectsStandIn.requests >= 2 && ProjectsStandIn.requests <= 3, `${ProjectsStandIn.requests} requests in 3.5 s`);
    ProjectsStandIn.mode = 'store';
    await audit.flush();
    assert.ok(ProjectsStandIn.stored.size > 2_000, `${ProjectsStandIn.stored.size} stored`);
  });

  it('sends batches of at most SEXTANT_AUDIT_BATCH_BYTES', async () => {
    const batchBytes = 64 * 1024;
    const audit = trail({ SEXTANT_AUDIT_BATCH_BYTES: String(batchBytes) });
    // Records of about 8 KiB each (eight scope values at their cap): a batch of 100 would be 800 KiB.
    const big = Object.fromEntries(
      ['scope', 'repo', 'repos', 'repository', 'project', 'workspace', 'file_path', 'path'].map((k) => [k, 'x'.repeat(5_000)]),
    );
    for (let i = 0; i < 200; i++) audit.record(entry({ scope: big }));
    await audit.flush();
    assert.equal(ProjectsStandIn.stored.size, 200);
    assert.ok(ProjectsStandIn.largestRequestBytes <= batchBytes, `${ProjectsStandIn.largestRequestBytes} bytes in one request`);
    assert.ok(ProjectsStandIn.requests >= 200 / Math.floor(batchBytes / 8_500), `${ProjectsStandIn.requests} requests`);
  });

  it('on stop, hands over what it holds; past the grace period it drops the rest, counted', async () => {
    const working = trail();
    for (let i = 0; i < 250; i++) working.record(entry());
    await working.onModuleDestroy();
    assert.equal(ProjectsStandIn.stored.size, 250);

    for (const mode of ['unavailable', 'hang'] as const) {
      const stuck = trail({ SEXTANT_SHUTDOWN_GRACE_MS: '500' });
      ProjectsStandIn.mode = mode;
      for (let i = 0; i < 250; i++) stuck.record(entry());
      const before = await droppedCount('shutdown');
      const started = performance.now();
      await stuck.onModuleDestroy();
      const ms = performance.now() - started;
      // Down: three tries 250 ms apart; not answering: until the grace period ends. Never longer.
      assert.ok(ms < 1_000 && (mode === 'unavailable' || ms >= 450), `${mode}: ${ms} ms`);
      assert.equal((await droppedCount('shutdown')) - before, 250);
      stuck.record(entry());
      assert.equal((await droppedCount('shutdown')) - before, 251, 'a record after the stop is dropped at once');
    }
  });
});
