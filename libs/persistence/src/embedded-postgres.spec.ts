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
});
