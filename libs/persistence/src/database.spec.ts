import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { Database, sql } from './database.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.js';
import { classifyDatabaseError, isDatabaseUnavailable } from './errors.js';

class CreateThings1700000000000 implements MigrationInterface {
  name = 'CreateThings1700000000000';
  async up(q: QueryRunner) {
    await q.query(`CREATE TABLE "spec"."things" (id int PRIMARY KEY, label text NOT NULL)`);
  }
  async down(q: QueryRunner) {
    await q.query(`DROP TABLE "spec"."things"`);
  }
}

const INSERT = sql('insert', `INSERT INTO "spec"."things" (id, label) VALUES ($1, $2)`);
const COUNT = sql('count', `SELECT count(*)::int AS n FROM "spec"."things"`);

describe('Database on embedded Postgres (PGlite over the wire protocol)', () => {
  let pg: EmbeddedPostgres;
  let db: Database;

  before(async () => {
    pg = await startEmbeddedPostgres({ dataDir: 'memory://' });
    db = new Database({ url: pg.url, schema: 'spec', migrations: [CreateThings1700000000000], poolSize: 4, connectTimeoutMs: 2_000 });
    await db.start();
  });
  after(async () => {
    await db.stop();
    await pg.stop();
  });

  it('creates its schema and runs migrations once', async () => {
    assert.equal(db.ready, true);
    const again = new Database({
      url: pg.url,
      schema: 'spec',
      migrations: [CreateThings1700000000000],
      poolSize: 1,
      connectTimeoutMs: 2_000,
    });
    await again.start();
    assert.equal(again.ready, true, 'a second start finds the migration applied and does not fail');
    await again.stop();
  });

  it('runs the same named statement on many connections at once', async () => {
    await Promise.all(Array.from({ length: 40 }, (_, i) => db.run(INSERT, [i, `thing ${i}`])));
    assert.equal((await db.run<{ n: number }>(COUNT, [])).rows[0].n, 40);
  });

  it('rolls a failed transaction back entirely', async () => {
    await assert.rejects(
      db.transaction(async (m) => {
        await db.run(INSERT, [1000, 'kept?'], m);
        await db.run(INSERT, [1000, 'duplicate key'], m);
      }),
      /duplicate key/,
    );
    assert.equal((await db.run<{ n: number }>(COUNT, [])).rows[0].n, 40);
  });

  it('reports the check as up', async () => {
    assert.deepEqual(await db.check(), { status: 'up' });
  });
});

describe('Database with a broken migration', () => {
  it('fails start-up loudly instead of retrying as if the database were down', async () => {
    class Broken1700000000001 implements MigrationInterface {
      name = 'Broken1700000000001';
      async up(q: QueryRunner) {
        await q.query(`CREATE TABLE "broken"."t" (id int PRIMARY KEY, oops nonexistent_type)`);
      }
      async down() {}
    }
    const pg = await startEmbeddedPostgres({ dataDir: 'memory://' });
    const db = new Database({ url: pg.url, schema: 'broken', migrations: [Broken1700000000001], poolSize: 1, connectTimeoutMs: 2_000 });
    try {
      await assert.rejects(db.start(), /nonexistent_type/);
    } finally {
      await db.stop();
      await pg.stop();
    }
  });
});

describe('Database that cannot reach Postgres', () => {
  it('starts anyway, reports down, and answers unavailable', async () => {
    const db = new Database({
      url: 'postgres://postgres@127.0.0.1:9/none',
      schema: 'x',
      migrations: [],
      poolSize: 1,
      connectTimeoutMs: 500,
    });
    await db.start();
    assert.equal(db.ready, false);
    assert.equal((await db.check()).status, 'down');
    assert.throws(
      () => db.dataSource,
      (error: { busError?: { code: string } }) => error.busError?.code === 'unavailable',
    );
    await db.stop();
  });
});

describe('database error classification', () => {
  it('maps network failures and admin shutdowns to unavailable, nothing else', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const wrapped = Object.assign(new Error('query failed'), { driverError: { code: '57P01' } });
    assert.equal(isDatabaseUnavailable(refused), true);
    assert.equal(isDatabaseUnavailable(wrapped), true);
    assert.equal(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')), true);
    assert.equal(isDatabaseUnavailable(Object.assign(new Error('syntax error'), { code: '42601' })), false);
    const error = classifyDatabaseError(refused);
    assert.equal(error?.code, 'unavailable');
    assert.doesNotMatch(error.message, /127\.0\.0\.1/, 'no internal address reaches the client');
  });
});
