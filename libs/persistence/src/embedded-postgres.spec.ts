import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { startEmbeddedPostgres } from './embedded-postgres.js';

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
      await clients[0]!.query('CREATE TABLE items (id int PRIMARY KEY, owner int NOT NULL)');
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
          const big = clients[0]!;
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
      const { rows } = await clients[0]!.query('SELECT count(*)::int AS n FROM items');
      assert.equal(rows[0].n, 600 + 20 * 20_000);
    } finally {
      for (const client of clients) await client.end().catch(() => undefined);
      await server.stop();
    }
  });
});
