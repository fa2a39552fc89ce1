import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Database, startEmbeddedPostgres, type EmbeddedPostgres } from '@sextant/persistence';
import { MIGRATIONS } from '../migrations/index.js';
import { AuditLog } from './audit-log.js';

const record = (at: string, tool: string) => ({
  at,
  principal: 'key:ci',
  principal_id: 'k1',
  tool,
  scope: { repo: 'shop' },
  repositories: ['shop'],
  code: 'ok',
  duration_ms: 1.5,
  trace_id: null,
  request_id: 'r1',
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
    assert.equal(await audit.store([record(old, 'search_code'), record(new Date().toISOString(), 'grep_repository')]), 2);
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
});
