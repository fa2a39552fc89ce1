/**
 * Who may use which tool (issue #13): a matrix of principals × every tool of
 * the catalog (so a new tool cannot skip it), through the MCP SDK client in
 * the one-process mode with authentication on; and the per-project checks
 * of the projects service (a project a caller holds no role in answers like
 * one that does not exist).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TOOLS, type ToolAccess } from '@sextant/contracts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BareRepository, callTool, httpClient, type Sextant, type TestDatabase } from '@sextant/testing';
import { AUDIENCE, authenticatedSextant, runKeys, type Authenticated } from './auth-fixture.js';

/** What each kind of caller may use, written out here rather than computed by the code under test. */
const ALLOWED: Record<string, ReadonlySet<ToolAccess>> = {
  admin: new Set(['read', 'maintain', 'admin']),
  'maintainer of web': new Set(['read', 'maintain']),
  'reader of web': new Set(['read']),
  'user without grants': new Set(['read']),
  // Users of the identity provider, by their groups (SEXTANT_AUTH_GROUP_ROLES below).
  'user in platform': new Set(['read', 'maintain', 'admin']),
  'user in team-web': new Set(['read', 'maintain']),
};

function createKey(databaseUrl: string, ...args: string[]): string {
  const run = runKeys(databaseUrl, 'create', ...args);
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim();
}

describe('permissions: every tool × every kind of caller, and the projects a caller may see', () => {
  let fixture: Authenticated;
  let database: TestDatabase;
  let sextant: Sextant;
  const clients = new Map<string, Client>();

  before(async () => {
    fixture = await authenticatedSextant({
      GIT_ALLOW_FILE_URLS: 'true',
      // A project that does not exist gives nothing.
      SEXTANT_AUTH_GROUP_ROLES: 'platform=admin,team-web=web:maintainer,team-web=api:reader,team-web=gone:maintainer',
    });
    ({ database, sextant } = fixture);
    const admin = await httpClient(sextant.url, { bearer: createKey(database.url, '--name', 'admin', '--admin') });
    clients.set('admin', admin);
    for (const name of ['web', 'api']) {
      const created = await callTool(admin, 'create_project', { name });
      assert.equal(created.isError, false, JSON.stringify(created.body));
    }
    const key = (name: string, role: string, project: string) =>
      createKey(database.url, '--name', name, '--projects', project, '--role', role);
    clients.set('maintainer of web', await httpClient(sextant.url, { bearer: key('web-maintainer', 'maintainer', 'web') }));
    clients.set('reader of web', await httpClient(sextant.url, { bearer: key('web-reader', 'reader', 'web') }));
    clients.set('maintainer of api', await httpClient(sextant.url, { bearer: key('api-maintainer', 'maintainer', 'api') }));
    clients.set('user without grants', await httpClient(sextant.url, { bearer: await fixture.idp.token('nobody', AUDIENCE) }));
    const member = async (sub: string, groups: string[]) =>
      httpClient(sextant.url, { bearer: await fixture.idp.token(sub, AUDIENCE, { claims: { groups } }) });
    clients.set('user in platform', await member('pat', ['platform', 'other']));
    clients.set('user in team-web', await member('wendy', ['team-web']));
  });
  after(async () => {
    for (const client of clients.values()) await client.close();
    await fixture?.stop();
  });

  for (const [who, allowed] of Object.entries(ALLOWED)) {
    it(`${who}: tools/list shows exactly the tools it may use, and every other tool answers forbidden`, async () => {
      const client = clients.get(who)!;
      const listed = new Set((await client.listTools()).tools.map((t) => t.name));
      for (const tool of TOOLS) {
        const may = allowed.has(tool.access);
        assert.equal(listed.has(tool.name), may, `${who} ${may ? 'sees' : 'does not see'} ${tool.name} (${tool.access})`);
        const answer = await callTool<{ error?: string }>(client, tool.name, {});
        assert.equal(answer.body.error === 'forbidden', !may, `${tool.name} (${tool.access}) for ${who}: ${JSON.stringify(answer.body)}`);
      }
    });
  }

  it('shows a caller only the projects it holds a role in; another project answers like a missing one', async () => {
    const names = async (who: string) =>
      (await callTool<{ projects: Array<{ name: string }> }>(clients.get(who)!, 'list_projects', {})).body.projects.map((p) => p.name);
    assert.deepEqual(await names('admin'), ['api', 'web']);
    assert.deepEqual(await names('reader of web'), ['web']);
    assert.deepEqual(await names('maintainer of api'), ['api']);
    assert.deepEqual(await names('user without grants'), []);

    const reader = clients.get('reader of web')!;
    assert.equal((await callTool(reader, 'get_project', { project: 'web' })).isError, false);
    const hidden = await callTool<{ error: string; message: string }>(reader, 'get_project', { project: 'api' });
    const missing = await callTool<{ error: string; message: string }>(reader, 'get_project', { project: 'no-such' });
    assert.equal(hidden.body.error, 'not_found');
    assert.equal(hidden.body.message.replace('api', 'X'), missing.body.message.replace('no-such', 'X'), 'the same answer as a missing one');
  });

  it('lets a maintainer change its own project only, and a reader change none', async () => {
    const change = (who: string, project: string) =>
      callTool<{ error?: string }>(clients.get(who)!, 'update_project', { project, description: `by ${who}` });
    assert.equal((await change('maintainer of web', 'web')).isError, false);
    assert.equal((await change('maintainer of api', 'web')).body.error, 'not_found', 'no role in web: it does not exist for it');
    assert.equal((await change('reader of web', 'web')).body.error, 'forbidden');
    assert.equal((await change('admin', 'api')).isError, false);
    // Through groups: maintainer of web, reader of api.
    assert.equal((await change('user in team-web', 'web')).isError, false);
    assert.equal((await change('user in team-web', 'api')).body.error, 'forbidden');
    const created = await callTool<{ error?: string }>(clients.get('maintainer of web')!, 'create_project', { name: 'mine' });
    assert.equal(created.body.error, 'forbidden', 'creating a project is org-wide: admins only');
  });

  it('lets a caller read only the repositories of its projects; another answers like a missing one', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sextant-permissions-'));
    const urls: Record<string, string> = {};
    const admin = clients.get('admin')!;
    try {
      for (const name of ['web', 'api', 'loose']) {
        const repository = new BareRepository(root, `${name}-repo`);
        repository.commit('main', { 'src/index.ts': `export function ${name}Handler(): number {\n  return 1;\n}\n` });
        urls[name] = `file://${repository.path}`;
      }
      for (const name of ['web', 'api']) {
        const done = await admin.callTool({ name: 'index_repository', arguments: { repository: urls[name] } }, undefined, {
          onprogress: () => undefined,
          timeout: 120_000,
        });
        assert.equal((done.structuredContent as { status: string }).status, 'completed', JSON.stringify(done.structuredContent));
        const added = await callTool(admin, 'add_repository_to_project', { project: name, repository_id: urls[name] });
        assert.equal(added.isError, false, JSON.stringify(added.body));
      }
      // What a caller may read is kept 5 s by each service (ADR 0031): the matrix above read it before the repositories joined.
      await new Promise((resolve) => setTimeout(resolve, 5_100));
      const reader = clients.get('reader of web')!;
      const errorOf = async (client: Client, tool: string, args: Record<string, unknown>) =>
        (await callTool<{ error?: string; message?: string }>(client, tool, args)).body;

      // grep_repository: its project's repository, yes; another project's, exactly as a name nobody registered.
      assert.equal((await errorOf(reader, 'grep_repository', { repository: urls.web, pattern: 'Handler' })).error, undefined);
      const hidden = await errorOf(reader, 'grep_repository', { repository: 'api-repo', pattern: 'Handler' });
      const missing = await errorOf(reader, 'grep_repository', { repository: 'nope-repo', pattern: 'Handler' });
      assert.equal(hidden.error, 'not_found');
      assert.equal(hidden.message!.replace('api-repo', 'X'), missing.message!.replace('nope-repo', 'X'));
      assert.equal(
        (await errorOf(reader, 'grep_repository', { repository: urls.api, pattern: 'Handler' })).error,
        'not_found',
        'by its URL too',
      );
      // A repository nobody registered follows SEXTANT_UNREGISTERED_ACCESS (default: any caller).
      assert.equal((await errorOf(reader, 'grep_repository', { repository: urls.loose, pattern: 'Handler' })).error, undefined);

      // The symbol and search tools: the same rule, through their scopes.
      const located = await callTool<{ definitions: Array<{ name: string }> }>(reader, 'locate_symbol', {
        name: 'webHandler',
        repo: urls.web,
      });
      assert.deepEqual(
        located.body.definitions.map((d) => d.name),
        ['webHandler'],
      );
      assert.equal((await errorOf(reader, 'locate_symbol', { name: 'apiHandler', repo: urls.api })).error, 'not_found');
      assert.equal(
        (await errorOf(reader, 'search_code', { query: 'apiHandler', scope: { type: 'repos', repos: [urls.web, urls.api] } })).error,
        'not_found',
      );
      // list_repositories: only its own.
      const listed = async (client: Client) => {
        const answer = await callTool<{ repositories: Array<{ url: string | null }> }>(client, 'list_repositories', {});
        assert.equal(answer.isError, false, JSON.stringify(answer.body));
        return answer.body.repositories.map((r) => r.url);
      };
      assert.deepEqual(await listed(reader), [urls.web]);
      assert.deepEqual((await listed(admin)).sort(), [urls.api, urls.web].sort());
      // health_check names workspaces: the caller's only.
      const healthOf = async (client: Client) =>
        (await callTool<{ projects: Array<{ repo_root: string }> }>(client, 'health_check', {})).body.projects.map((w) => w.repo_root);
      assert.deepEqual(await healthOf(reader), [urls.web]);
      assert.deepEqual((await healthOf(admin)).sort(), [urls.api, urls.web].sort());
      const adminSees = await callTool<{ definitions: unknown[] }>(admin, 'locate_symbol', { name: 'apiHandler', repo: urls.api });
      assert.equal(adminSees.body.definitions.length, 1);

      // Indexing: a maintainer re-indexes its project's repository and registers new URLs; not another project's
      // repository (hidden: not_found; readable only: forbidden), nor a directory of the server (admins only).
      const index = (who: string, args: Record<string, unknown>) => errorOf(clients.get(who)!, 'index_repository', args);
      assert.equal((await index('maintainer of web', { repository: urls.web })).error, undefined);
      assert.equal((await index('maintainer of web', { repository: urls.api })).error, 'not_found');
      assert.equal((await index('user in team-web', { repository: urls.api })).error, 'forbidden');
      assert.equal((await index('maintainer of web', { repository: urls.loose })).error, undefined);
      assert.equal((await index('maintainer of web', { repository: 'server-dir', localPath: root })).error, 'forbidden');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
