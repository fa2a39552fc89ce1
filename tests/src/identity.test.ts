/**
 * One identity per repository (ADR 0044), across a restart: rows a registry
 * stored under two spellings of one repository (as before identities) are
 * merged at start, the locators rewritten, the memberships of both projects
 * kept on the survivor, and the merged-away id still names it. Real
 * Postgres, the one-process mode, a real bare repository.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  BareRepository,
  callTool,
  createTestDatabase,
  httpClient,
  infrastructure,
  queryOnce,
  startEmbedded,
  type Infrastructure,
  type TestDatabase,
} from '@sextant/testing';

describe('repository identity: a restart merges the rows of one repository written under two spellings', () => {
  let infra: Infrastructure;
  let database: TestDatabase;
  const root = mkdtempSync(join(tmpdir(), 'sextant-identity-'));
  const env = () => ({ DATABASE_URL: database.url, GIT_ALLOW_FILE_URLS: 'true', SEXTANT_DATA_DIR: join(root, 'data') });

  before(async () => {
    infra = await infrastructure();
    database = await createTestDatabase(infra.postgresUrl);
  });
  after(async () => {
    await database?.drop();
    await infra?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('keeps one row, rewrites its locator, moves both projects onto it, and the old id still names it', async () => {
    mkdirSync(join(root, 'remotes'));
    const repository = new BareRepository(join(root, 'remotes'), 'api');
    repository.commit('main', { 'src/index.ts': 'export function apiHandler(): number {\n  return 1;\n}\n' });

    // A first start creates the schema; then two rows as a registry without identities wrote them.
    const first = await startEmbedded(env());
    await first.stop();
    const [kept, merged] = [randomUUID(), randomUUID()];
    const R = '"workspace_registry"."repositories"';
    await queryOnce(
      database.url,
      `INSERT INTO ${R} (id, kind, locator, name, name_key, origin, status, last_indexed_at, file_count)
       VALUES ($1, 'remote', $3, $4, lower($4), 'registered', 'ready', now(), 1),
              ($2, 'remote', $5, $6, lower($6), 'registered', 'not_indexed', NULL, 0)`,
      [kept, merged, repository.fileUrl, 'api', `file://${join(root, 'remotes')}//api.git/`, 'api-spelled'],
    );
    const projects = { web: randomUUID(), ops: randomUUID() };
    for (const [name, id] of Object.entries(projects)) {
      await queryOnce(database.url, `INSERT INTO "projects"."projects" (id, name, name_key) VALUES ($1, $2, $2)`, [id, name]);
    }
    await queryOnce(
      database.url,
      `INSERT INTO "projects"."project_repositories" (project_id, repository_id) VALUES ($1, $3), ($2, $4), ($1, $4)`,
      [projects.web, projects.ops, kept, merged],
    );

    const second = await startEmbedded(env());
    try {
      const rows = await queryOnce<{ id: string; locator: string; identity: string }>(
        database.url,
        `SELECT id, locator, identity FROM ${R} ORDER BY id`,
      );
      assert.deepEqual(
        rows.map((r) => r.id),
        [kept],
        'the indexed row survives',
      );
      assert.equal(rows[0].identity, `file:${repository.path}`);
      assert.equal(rows[0].locator, repository.fileUrl);
      assert.match(second.process.output(), new RegExp(`merged repository ${merged}`), 'the merge is logged');

      // The projects service moves the memberships (the registry sends them at start, and again until taken); the
      // registry records the move once the projects service has answered, so a reader can see the one before the other.
      let members: Array<{ project_id: string; repository_id: string }> = [];
      let recorded = 0;
      for (let i = 0; i < 100; i++) {
        members = await queryOnce(
          database.url,
          `SELECT project_id, repository_id FROM "projects"."project_repositories" ORDER BY project_id, repository_id`,
        );
        const [moved] = await queryOnce<{ n: number }>(
          database.url,
          `SELECT count(*)::int AS n FROM "workspace_registry"."repository_merges" WHERE merged_id = $1 AND memberships_moved_at IS NOT NULL`,
          [merged],
        );
        recorded = moved.n;
        if (!members.some((m) => m.repository_id === merged) && recorded === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual(
        members
          .map((m) => `${m.project_id === projects.web ? 'web' : 'ops'}:${m.repository_id === kept ? 'kept' : m.repository_id}`)
          .sort(),
        ['ops:kept', 'web:kept'],
      );
      assert.equal(recorded, 1, 'the registry records the move');

      // Both ids and every spelling name the one repository.
      const client = await httpClient(second.url);
      try {
        // Every spelling of its URL is the one repository: indexing it runs a job of the survivor.
        for (const reference of [repository.fileUrl, `${repository.fileUrl}/`, `file://${join(root, 'remotes', 'api')}`]) {
          const started = await callTool<{ runId?: string }>(client, 'index_repository', { repository: reference });
          assert.ok(started.body.runId, `${reference}: ${JSON.stringify(started.body)}`);
          const job = await callTool<{ repository_id?: string }>(client, 'get_index_job_status', { runId: started.body.runId });
          assert.equal(job.body.repository_id, kept, `${reference}: ${JSON.stringify(job.body)}`);
        }
        // The merged-away id goes on naming the survivor.
        for (const id of [kept, merged]) {
          const answer = await callTool<{ matches?: unknown[]; error?: string }>(client, 'grep_repository', {
            repository: id,
            pattern: 'apiHandler',
          });
          assert.equal(answer.body.matches?.length, 1, `${id}: ${JSON.stringify(answer.body)}`);
        }
        const listed = await callTool<{ repositories: Array<{ id: string }> }>(client, 'list_repositories', {});
        assert.deepEqual(
          listed.body.repositories.map((r) => r.id),
          [kept],
        );
      } finally {
        await client.close();
      }
    } finally {
      await second.stop();
    }
  });
});
