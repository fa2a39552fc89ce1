import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Database, startEmbeddedPostgres, type EmbeddedPostgres } from '@sextant/persistence';
import { RecordAudit } from '@sextant/contracts';
import { AuditLogRequestId1764210000000 } from '../migrations/1764210000000-audit-log-request-id.js';
import { MIGRATIONS } from '../migrations/index.js';
import { AuditLog } from './audit-log.js';

const record = (at: string, tool: string, request_id = 'r1') => ({
  at,
  principal: 'key:ci',
  principal_id: 'k1',
  tool,
  scope: { repo: 'shop' },
  repositories: ['shop'],
  code: 'ok',
  duration_ms: 1.5,
  trace_id: null,
  request_id,
  query: null,
});

describe('AuditLog (PGlite, real SQL and migrations)', () => {
  let pg: EmbeddedPostgres;
  let db: Database;

  before(async () => {
    pg = await startEmbeddedPostgres({ dataDir: 'memory://' });
    db = new Database({ url: pg.url, schema: 'projects', migrations: MIGRATIONS, poolSize: 2, connectTimeoutMs: 2_000 });
    await db.start();
  });
  after(async () => {
    await db?.stop();
    await pg?.stop();
  });

  it('stores a batch in one statement and deletes records past the retention', async () => {
    const audit = Object.assign(new AuditLog(db), { retentionDays: 30 });
    const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
    assert.deepEqual(await audit.store([record(old, 'search_code', 'r1'), record(new Date().toISOString(), 'grep_repository', 'r2')]), {
      stored: 2,
      refused: 0,
    });
    const stored = await db.run<{ tool: string; repositories: string[]; scope: unknown }>(
      { name: 'read', text: 'SELECT tool, repositories, scope FROM projects.audit_log ORDER BY id' },
      [],
    );
    assert.deepEqual(stored.rows[1], { tool: 'grep_repository', repositories: ['shop'], scope: { repo: 'shop' } });
    assert.equal(await audit.expire(), 1);
    const left = await db.run<{ tool: string }>({ name: 'left', text: 'SELECT tool FROM projects.audit_log' }, []);
    assert.deepEqual(
      left.rows.map((r) => r.tool),
      ['grep_repository'],
    );
  });

  it('stores a record with a NUL or a control character, cleaned, with the rest of its batch (Postgres refuses \\u0000)', async () => {
    const audit = new AuditLog(db);
    const now = new Date().toISOString();
    const nul = { ...record(now, 'get_file_outline', 'nul-1'), scope: { path: 'a\u0000b' }, query: 'q\u0000\u001b[2J' };
    assert.deepEqual(await audit.store([record(now, 'list_projects', 'nul-0'), nul, record(now, 'list_projects', 'nul-2')]), {
      stored: 3,
      refused: 0,
    });
    const stored = await db.run<{ scope: unknown; query: string }>(
      { name: 'read-nul', text: `SELECT scope, query FROM projects.audit_log WHERE request_id = 'nul-1'` },
      [],
    );
    assert.deepEqual(stored.rows, [{ scope: { path: 'a\\u0000b' }, query: 'q\\u0000\\u001b[2J' }]);
  });

  it('stores a record handed over again once (a retry after a lost answer adds nothing)', async () => {
    const audit = new AuditLog(db);
    const batch = [record(new Date().toISOString(), 'search_code', 'again-1'), record(new Date().toISOString(), 'search_code', 'again-2')];
    assert.deepEqual(await audit.store(batch), { stored: 2, refused: 0 });
    assert.deepEqual(await audit.store([...batch, record(new Date().toISOString(), 'search_code', 'again-3')]), { stored: 1, refused: 0 });
    const count = await db.run<{ n: number }>(
      { name: 'count-again', text: `SELECT count(*)::int AS n FROM projects.audit_log WHERE request_id LIKE 'again-%'` },
      [],
    );
    assert.equal(count.rows[0].n, 3);
  });

  it('sets aside the one record the database refuses and stores the others of its batch', async () => {
    const audit = new AuditLog(db);
    const now = new Date().toISOString();
    // Not a time: the cast to timestamptz fails, for this record only.
    const bad = record('not a time', 'search_code', 'bad-1');
    assert.deepEqual(await audit.store([record(now, 'search_code', 'bad-0'), bad, record(now, 'search_code', 'bad-2')]), {
      stored: 2,
      refused: 1,
    });
    const stored = await db.run<{ request_id: string }>(
      { name: 'read-bad', text: `SELECT request_id FROM projects.audit_log WHERE request_id LIKE 'bad-%' ORDER BY request_id` },
      [],
    );
    assert.deepEqual(
      stored.rows.map((r) => r.request_id),
      ['bad-0', 'bad-2'],
    );
  });

  it('takes a batch with a record over the caps (a gateway of another version), bounded, with the others', async () => {
    const audit = new AuditLog(db);
    const now = new Date().toISOString();
    const over = {
      ...record(now, 'open_file', 'over-1'),
      principal: 'p'.repeat(10_000),
      scope: { repo: 'r'.repeat(1024 * 1024), extra: { deep: [1, 2, 3] } },
      query: 'q'.repeat(100_000),
    };
    const batch = { records: [record(now, 'list_projects', 'over-0'), over] };
    // The contract takes the batch (each record is bounded and checked by the store, not refused with its batch).
    assert.ok(RecordAudit.Request.safeParse(batch).success);
    assert.deepEqual(await audit.store(batch.records), { stored: 2, refused: 0 });
    const [row] = (
      await db.run<{ principal: string; repo: string; query: string; bytes: number }>(
        {
          name: 'read-over',
          text: `SELECT principal, scope->>'repo' AS repo, query, octet_length(t::text) AS bytes FROM projects.audit_log t WHERE request_id = 'over-1'`,
        },
        [],
      )
    ).rows;
    assert.match(row.principal, /^p+…\[truncated \d+ bytes\]$/);
    assert.match(row.repo, /^r+…\[truncated \d+ bytes\]$/);
    assert.ok(row.query.length <= 2_000);
    assert.ok(row.bytes < 4_096, `${row.bytes} bytes`);
  });
});

describe('migration AuditLogRequestId (PGlite): copies stored by earlier retries removed, request ids unique', () => {
  it('keeps the earliest row of each request id, then refuses a second one', async () => {
    const pg = await startEmbeddedPostgres({ dataDir: 'memory://' });
    const options = { url: pg.url, schema: 'projects', poolSize: 2, connectTimeoutMs: 2_000 };
    const earlier = new Database({ ...options, migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(AuditLogRequestId1764210000000)) });
    try {
      await earlier.start();
      const insert = `INSERT INTO projects.audit_log (at, principal, principal_id, tool, scope, repositories, code, duration_ms, request_id)
                      VALUES (now(), 'local', 'local', $1, '{}', '{}', 'ok', 1, $2)`;
      for (const [tool, id] of [
        ['first', 'a'],
        ['retry', 'a'],
        ['retry', 'a'],
        ['other', 'b'],
      ]) {
        await earlier.run({ name: 'seed', text: insert }, [tool, id]);
      }
    } finally {
      await earlier.stop();
    }
    const db = new Database({ ...options, migrations: MIGRATIONS });
    try {
      await db.start();
      const rows = await db.run<{ tool: string; request_id: string }>(
        { name: 'after', text: 'SELECT tool, request_id FROM projects.audit_log ORDER BY id' },
        [],
      );
      assert.deepEqual(rows.rows, [
        { tool: 'first', request_id: 'a' },
        { tool: 'other', request_id: 'b' },
      ]);
      await assert.rejects(
        db.run(
          {
            name: 'again',
            text: `INSERT INTO projects.audit_log (at, principal, principal_id, tool, scope, repositories, code, duration_ms, request_id) VALUES (now(), 'local', 'local', 'x', '{}', '{}', 'ok', 1, 'a')`,
          },
          [],
        ),
        /duplicate key|audit_log_request_id_key/,
      );
    } finally {
      await db.stop();
      await pg.stop();
    }
  });
});
