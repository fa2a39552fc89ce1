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
import { inputJsonSchema, TOOLS, type ToolAccess, type ToolContract } from '@sextant/contracts';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BareRepository, callTool, git, GitDaemon, httpClient, type Sextant, type TestDatabase } from '@sextant/testing';
import { AUDIENCE, authenticatedSextant, runKeys, type Authenticated } from './auth-fixture.js';

/** What each kind of caller may use, written out here rather than computed by the code under test. */
const ALLOWED: Record<string, ReadonlySet<ToolAccess>> = {
  admin: new Set(['read', 'maintain', 'admin']),
  'maintainer of web': new Set(['read', 'maintain']),
  'maintainer of api': new Set(['read', 'maintain']),
  'reader of web': new Set(['read']),
  'user without grants': new Set(['read']),
  // Users of the identity provider, by their groups (SEXTANT_AUTH_GROUP_ROLES below).
  'user in platform': new Set(['read', 'maintain', 'admin']),
  'user in team-web': new Set(['read', 'maintain']),
};

/** The repositories each kind of caller may read (its projects: web holds web-repo, api holds api-repo). */
const READS: Record<string, ReadonlyArray<'web' | 'api'>> = {
  admin: ['web', 'api'],
  'maintainer of web': ['web'],
  'reader of web': ['web'],
  'maintainer of api': ['api'],
  'user without grants': [],
  'user in team-web': ['web', 'api'],
};

/** The input fields that name what a call reads or changes; every tool with one is probed through each. */
const SCOPE_FIELDS = ['repo', 'repository', 'repos', 'workspace', 'project', 'scope'] as const;
type ScopeField = (typeof SCOPE_FIELDS)[number];

/** What a repository or project the caller may not see answers: one that does not exist (or is not registered). */
const HIDDEN_CODES = new Set(['not_found', 'workspace_not_registered']);

/**
 * Besides the scope field under test, what each such tool needs to pass its input checks: per-tool data the
 * catalog cannot give. Every catalog tool with a scope field must have an entry, and every entry must name one
 * (checked first, without a server: a new tool fails here by name instead of being skipped).
 */
const REST: Record<string, Record<string, unknown>> = {
  ask_code: { query: 'what does the handler return?' },
  search_code: { query: 'handler' },
  grep_repository: { pattern: 'Handler' },
  list_repository_refs: {},
  open_file: { path: 'src/index.ts' },
  analyze_change_impact: { files: ['src/index.ts'] },
  find_references: { name: 'webHandler' },
  find_related_symbols: { name: 'webHandler' },
  get_code_context: { name: 'webHandler' },
  get_file_outline: { path: 'src/index.ts' },
  get_symbol_hierarchy: { name: 'webHandler' },
  list_recent_files: {},
  locate_symbol: { name: 'webHandler' },
  search_dependencies: { file_path: 'src/index.ts' },
  validate_implementation_spec: { files_to_modify: ['src/index.ts'] },
  index_status: {},
  health_check: {},
  get_project: {},
  update_project: { description: 'probe' },
  delete_project: {},
  add_repository_to_project: { repository_id: 'probe' },
  remove_repository_from_project: { repository_id: 'probe' },
  index_repo: {},
  sync_repo: {},
  index_repository: {},
};

function inputFields(tool: ToolContract): Record<string, unknown> {
  return (inputJsonSchema(tool) as { properties?: Record<string, unknown> }).properties ?? {};
}

/** The catalog's tools whose input names a scope, with those fields. */
const SCOPED_TOOLS = TOOLS.map((tool) => ({ tool, fields: SCOPE_FIELDS.filter((f) => f in inputFields(tool)) })).filter(
  ({ fields }) => fields.length > 0,
);

/** The other arguments of `tool` (REST); fails naming a tool that has no entry. */
function restOf(tool: ToolContract, fields: readonly string[]): Record<string, unknown> {
  const rest = REST[tool.name];
  assert.ok(rest, `${tool.name} names a scope (${fields.join(', ')}): give it its other arguments in REST`);
  return rest;
}

describe('permissions: the probes cover the catalog', () => {
  it('REST has an entry for every catalog tool that names a scope, and none for a tool the catalog lacks or that names none', () => {
    for (const { tool, fields } of SCOPED_TOOLS) restOf(tool, fields);
    const scoped = new Set(SCOPED_TOOLS.map(({ tool }) => tool.name));
    const stale = Object.keys(REST).filter((name) => !scoped.has(name));
    assert.deepEqual(stale, [], 'REST entries of tools that are not in the catalog or name no scope field');
  });
});

/** A git working tree with one commit: a directory of the server's disk. */
function workingRepository(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'index.ts'), `export const ${name.replace(/-/g, '_')} = 1;\n`);
  git(dir, 'init', '-q', '--initial-branch=main');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'one');
  return dir;
}

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

  // Workspaces under this root are registered on first use (auto-discovery), by a caller who may.
  const allowedRoot = mkdtempSync(join(tmpdir(), 'sextant-permissions-root-'));
  // Bare repositories served over git:// by a local `git daemon`.
  const served = mkdtempSync(join(tmpdir(), 'sextant-permissions-daemon-'));
  let daemon: GitDaemon;

  before(async () => {
    daemon = await GitDaemon.start(served);
    fixture = await authenticatedSextant({
      GIT_ALLOW_FILE_URLS: 'true',
      GIT_ALLOWED_HOSTS: `github.com,${daemon.host}`,
      SEXTANT_ALLOWED_ROOTS: allowedRoot,
      CODEBASE_ROOT: allowedRoot,
      // The scope matrix below makes over a thousand calls per caller in seconds.
      SEXTANT_RATE_LIMIT_PER_MINUTE: '1000000',
      SEXTANT_RATE_LIMIT_BURST: '1000000',
      ALLOW_GLOBAL_SCOPE: 'true',
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
    await daemon?.stop();
    rmSync(allowedRoot, { recursive: true, force: true });
    rmSync(served, { recursive: true, force: true });
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

  describe('repositories: a caller reads those of its projects; any other answers exactly like one that does not exist', () => {
    const repositories = mkdtempSync(join(tmpdir(), 'sextant-permissions-'));
    const urls: Record<string, string> = {};
    const ids: Record<string, string> = {};
    const dirs: Record<string, string> = {};
    const errorOf = async (client: Client, tool: string, args: Record<string, unknown>) =>
      (await callTool<{ error?: string; message?: string }>(client, tool, args)).body;

    before(async () => {
      const admin = clients.get('admin')!;
      for (const name of ['web', 'api', 'loose']) {
        const repository = new BareRepository(repositories, `${name}-repo`);
        repository.commit('main', { 'src/index.ts': `export function ${name}Handler(): number {\n  return 1;\n}\n` });
        urls[name] = `file://${repository.path}`;
      }
      const indexInto = async (project: string, args: Record<string, unknown>, reference: string) => {
        const done = await admin.callTool({ name: 'index_repository', arguments: args }, undefined, {
          onprogress: () => undefined,
          timeout: 120_000,
        });
        assert.equal((done.structuredContent as { status: string }).status, 'completed', JSON.stringify(done.structuredContent));
        const added = await callTool(admin, 'add_repository_to_project', { project, repository_id: reference });
        assert.equal(added.isError, false, JSON.stringify(added.body));
      };
      // A repository of api over git:// as well.
      new BareRepository(served, 'api-remote').commit('main', {
        'src/index.ts': 'export function remoteHandler(): number {\n  return 1;\n}\n',
      });
      urls.remote = daemon.url('api-remote');
      await indexInto('api', { repository: urls.remote }, urls.remote);
      for (const name of ['web', 'api']) {
        await indexInto(name, { repository: urls[name] }, urls[name]);
        // Workspaces are directories of the server: one per project too.
        dirs[name] = workingRepository(allowedRoot, `${name}-dir`);
        await indexInto(name, { repository: `${name}-dir`, localPath: dirs[name] }, dirs[name]);
      }
      const listed = await callTool<{ repositories: Array<{ id: string; url: string | null }> }>(admin, 'list_repositories', {});
      for (const name of ['web', 'api']) ids[name] = listed.body.repositories.find((r) => r.url === urls[name])!.id;
      // What a caller may read is kept 5 s by each service (ADR 0031): the matrix above read it before the repositories joined.
      await new Promise((resolve) => setTimeout(resolve, 5_100));
    });
    after(() => rmSync(repositories, { recursive: true, force: true }));

    it('in grep, symbols, search, list_repositories and health_check', async () => {
      const reader = clients.get('reader of web')!;
      const admin = clients.get('admin')!;
      // grep_repository: its project's repository, yes; another project's, no, by URL too.
      assert.equal((await errorOf(reader, 'grep_repository', { repository: urls.web, pattern: 'Handler' })).error, undefined);
      assert.equal((await errorOf(reader, 'grep_repository', { repository: urls.api, pattern: 'Handler' })).error, 'not_found');
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
      // scope "all" is all the caller may read.
      const everywhere = async (client: Client) => {
        const answer = await callTool<{ results: Array<{ repo: string }> }>(client, 'search_code', {
          query: 'Handler',
          mode: 'lexical',
          scope: { type: 'all' },
        });
        assert.equal(answer.isError, false, JSON.stringify(answer.body));
        return [...new Set(answer.body.results.map((r) => r.repo))].sort();
      };
      const nameOf = (url: string) => url.slice('file://'.length);
      assert.deepEqual(await everywhere(reader), [nameOf(urls.web)]);
      assert.deepEqual(await everywhere(admin), [nameOf(urls.api), nameOf(urls.web), urls.remote.replace(/\.git$/, '')].sort());
      // list_repositories: only its own.
      const listed = async (client: Client) => {
        const answer = await callTool<{ repositories: Array<{ url: string | null; repo_root: string | null }> }>(
          client,
          'list_repositories',
          {},
        );
        assert.equal(answer.isError, false, JSON.stringify(answer.body));
        return answer.body.repositories.map((r) => r.url ?? r.repo_root);
      };
      const all = (...names: Array<'web' | 'api'>) =>
        names.flatMap((n) => [urls[n], dirs[n], ...(n === 'api' ? [urls.remote] : [])]).sort();
      assert.deepEqual((await listed(reader)).sort(), all('web'));
      assert.deepEqual((await listed(admin)).sort(), all('web', 'api'));
      // health_check names workspaces: the caller's only.
      const healthOf = async (client: Client) =>
        (await callTool<{ projects: Array<{ repo_root: string }> }>(client, 'health_check', {})).body.projects.map((w) => w.repo_root);
      assert.deepEqual((await healthOf(reader)).sort(), all('web'));
      assert.deepEqual((await healthOf(admin)).sort(), all('web', 'api'));
      const adminSees = await callTool<{ definitions: unknown[] }>(admin, 'locate_symbol', { name: 'apiHandler', repo: urls.api });
      assert.equal(adminSees.body.definitions.length, 1);
    });

    it('in indexing and sharing: a maintainer indexes its projects and URLs, shares only what it maintains, not a directory of the server', async () => {
      const call = (who: string, tool: string, args: Record<string, unknown>) => errorOf(clients.get(who)!, tool, args);
      const index = (who: string, args: Record<string, unknown>) => call(who, 'index_repository', args);
      assert.equal((await index('maintainer of web', { repository: urls.web })).error, undefined);
      // Another project's repository, by URL: accepted as a URL nobody registered would be (its own projects keep it)...
      const hidden = await callTool<{ runId: string }>(clients.get('maintainer of web')!, 'index_repository', { repository: urls.api });
      assert.equal(hidden.isError, false, JSON.stringify(hidden.body));
      assert.equal((await call('maintainer of web', 'get_index_job_status', { runId: hidden.body.runId })).error, 'not_found');
      // ...but it cannot be placed in the caller's project: that would read it.
      const place = (who: string, repository: string) =>
        call(who, 'add_repository_to_project', { project: 'web', repository_id: repository });
      assert.equal((await place('maintainer of web', urls.api)).error, 'not_found');
      assert.equal((await place('maintainer of web', ids.api)).error, 'not_found');
      assert.equal((await place('maintainer of web', dirs.api)).error, 'not_found');
      // One it reads but does not maintain: forbidden (it knows it exists).
      assert.equal((await index('user in team-web', { repository: urls.api })).error, 'forbidden');
      assert.equal((await place('user in team-web', urls.api)).error, 'forbidden');
      // A URL it registers itself is in no project: it may place it in its own.
      assert.equal((await index('maintainer of web', { repository: urls.loose })).error, undefined);
      assert.equal((await place('maintainer of web', urls.loose)).error, undefined);
      assert.equal(
        (await call('maintainer of web', 'remove_repository_from_project', { project: 'web', repository_id: urls.loose })).error,
        undefined,
      );
      assert.equal((await index('maintainer of web', { repository: 'server-dir', localPath: allowedRoot })).error, 'forbidden');
    });

    it('every tool × every field that names a scope × every kind of caller: readable, or the answer of a missing one', async () => {
      const missingUrl = `file://${join(repositories, 'nope-repo.git')}`;
      const missingId = randomUUID();
      /** The answer with the names of the probed repository or project made alike. */
      const alike = (body: { error?: string; message?: string }) => ({
        error: body.error,
        message: (body.message ?? '')
          .replaceAll(missingId, 'X')
          .replaceAll(ids.api, 'X')
          .replaceAll(ids.web, 'X')
          .replace(/\b(web|api|nope)-(repo|dir)\b/g, 'X')
          .replace(/"(web|api|no-such)"/g, '"X"'),
      });
      // Each way a field can name a repository or a project, for the target (web, api) or for one nobody registered.
      type Target = 'web' | 'api' | 'missing';
      const repo = (t: Target, form: 'url' | 'id') =>
        t === 'missing' ? (form === 'url' ? missingUrl : missingId) : form === 'url' ? urls[t] : ids[t];
      const project = (t: Target) => (t === 'missing' ? 'no-such' : t);
      type Forms = Array<[string, (t: Target) => unknown]>;
      // open_file's repo is also a directory of CODEBASE_ROOT (tools.md).
      const TOOL_FORMS: Record<string, Forms> = {
        'open_file.repo': [
          ['URL', (t) => repo(t, 'url')],
          ['id', (t) => repo(t, 'id')],
          ['directory', (t) => (t === 'missing' ? 'nope-dir' : `${t}-dir`)],
        ],
      };
      const FORMS: Record<ScopeField, Forms> = {
        repo: [
          ['URL', (t) => repo(t, 'url')],
          ['id', (t) => repo(t, 'id')],
        ],
        repository: [
          ['URL', (t) => repo(t, 'url')],
          ['id', (t) => repo(t, 'id')],
        ],
        repos: [['URLs', (t) => [repo(t, 'url')]]],
        workspace: [['path', (t) => (t === 'missing' ? join(allowedRoot, 'nope-dir') : dirs[t])]],
        project: [['name', project]],
        scope: [
          ['{type: repo}', (t) => ({ type: 'repo', repo: repo(t, 'url') })],
          ['{type: repos}', (t) => ({ type: 'repos', repos: [repo(t, 'id')] })],
          ['{type: project}', (t) => ({ type: 'project', project: project(t) })],
        ],
      };
      let probes = 0;
      for (const { tool, fields } of SCOPED_TOOLS) {
        const rest = restOf(tool, fields);
        for (const [who, reads] of Object.entries(READS)) {
          if (!ALLOWED[who].has(tool.access)) continue; // refused before its input: the matrix above
          const client = clients.get(who)!;
          for (const field of fields) {
            for (const [form, value] of TOOL_FORMS[`${tool.name}.${field}`] ?? FORMS[field]) {
              const call = (t: Target) => errorOf(client, tool.name, { ...rest, [field]: value(t) });
              const missing = alike(await call('missing'));
              for (const target of ['web', 'api'] as const) {
                const what = `${tool.name} {${field}: ${target} by ${form}} as ${who}`;
                probes++;
                if (reads.includes(target)) {
                  // Read tools only: a maintain tool would change something.
                  if (tool.access !== 'read') continue;
                  const answer = await call(target);
                  assert.ok(!HIDDEN_CODES.has(answer.error ?? ''), `${what} is readable: ${JSON.stringify(answer)}`);
                } else {
                  const answer = await call(target);
                  // A maintain tool may accept a hidden one as it accepts a new one (index_repository: a URL).
                  if (tool.access === 'read')
                    assert.ok(HIDDEN_CODES.has(answer.error ?? ''), `${what} is hidden: ${JSON.stringify(answer)}`);
                  assert.deepEqual(alike(answer), missing, `${what} answers like a missing one`);
                }
              }
            }
          }
        }
      }
      assert.ok(probes > 300, `${probes} probes`);
    });

    it('every URL-taking field × every spelling of a hidden repository answers exactly as one nobody registered', async () => {
      // A spelling, applied alike to the hidden repository's URL and to a URL nobody registered.
      const SPELLINGS: Array<[string, (url: string) => string]> = [
        ['as registered', (u) => u],
        ['trailing slash', (u) => `${u}/`],
        ['two trailing slashes', (u) => `${u}//`],
        ['doubled slash', (u) => u.replace(/\/([^/]+)$/, '//$1')],
        ['without .git', (u) => u.replace(/\.git$/, '')],
        ['without .git, trailing slash', (u) => `${u.replace(/\.git$/, '')}/`],
        ['percent-encoded', (u) => u.replace(/-(repo|remote)/, '%2D$1')],
        ['upper-case scheme', (u) => u.replace(/^[a-z]+/, (scheme) => scheme.toUpperCase())],
      ];
      const fileSpellings: Array<[string, (url: string) => string]> = [
        ['a symlinked directory', (u) => u.replace(repositories, linked)],
        ['a dot segment in the root', (u) => u.replace(repositories, `${repositories}/./`)],
      ];
      const linked = join(tmpdir(), `sextant-permissions-link-${randomUUID()}`);
      symlinkSync(repositories, linked);
      const hidden: Array<[string, string, string]> = [
        ['file://', urls.api, `file://${join(repositories, 'nope-repo.git')}`],
        ['git://', urls.remote, daemon.url('nope-remote')],
      ];
      const FIELDS: Array<[string, Record<string, unknown>, string, (url: string) => unknown]> = [];
      for (const { tool, fields: scoped } of SCOPED_TOOLS) {
        if (tool.access !== 'read') continue;
        const rest = restOf(tool, scoped);
        const fields = inputFields(tool);
        if ('repo' in fields) FIELDS.push([tool.name, rest, 'repo', (u) => u]);
        if ('repository' in fields) FIELDS.push([tool.name, rest, 'repository', (u) => u]);
        if ('repos' in fields) FIELDS.push([tool.name, rest, 'repos', (u) => [u]]);
        if ('scope' in fields) FIELDS.push([tool.name, rest, 'scope', (u) => ({ type: 'repo', repo: u })]);
      }
      assert.ok(FIELDS.length >= 10, `${FIELDS.length} URL-taking fields`);
      const alike = (body: { error?: string; message?: string }) => ({
        error: body.error,
        message: (body.message ?? '').replace(/\b(api|nope)(-|%2D)(repo|remote)\b/g, 'X').replaceAll(linked, repositories),
      });
      let probes = 0;
      try {
        for (const who of ['reader of web', 'user without grants'] as const) {
          const client = clients.get(who)!;
          for (const [transport, url, missing] of hidden) {
            const spellings = [...SPELLINGS, ...(transport === 'file://' ? fileSpellings : [])];
            for (const [spelling, spell] of spellings) {
              for (const [tool, rest, field, value] of FIELDS) {
                const call = (u: string) => errorOf(client, tool, { ...rest, [field]: value(spell(u)) });
                const what = `${tool} {${field}: ${transport} ${spelling}} as ${who}`;
                const [answer, unregistered] = [await call(url), await call(missing)];
                probes++;
                assert.ok(answer.error, `${what} must not be answered: ${JSON.stringify(answer)}`);
                assert.deepEqual(alike(answer), alike(unregistered), `${what} answers as one nobody registered`);
              }
            }
          }
        }
      } finally {
        rmSync(linked, { force: true });
      }
      assert.ok(probes >= 300, `${probes} probes`);
    });

    it('a workspace path: a caller who may not read it gets one answer whether it is registered, unregistered or absent, and registers nothing', async () => {
      const admin = clients.get('admin')!;
      const reader = clients.get('reader of web')!;
      const registered = workingRepository(allowedRoot, 'registered-dir');
      const unregistered = workingRepository(allowedRoot, 'free-dir');
      const absent = join(allowedRoot, 'absent-dir');
      const done = await admin.callTool(
        { name: 'index_repository', arguments: { repository: 'registered-dir', localPath: registered } },
        undefined,
        { onprogress: () => undefined, timeout: 120_000 },
      );
      assert.equal((done.structuredContent as { status: string }).status, 'completed', JSON.stringify(done.structuredContent));
      const alike = (body: { error?: string; message?: string }) => ({
        error: body.error,
        message: body.message?.replace(/(registered|free|absent)-dir/g, 'X'),
      });
      for (const [tool, rest] of [
        ['index_status', {}],
        ['grep_repository', { pattern: 'x' }],
        ['locate_symbol', { name: 'x' }],
        ['list_recent_files', {}],
      ] as const) {
        const answers = [];
        for (const path of [registered, unregistered, absent])
          answers.push(alike(await errorOf(reader, tool, { ...rest, workspace: path })));
        assert.equal(answers[0].error, 'workspace_not_registered', `${tool}: ${JSON.stringify(answers[0])}`);
        assert.deepEqual(answers[1], answers[0], `${tool}: an unregistered directory under an allowed root`);
        assert.deepEqual(answers[2], answers[0], `${tool}: a path that does not exist`);
      }
      const names = async () =>
        (await callTool<{ repositories: Array<{ name: string }> }>(admin, 'list_repositories', {})).body.repositories.map((r) => r.name);
      assert.ok(!(await names()).includes('free-dir'), 'the reader registered nothing');
      // An admin's call discovers it: auto-discovery is on, and the caller made the difference.
      const discovered = await callTool<{ indexing_status?: string }>(admin, 'index_status', { workspace: unregistered });
      assert.equal(discovered.body.indexing_status, 'indexing', JSON.stringify(discovered.body));
      assert.ok((await names()).includes('free-dir'));
    });
  });
});
