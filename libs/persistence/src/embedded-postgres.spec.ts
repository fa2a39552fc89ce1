import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { Database, sql } from './database.js';
import { inProcessStream, startEmbeddedPostgres } from './embedded-postgres.js';

describe('embedded Postgres', () => {
  it('keeps data across restarts and serves pgvector', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-pglite-'));
    try {
      const first = await startEmbeddedPostgres({ dataDir: dir });
      try {
        const client = new pg.Client({ connectionString: first.url });
        await client.connect();
        await client.query(`CREATE TABLE t (v vector(3))`);
        await client.query(`INSERT INTO t VALUES ('[1,2,3]')`);
        await client.end();
      } finally {
        await first.stop();
      }

      const second = await startEmbeddedPostgres({ dataDir: dir });
      try {
        const again = new pg.Client({ connectionString: second.url });
        await again.connect();
        const { rows } = await again.query(`SELECT v <-> '[1,2,4]' AS distance FROM t`);
        assert.equal(rows[0].distance, 1);
        await again.end();
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps each connection's extended-protocol statements whole when several connections query at once", async () => {
    const server = await startEmbeddedPostgres({ dataDir: 'memory://' });
    const clients = Array.from({ length: 4 }, () => new pg.Client({ connectionString: server.url }));
    try {
      for (const client of clients) await client.connect();
      await clients[0].query('CREATE TABLE items (id int PRIMARY KEY, owner int NOT NULL)');
      // Parse/Bind/Execute/Sync of four connections at once, each with its own statement and parameters:
      // interleaved, one connection's Bind lands on another's statement or portal.
      const wrong: string[] = [];
      await Promise.all(
        clients.map(async (client, owner) => {
          for (let i = 0; i < 150; i++) {
            const id = owner * 1_000 + i;
            const inserted = await client.query(`INSERT INTO items (id, owner) VALUES ($1, $2) RETURNING id, owner, ${owner} AS tag`, [
              id,
              owner,
            ]);
            const row = inserted.rows[0];
            if (row?.id !== id || row.owner !== owner || row.tag !== owner) wrong.push(`insert ${id}: ${JSON.stringify(row)}`);
            const read = await client.query(`SELECT count(*)::int AS n, ${owner} AS tag FROM items WHERE owner = $1`, [owner]);
            if (read.rows[0]?.n !== i + 1 || read.rows[0]?.tag !== owner) wrong.push(`count ${id}: ${JSON.stringify(read.rows[0])}`);
          }
        }),
      );
      // Big Bind messages arrive in several reads: the window in which another connection's messages could get in.
      await Promise.all([
        (async () => {
          const big = clients[0];
          for (let round = 0; round < 20; round++) {
            const ids = Array.from({ length: 20_000 }, (_, i) => 100_000 + round * 20_000 + i);
            const result = await big.query('INSERT INTO items (id, owner) SELECT unnest($1::int[]), 9 RETURNING 0', [ids]);
            if (result.rowCount !== ids.length) wrong.push(`bulk ${round}: ${result.rowCount} rows`);
          }
        })(),
        ...clients.slice(1).map(async (client, n) => {
          for (let i = 0; i < 300; i++) {
            const { rows } = await client.query(`SELECT $1::int AS echo, ${n} AS tag`, [i]);
            if (rows[0]?.echo !== i || rows[0]?.tag !== n) wrong.push(`echo ${n}/${i}: ${JSON.stringify(rows[0])}`);
          }
        }),
      ]);
      assert.deepEqual(wrong.slice(0, 5), []);
      const { rows } = await clients[0].query('SELECT count(*)::int AS n FROM items');
      assert.equal(rows[0].n, 600 + 20 * 20_000);
    } finally {
      for (const client of clients) await client.end().catch(() => undefined);
      await server.stop();
    }
  });
  it('never serves without authentication: a Unix socket in a 0700 directory, also for a data path too long for a socket', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sextant-pglite-'));
    const long = join(root, 'a-data-directory-whose-path-is-longer-than-a-unix-socket-path-may-be'.repeat(2));
    try {
      for (const dataDir of [long, 'memory://', join(root, 'short')]) {
        const server = await startEmbeddedPostgres({ dataDir });
        let socketDir = '';
        try {
          const url = new URL(server.url);
          socketDir = url.searchParams.get('host') ?? '';
          assert.ok(socketDir.startsWith('/'), `${dataDir}: served on ${server.url}, not on a Unix socket`);
          const stat = statSync(socketDir);
          assert.deepEqual([stat.mode & 0o777, stat.uid], [0o700, process.getuid!()], `${dataDir}: ${socketDir}`);
          // Sextant itself still connects.
          const client = new pg.Client({ connectionString: server.url });
          await client.connect();
          assert.equal((await client.query('SELECT 1 AS one')).rows[0].one, 1);
          await client.end();
          // Another local user (nobody) cannot: the directory refuses it before Postgres would take any password.
          if (process.getuid!() === 0) {
            const other = spawnSync(process.execPath, ['--input-type=module', '-e', STARTUP_PROBE, server.url], {
              uid: 65_534,
              gid: 65_534,
              encoding: 'utf8',
              cwd: '/',
            });
            assert.match(other.stdout.trim(), /^refused EACCES$/, `${dataDir}: ${other.stdout}${other.stderr}`);
          }
        } finally {
          await server.stop();
        }
        if (dataDir !== join(root, 'short')) assert.equal(existsSync(socketDir), false, 'its own socket directory is removed on stop');
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  // Proves a Database of the process that started the embedded database reaches it in memory: with the socket file
  // gone, a client through the socket is refused, and the Database still runs its statements, transactions and
  // messages of megabytes, and ends its connections (80 opened and closed in turn, past the server's 64).
  it('serves its own process in memory, not through the socket', async () => {
    const server = await startEmbeddedPostgres({ dataDir: 'memory://' });
    const db = new Database({ url: server.url, schema: 'inproc', migrations: [], poolSize: 2, connectTimeoutMs: 2_000 });
    try {
      assert.ok(inProcessStream(server.url), 'an in-process connection is offered for this URL');
      assert.equal(inProcessStream('postgres://postgres@localhost/postgres?host=%2Felsewhere'), undefined, 'and for no other');
      rmSync(join(new URL(server.url).searchParams.get('host')!, '.s.PGSQL.5432'));
      const outside = new pg.Client({ connectionString: server.url });
      await assert.rejects(outside.connect(), /ENOENT/, 'the socket is gone');
      await db.start();
      assert.equal(db.ready, true);
      await db.run(sql('create', 'CREATE TABLE "inproc"."blobs" (id int PRIMARY KEY, body text NOT NULL)'), []);
      const body = 'x'.repeat(5 << 20);
      await db.transaction(async (m) => {
        await db.run(sql('put', 'INSERT INTO "inproc"."blobs" VALUES ($1, $2)'), [1, body], m);
        await db.run(sql('put', 'INSERT INTO "inproc"."blobs" VALUES ($1, $2)'), [2, 'two'], m);
      });
      const { rows } = await db.run<{ n: number; length: number }>(
        sql('size', 'SELECT count(*)::int AS n, max(length(body))::int AS length FROM "inproc"."blobs"'),
        [],
      );
      assert.deepEqual(rows, [{ n: 2, length: 5 << 20 }]);
      await assert.rejects(
        db.transaction(async (m) => {
          await db.run(sql('put', 'INSERT INTO "inproc"."blobs" VALUES ($1, $2)'), [3, 'three'], m);
          await db.run(sql('put', 'INSERT INTO "inproc"."blobs" VALUES ($1, $2)'), [1, 'again'], m);
        }),
        /duplicate key/,
      );
      const after = await db.run<{ n: number }>(sql('count', 'SELECT count(*)::int AS n FROM "inproc"."blobs"'), []);
      assert.equal(after.rows[0].n, 2, 'the failed transaction left nothing behind');
      for (let i = 0; i < 80; i++) {
        const client = new pg.Client({ connectionString: server.url, stream: inProcessStream(server.url) });
        await client.connect();
        assert.equal((await client.query('SELECT $1::int AS i', [i])).rows[0].i, i);
        await client.end();
      }
    } finally {
      await db.stop();
      await server.stop();
    }
    assert.equal(inProcessStream(server.url), undefined, 'a stopped database is no longer offered');
  });

  // Proves an in-memory connection holds one of the server's connections only from connect to end: clients made and
  // never connected take none, and a connection ended frees its place for the next at once.
  it('counts an in-memory connection against the cap only while it is connected', async () => {
    const server = await startEmbeddedPostgres({ dataDir: 'memory://', maxConnections: 2 });
    const connect = inProcessStream(server.url)!;
    const clients: pg.Client[] = [];
    try {
      for (let i = 0; i < 3; i++) new pg.Client({ connectionString: server.url, stream: connect }); // never connected
      for (let i = 0; i < 2; i++) {
        clients.push(new pg.Client({ connectionString: server.url, stream: connect }));
        await clients[i].connect();
      }
      for (let i = 0; i < 10; i++) {
        await clients.shift()!.end();
        const next = new pg.Client({ connectionString: server.url, stream: connect });
        clients.push(next);
        await next.connect();
        assert.equal((await next.query('SELECT $1::int AS i', [i])).rows[0].i, i);
      }
    } finally {
      for (const client of clients) await client.end().catch(() => undefined);
      await server.stop();
    }
  });
});

/**
 * A Postgres startup message as any local process can send it, to the
 * socket or host:port of a URL; prints `ok <auth code>` (0: in without a
 * password) or `refused <code>`.
 */
const STARTUP_PROBE = `
import { connect } from 'node:net';
const url = new URL(process.argv[1]);
const dir = url.searchParams.get('host');
const socket = dir ? connect(dir + '/.s.PGSQL.5432') : connect(Number(url.port), url.hostname);
socket.on('error', (e) => { console.log('refused ' + e.code); process.exit(0); });
socket.on('connect', () => {
  const params = Buffer.from('user\\0postgres\\0database\\0postgres\\0\\0');
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + params.length, 0);
  head.writeInt32BE(196608, 4);
  socket.write(Buffer.concat([head, params]));
});
socket.once('data', (d) => { console.log(d[0] === 82 ? 'ok ' + d.readInt32BE(5) : 'refused ' + String.fromCharCode(d[0])); process.exit(0); });
setTimeout(() => { console.log('timeout'); process.exit(0); }, 5000);
`;
