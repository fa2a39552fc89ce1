/**
 * The indexing pipeline end to end: workspaces, jobs, progress, restarts.
 * Embedded mode as a user runs it (`node apps/sextant/dist/main.js --workspace DIR`),
 * the official MCP SDK client over HTTP, raw SSE for the notification format.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  BareRepository,
  callTool,
  GitDaemon,
  git,
  httpClient,
  memory,
  NatsServer,
  postRaw,
  queryOnce,
  startEmbedded,
  stdioClient,
  writeTree,
  type Sextant,
} from '@sextant/testing';
import { distributedStack, type Stack } from './stack.js';
import { FaultProxy } from '@sextant/testing';
import { assertJobProgress, expectToolError, type ProgressEvent } from './scenarios.js';

interface JobBody {
  job_id: string;
  progress_token: string;
  status: string;
  mode: string;
  file_count: number;
}

interface JobStatusBody {
  runId: string;
  status: string;
  error_message: string | null;
  stats: { files_indexed: number; files_scanned?: number };
  progress?: { stage: string | null; percentage: number; message: string | null };
}

/** A git repository of `count` small TypeScript files (and a README), committed. */
function makeWorkspace(parent: string, name: string, count: number): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '--initial-branch=main');
  const files: Record<string, string> = { 'README.md': `# ${name}\n` };
  for (let i = 0; i < count; i++) files[`src/module${Math.floor(i / 50)}/file${i}.ts`] = `export const value${i} = ${i};\n`;
  writeTree(dir, files);
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
  return dir;
}

async function waitForJob(client: Client, runId: string, timeoutMs = 60_000): Promise<JobStatusBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await callTool<JobStatusBody>(client, 'get_index_job_status', { runId });
    assert.equal(status.isError, false, JSON.stringify(status.body));
    if (['completed', 'failed', 'skipped'].includes(status.body.status)) return status.body;
    if (Date.now() > deadline) assert.fail(`job ${runId} still ${status.body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('indexing pipeline (embedded)', () => {
  let base: string;
  let workspace: string;
  let roots: string;
  let sextant: Sextant;
  let client: Client;

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'sextant-indexing-'));
    workspace = makeWorkspace(base, 'backend', 300);
    roots = join(base, 'roots');
    mkdirSync(roots);
    sextant = await startEmbedded({
      SEXTANT_WORKSPACE: workspace,
      SEXTANT_ALLOWED_ROOTS: roots,
      SEXTANT_AUTO_WORKSPACES_MAX: '2',
      SEXTANT_PROGRESS_POLL_MS: '50',
      // These tests count what each sync_repo finds: a workspace syncing itself after an edit would take it first
      // (that is tested in agent-path.test.ts).
      SEXTANT_WATCH_SYNC_MS: '0',
    });
    client = await httpClient(sextant.url);
    await client.listTools();
  });
  after(async () => {
    await client?.close();
    await sextant?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('indexes the default workspace, streaming progress that only grows, stage by stage, to an end', async () => {
    const events: ProgressEvent[] = [];
    const result = await client.callTool({ name: 'index_repo', arguments: {} }, undefined, { onprogress: (p) => void events.push(p) });
    const body = result.structuredContent as JobBody;
    assert.equal(result.isError ?? false, false, JSON.stringify(body));
    assert.equal(body.status, 'completed', `the call followed the job to its end: ${JSON.stringify(body)}`);
    assert.equal(body.mode, 'full');
    assert.match(body.progress_token, /^index-job-[0-9a-f-]{36}$/);
    // Polled: a short stage may fall between two polls, but what arrives is in order, and the two stages each come
    // from 0 to every file, so a label the stages shared went back (issue 39: "539/539 files" then "0/539 files").
    assertJobProgress(events, ['symbols', 'vectors'], sextant.process.output());
    assert.match(events[0].message ?? '', /^Scanning files: \d+ discovered$/);
    assert.match(events.at(-1)!.message ?? '', /^Indexed 301 files, 300 symbols in [\d.]+s$/);

    const status = await callTool<{ index_status: string; repo_root: string }>(client, 'index_status', {});
    assert.deepEqual([status.body.index_status, status.body.repo_root], ['ready', workspace]);
    const health = (await (await fetch(sextant.url.replace('/mcp', '/health'))).json()) as {
      projects: Array<{ repo_root: string; file_count: number; index_status: string }>;
    };
    assert.deepEqual(
      health.projects.map((p) => [p.repo_root, p.file_count, p.index_status]),
      [[workspace, 301, 'ready']],
    );
  });

  it("sends each notification with MCP fields and the seed's value (report, then end), as SSE", async () => {
    writeFileSync(join(workspace, 'src/extra.ts'), 'export const extra = 1;\n');
    const { status, json, headers } = await postRawSse(sextant.url, {
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'sync_repo', arguments: {}, _meta: { progressToken: 'tok-1' } },
    });
    assert.equal(status, 200);
    assert.match(headers.get('content-type') ?? '', /^text\/event-stream/);
    const notifications = json.filter((m: { method?: string }) => m.method === 'notifications/progress');
    const response = json.find((m: { id?: number }) => m.id === 5);
    assert.equal(response.result.structuredContent.status, 'completed');
    assert.equal(response.result.structuredContent.mode, 'incremental');
    // The first notification comes at once (the queued job is Discovery at 0 %), whatever the job's speed.
    const first = notifications[0].params;
    assert.equal(first.progressToken, 'tok-1');
    assert.equal(first.total, 100);
    assert.equal(first.value.kind, 'report');
    assert.match(first.value.title, /^Indexing project: backend$/);
    assert.equal(typeof first.value.percentage, 'number');
    const last = notifications.at(-1).params;
    assert.deepEqual([last.value.kind, last.value.title], ['end', 'Indexing complete: backend']);
  });

  it('syncs only what changed: an edit, an addition and a deletion reach the manifest, nothing else', async () => {
    writeFileSync(join(workspace, 'src/module0/file1.ts'), 'export const value1 = "changed";\n');
    writeFileSync(join(workspace, 'src/new.ts'), 'export const fresh = true;\n');
    unlinkSync(join(workspace, 'src/module0/file2.ts'));
    const started = await callTool<JobBody>(client, 'sync_repo', {});
    assert.equal(started.body.mode, 'incremental');
    const done = await waitForJob(client, started.body.job_id);
    assert.equal(done.status, 'completed', done.error_message ?? '');
    assert.equal(done.stats.files_indexed, 2, 'the edited and the added file');
    const repositories = await callTool<{ repositories: Array<{ repo_root: string; behind_head: boolean | null }> }>(
      client,
      'list_repositories',
      {},
    );
    assert.equal(repositories.body.repositories[0].behind_head, false);
    const health = (await (await fetch(sextant.url.replace('/mcp', '/health'))).json()) as { projects: Array<{ file_count: number }> };
    assert.equal(health.projects[0].file_count, 302, '301 + extra.ts + new.ts − file2.ts');
  });

  it('answers locate_symbol and get_file_outline from the symbol index, as the last sync left it', async () => {
    type Definitions = {
      definitions: Array<{ repo: string; path: string; name: string; kind: string; line: number; container: string | null }>;
      truncated: boolean;
    };
    const found = await callTool<Definitions>(client, 'locate_symbol', { name: 'value42' });
    assert.equal(found.isError, false, JSON.stringify(found.body));
    assert.deepEqual(
      found.body.definitions.map((d) => [d.repo, d.path, d.name, d.kind, d.line]),
      [['backend', 'src/module0/file42.ts', 'value42', 'constant', 1]],
    );
    // Case-insensitive, filtered, bounded.
    assert.equal((await callTool<Definitions>(client, 'locate_symbol', { name: 'VALUE42' })).body.definitions.length, 1);
    assert.equal((await callTool<Definitions>(client, 'locate_symbol', { name: 'value42', kind: 'class' })).body.definitions.length, 0);
    // The sync test edited file1, added new.ts (`fresh`) and deleted file2: the index followed.
    assert.equal((await callTool<Definitions>(client, 'locate_symbol', { name: 'fresh' })).body.definitions[0]?.path, 'src/new.ts');
    assert.deepEqual((await callTool<Definitions>(client, 'locate_symbol', { name: 'value2' })).body.definitions, []);
    const byRepo = await callTool<Definitions>(client, 'locate_symbol', { name: 'value1', repo: 'backend', workspace: undefined });
    assert.equal(byRepo.body.definitions[0]?.path, 'src/module0/file1.ts');

    const outline = await callTool<{ repo: string; language: string; symbols: Array<{ name: string; kind: string; children: unknown[] }> }>(
      client,
      'get_file_outline',
      { path: 'src/module0/file7.ts' },
    );
    assert.deepEqual(
      [outline.body.repo, outline.body.language, outline.body.symbols.map((s) => [s.name, s.kind, s.children.length])],
      ['backend', 'typescript', [['value7', 'constant', 0]]],
    );
    await expectToolError(client, 'get_file_outline', { path: 'src/module0/file2.ts' }, 'not_found');
    await expectToolError(client, 'locate_symbol', { name: 'x', repo: 'no-such-repository' }, 'not_found');
    await expectToolError(client, 'locate_symbol', { name: 'x', workspace: base }, 'workspace_not_allowed');
    await expectToolError(client, 'locate_symbol', { name: '' }, 'invalid_input', 'name');
    await expectToolError(client, 'locate_symbol', { name: 'x', limit: 10_000 }, 'invalid_input', 'limit');
  });

  it('keeps up with a workspace it watches: edits, a new directory, a moved one, a .gitignore, a file made and removed', async () => {
    // From the sync test on, a sync looks only at the paths the workspace's watcher names, unless one is a directory or a .gitignore.
    const sync = async () => {
      const started = await callTool<JobBody>(client, 'sync_repo', {});
      const done = await waitForJob(client, started.body.job_id);
      assert.equal(done.status, 'completed', done.error_message ?? '');
    };
    const where = async (name: string) =>
      (await callTool<{ definitions: Array<{ path: string }> }>(client, 'locate_symbol', { name })).body.definitions.map((d) => d.path);
    /** Writes `export const <name>` to `path`, syncs, and expects the name found there alone. */
    const editAndFind = async (path: string, name: string) => {
      writeFileSync(join(workspace, path), `export const ${name} = 1;\n`);
      await sync();
      assert.deepEqual(await where(name), [path]);
    };

    writeFileSync(join(workspace, 'src/module3/file150.ts'), 'export const edited150 = 1;\n');
    // An editor's temporary file, made and removed before the sync.
    writeFileSync(join(workspace, 'src/module3/.file150.ts.swp'), 'x');
    unlinkSync(join(workspace, 'src/module3/.file150.ts.swp'));
    await sync();
    assert.deepEqual([await where('edited150'), await where('value150')], [['src/module3/file150.ts'], []]);

    mkdirSync(join(workspace, 'src/fresh/deeper'), { recursive: true });
    writeFileSync(join(workspace, 'src/fresh/deeper/made.ts'), 'export const madeInNewDir = 1;\n');
    await sync();
    assert.deepEqual(await where('madeInNewDir'), ['src/fresh/deeper/made.ts']);
    // Edits inside the new directory: it is watched from then on.
    for (const name of ['madeOnce', 'madeTwice']) await editAndFind('src/fresh/deeper/made.ts', name);

    renameSync(join(workspace, 'src/module4'), join(workspace, 'src/moved4'));
    await sync();
    assert.deepEqual(await where('value200'), ['src/moved4/file200.ts']);
    // Inside the moved directory, and again once its new name is watched.
    for (const i of [201, 202, 203]) await editAndFind(`src/moved4/file${i}.ts`, `edited${i}`);
    unlinkSync(join(workspace, 'src/moved4/file204.ts'));
    await sync();
    assert.deepEqual(await where('value204'), []);

    // An untracked file a new .gitignore leaves out is no longer indexed; back when the .gitignore goes.
    writeFileSync(join(workspace, '.gitignore'), 'src/new.ts\n');
    await sync();
    assert.deepEqual(await where('fresh'), []);
    unlinkSync(join(workspace, '.gitignore'));
    await sync();
    assert.deepEqual(await where('fresh'), ['src/new.ts']);

    // A directory holding no indexed file (empty here), then a file made in it. A sync in between, with nothing
    // changed, lets the new watcher be trusted.
    mkdirSync(join(workspace, 'src/empty'));
    await sync();
    await sync();
    await editAndFind('src/empty/late.ts', 'lateInEmpty');
    // A watched directory removed and made again (a watch follows the directory, not its name), then an edit in it.
    rmSync(join(workspace, 'src/module3'), { recursive: true });
    mkdirSync(join(workspace, 'src/module3'));
    for (let i = 150; i < 200; i++) writeFileSync(join(workspace, `src/module3/file${i}.ts`), `export const value${i} = ${i};\n`);
    await sync();
    await sync();
    await editAndFind('src/module3/file151.ts', 'edited151');
    rmSync(join(workspace, 'src/empty'), { recursive: true });
    writeFileSync(join(workspace, 'src/module3/file151.ts'), 'export const value151 = 151;\n');

    // As the later tests expect it.
    for (const i of [201, 202, 203]) writeFileSync(join(workspace, `src/moved4/file${i}.ts`), `export const value${i} = ${i};\n`);
    writeFileSync(join(workspace, 'src/moved4/file204.ts'), 'export const value204 = 204;\n');
    renameSync(join(workspace, 'src/moved4'), join(workspace, 'src/module4'));
    await sync();
    assert.deepEqual(await where('value203'), ['src/module4/file203.ts']);
  });

  it('gives a second index_repo of the same workspace the job already running', async () => {
    const [a, b] = await Promise.all([
      callTool<JobBody>(client, 'index_repo', { force: true }),
      callTool<JobBody>(client, 'index_repo', {}),
    ]);
    assert.equal(a.body.job_id, b.body.job_id);
    const done = await waitForJob(client, a.body.job_id);
    assert.equal(done.status, 'completed', done.error_message ?? '');
  });

  it('auto-discovers a git repository under an allowed root, refuses one outside, and caps how many it keeps', async () => {
    const inside = makeWorkspace(roots, 'inside', 3);
    const resolved = await callTool<JobBody>(client, 'index_repo', { workspace: inside });
    assert.equal(resolved.isError, false, JSON.stringify(resolved.body));
    assert.equal((await waitForJob(client, resolved.body.job_id)).status, 'completed');

    const outside = makeWorkspace(base, 'outside', 1);
    await expectToolError(client, 'index_repo', { workspace: outside }, 'workspace_not_allowed');
    symlinkSync(outside, join(roots, 'sneaky'));
    await expectToolError(client, 'index_status', { workspace: join(roots, 'sneaky') }, 'workspace_not_allowed');
    mkdirSync(join(roots, 'not-git'));
    await expectToolError(client, 'index_repo', { workspace: join(roots, 'not-git') }, 'invalid_input', 'workspace');
    await expectToolError(client, 'index_repo', { workspace: join(roots, 'missing') }, 'invalid_input', 'workspace');

    // The cap is 2: a third auto-discovered workspace evicts the least recently used idle one.
    const second = makeWorkspace(roots, 'second', 1);
    const third = makeWorkspace(roots, 'third', 1);
    for (const dir of [second, third]) {
      const job = await callTool<JobBody>(client, 'index_repo', { workspace: dir });
      assert.equal(job.isError, false, JSON.stringify(job.body));
      await waitForJob(client, job.body.job_id);
    }
    const listed = await callTool<{ repositories: Array<{ repo_root: string | null }> }>(client, 'list_repositories', {});
    const paths = listed.body.repositories.map((r) => r.repo_root);
    assert.ok(!paths.includes(inside), 'the least recently used was evicted');
    assert.ok(paths.includes(second) && paths.includes(third) && paths.includes(workspace));
  });

  it('says indexing has started wherever a call discovers a workspace; health_check resolves a workspace as every tool does', async () => {
    type Marks = { indexing_status?: string; result_completeness?: string };
    // index_status on an unknown workspace under a root registers it and starts its indexing.
    const viaStatus = makeWorkspace(roots, 'via-status', 2);
    const status = await callTool<Marks & { active_job?: { job_id: string }; index_status: string }>(client, 'index_status', {
      workspace: viaStatus,
    });
    assert.equal(status.isError, false, JSON.stringify(status.body));
    assert.deepEqual([status.body.indexing_status, status.body.result_completeness], ['indexing', 'partial']);
    assert.ok(status.body.active_job, 'a job was started');
    assert.equal((await waitForJob(client, status.body.active_job.job_id)).status, 'completed');
    const again = await callTool<Marks>(client, 'index_status', { workspace: viaStatus });
    assert.equal(again.body.indexing_status, undefined, 'only the call that discovered it says so');
    // A symbol tool and a git tool say so too (the git tool reads the working tree: its answer is complete).
    const viaSymbols = makeWorkspace(roots, 'via-symbols', 2);
    const located = await callTool<Marks>(client, 'locate_symbol', { name: 'value0', workspace: viaSymbols });
    assert.deepEqual([located.body.indexing_status, located.body.result_completeness], ['indexing', 'partial']);
    const viaGrep = makeWorkspace(roots, 'via-grep', 2);
    const grep = await callTool<Marks & { matches: unknown[] }>(client, 'grep_repository', { workspace: viaGrep, pattern: 'value1' });
    assert.equal(grep.isError, false, JSON.stringify(grep.body));
    assert.deepEqual([grep.body.indexing_status, grep.body.result_completeness, grep.body.matches.length], ['indexing', undefined, 1]);

    // health_check: a path through a symlink is the workspace it leads to; one outside every root is refused as elsewhere.
    symlinkSync(workspace, join(base, 'alias'));
    const health = await callTool<{ projects: Array<{ repo_root: string }> }>(client, 'health_check', { workspace: join(base, 'alias') });
    assert.equal(health.isError, false, JSON.stringify(health.body));
    assert.deepEqual(
      health.body.projects.map((p) => p.repo_root),
      [workspace],
    );
    await expectToolError(client, 'health_check', { workspace: makeWorkspace(base, 'elsewhere', 1) }, 'workspace_not_allowed');
  });

  it('refuses a new workspace with workspace_limit_exceeded while every auto-discovered one is indexing', async () => {
    // Two workspaces big enough to keep their jobs running for a while hold both slots (the cap is 2).
    const busy = [makeWorkspace(roots, 'busy-a', 3_000), makeWorkspace(roots, 'busy-b', 3_000)];
    // Making them blocked this process for seconds: let the client see the server close its idle connection before reusing it.
    await new Promise((r) => setTimeout(r, 200));
    const jobs = [];
    for (const dir of busy) {
      const job = await callTool<JobBody>(client, 'index_repo', { workspace: dir });
      assert.equal(job.isError, false, JSON.stringify(job.body));
      jobs.push(job.body.job_id);
    }
    const body = await expectToolError(
      client,
      'index_repo',
      { workspace: makeWorkspace(roots, 'one-too-many', 1) },
      'workspace_limit_exceeded',
    );
    assert.match(body.message, /2 auto-discovered workspaces/);
    for (const id of jobs) assert.equal((await waitForJob(client, id, 120_000)).status, 'completed');
  });

  it('answers bad input and unknown things clearly', async () => {
    await expectToolError(client, 'index_repo', { workspace: join(roots, 'via-status', 'README.md') }, 'invalid_input', 'workspace');
    await expectToolError(client, 'get_index_job_status', { runId: 'no-such-job' }, 'not_found');
    await expectToolError(client, 'get_index_job_status', { runId: '00000000-0000-4000-8000-000000000000' }, 'not_found');
    await expectToolError(client, 'index_repository', { repository: 'https://evil.example.com/o/r.git' }, 'invalid_input', 'repository');
    await expectToolError(client, 'index_repository', { repository: 'x', localPath: join(base, 'nope') }, 'invalid_input', 'localPath');
    await expectToolError(client, 'index_repository', { repository: 'x', localPath: 'relative/dir' }, 'invalid_input', 'localPath');
  });

  it('lets the git tools and projects name a registered repository by workspace, name or id', async () => {
    writeFileSync(join(workspace, 'src', 'draft.ts'), 'export const uncommittedNeedle = 1;\n');
    const byWorkspace = await callTool<{ matches: Array<{ path: string }>; ref: string }>(client, 'grep_repository', {
      workspace,
      pattern: 'uncommittedNeedle',
    });
    assert.equal(byWorkspace.isError, false, JSON.stringify(byWorkspace.body));
    assert.deepEqual([byWorkspace.body.matches.map((m) => m.path), byWorkspace.body.ref], [['src/draft.ts'], 'main']);
    const byName = await callTool<{ matches: Array<{ path: string }> }>(client, 'grep_repository', {
      repository: 'BACKEND',
      pattern: 'value299 ',
    });
    assert.deepEqual(
      byName.body.matches.map((m) => m.path),
      ['src/module5/file299.ts'],
    );
    const refs = await callTool<{ branches: string[]; tags: string[] }>(client, 'list_repository_refs', { workspace });
    assert.deepEqual(refs.body, { branches: ['main'], tags: [], metadata: refs.body.metadata });

    const listed = await callTool<{ repositories: Array<{ id: string; name: string }> }>(client, 'list_repositories', {});
    const backend = listed.body.repositories.find((r) => r.name === 'backend')!;
    const project = await callTool<{ project: { repository_ids: string[] } }>(client, 'create_project', {
      name: 'registered members',
      repository_ids: ['backend', backend.id, workspace],
    });
    assert.deepEqual(project.body.project.repository_ids, [backend.id]);

    await expectToolError(
      client,
      'grep_repository',
      { workspace: makeWorkspace(base, 'unlisted', 1), pattern: 'x' },
      'workspace_not_allowed',
    );
    await expectToolError(client, 'grep_repository', { repository: 'no-such-repository', pattern: 'x' }, 'not_found');
    await expectToolError(client, 'list_repository_refs', {}, 'invalid_input', 'repository');
    await expectToolError(client, 'create_project', { name: 'strangers', repository_ids: ['no-such-repository'] }, 'not_found');
  });

  it('speaks one vocabulary (docs/vocabulary.md): index_repository {localPath} alone, aliases answered as their fields', async () => {
    const dir = makeWorkspace(roots, 'named-by-dir', 60);
    const started = await callTool<{ job_id: string; runId: string; status: string }>(client, 'index_repository', { localPath: dir });
    assert.equal(started.isError, false, JSON.stringify(started.body));
    assert.equal(started.body.runId, started.body.job_id);
    const done = await waitForJob(client, started.body.job_id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const byJobId = await callTool<JobStatusBody & { job_id: string }>(client, 'get_index_job_status', { job_id: started.body.job_id });
    assert.deepEqual({ ...byJobId.body, metadata: null }, { ...done, job_id: started.body.job_id, metadata: null });
    const listed = await callTool<{ repositories: Array<{ name: string; repo_root: string | null }> }>(client, 'list_repositories', {});
    assert.ok(listed.body.repositories.some((r) => r.name === 'named-by-dir'));
    // A repository beside localPath is not silently ignored: the directory's name is taken as it is, another (as the
    // retrieval evaluation sends, `eval/chi`) is not used and the answer says so.
    const again = await callTool<{ job_id: string; notes?: string[] }>(client, 'index_repository', {
      repository: 'named-by-dir',
      local_path: dir,
    });
    assert.equal(again.isError, false, JSON.stringify(again.body));
    assert.equal(again.body.notes, undefined);
    await waitForJob(client, again.body.job_id);
    const other = await callTool<{ job_id: string; notes?: string[] }>(client, 'index_repository', {
      repository: 'eval/other',
      localPath: dir,
    });
    assert.equal(other.isError, false, JSON.stringify(other.body));
    assert.deepEqual(other.body.notes, [
      'repository "eval/other" is not used: a local repository is named after its directory, "named-by-dir" (tools also take its path or id)',
    ]);
    await waitForJob(client, other.body.job_id);

    // An aliased call answers as the canonical one.
    const same = async (tool: string, canonical: Record<string, unknown>, aliased: Record<string, unknown>) => {
      const [a, b] = [await callTool(client, tool, canonical), await callTool(client, tool, aliased)];
      assert.equal(a.isError, false, JSON.stringify(a.body));
      // Timings (execution_time_ms, metadata) differ from call to call; everything else must not.
      const fields = (r: typeof a) => JSON.parse(JSON.stringify({ ...r.body, metadata: null }, (k, v) => (/_ms$/.test(k) ? null : v)));
      assert.deepEqual(fields(b), fields(a), `${tool} ${JSON.stringify(aliased)}`);
    };
    await same('grep_repository', { repository: 'named-by-dir', pattern: 'value5[5] ' }, { repo: 'named-by-dir', pattern: 'value5[5] ' });
    await same(
      'open_file',
      { repo: 'named-by-dir', path: 'src/module1/file55.ts', startLine: 1, endLine: 1 },
      { repository: 'named-by-dir', file_path: 'src/module1/file55.ts', start_line: 1, end_line: 1 },
    );
    await same(
      'locate_symbol',
      { name: 'value55', repo: 'named-by-dir', limit: 1 },
      { name: 'value55', repository: 'named-by-dir', topK: 1 },
    );
    const both = await expectToolError(
      client,
      'open_file',
      { repo: 'named-by-dir', repository: 'backend', path: 'README.md' },
      'invalid_input',
      'repo',
    );
    assert.ok(both.details?.fields?.repository, JSON.stringify(both.details));
  });
});

describe('indexing pipeline: a process killed in the middle of a job', () => {
  it('reports the interrupted job after a restart until a re-run completes, with no duplicate or half-indexed files', async () => {
    const base = mkdtempSync(join(tmpdir(), 'sextant-restart-job-'));
    const dataDir = join(base, 'data');
    const workspace = makeWorkspace(base, 'service', 200);
    let second: Sextant | undefined;
    try {
      // The symbols stage writes every file's symbols, then a stage no worker serves holds the job in its stage:
      // the kill lands mid-job, after the symbol index was written, every time.
      const first = await startEmbedded({
        SEXTANT_DATA_DIR: dataDir,
        SEXTANT_WORKSPACE: workspace,
        SEXTANT_INDEXING_STAGES: 'symbols,unserved',
      });
      const c1 = await httpClient(first.url);
      const job = await callTool<JobBody>(c1, 'index_repo', {});
      for (let i = 0; i < 300; i++) {
        const status = await callTool<JobStatusBody>(c1, 'get_index_job_status', { runId: job.body.job_id });
        if (status.body.progress?.stage === 'unserved') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await c1.close().catch(() => undefined);
      process.kill(first.process.pid, 'SIGKILL');
      await first.process.exited;

      second = await startEmbedded({ SEXTANT_DATA_DIR: dataDir, SEXTANT_WORKSPACE: workspace });
      const c2 = await httpClient(second.url);
      const old = await callTool<JobStatusBody>(c2, 'get_index_job_status', { runId: job.body.job_id });
      assert.equal(old.body.status, 'failed');
      assert.match(old.body.error_message ?? '', /interrupted/);
      const status = await callTool<{
        index_status: string;
        interrupted_recovery_report?: { detected: boolean; interrupted_jobs: number };
      }>(c2, 'index_status', {});
      assert.deepEqual(status.body.interrupted_recovery_report?.interrupted_jobs, 1);
      const health = (await (await fetch(second.url.replace('/mcp', '/health'))).json()) as { interrupted_recovery_report?: object };
      assert.ok(health.interrupted_recovery_report, 'reported in /health too');

      const rerun = await callTool<JobBody>(c2, 'index_repo', {});
      assert.equal((await waitForJob(c2, rerun.body.job_id)).status, 'completed');
      const after = await callTool<{ index_status: string; interrupted_recovery_report?: object }>(c2, 'index_status', {});
      assert.deepEqual([after.body.index_status, after.body.interrupted_recovery_report], ['ready', undefined]);
      const projects = ((await (await fetch(second.url.replace('/mcp', '/health'))).json()) as { projects: Array<{ file_count: number }> })
        .projects;
      assert.equal(projects[0].file_count, 201, 'each file once');
      // The symbols the killed job wrote were replaced, not added to: each definition once.
      const found = await callTool<{ definitions: unknown[] }>(c2, 'locate_symbol', { name: 'value7' });
      assert.equal(found.body.definitions.length, 1, JSON.stringify(found.body));
      const symbols = ((await (await fetch(second.url.replace('/mcp', '/health'))).json()) as { projects: Array<{ symbol_count: number }> })
        .projects[0].symbol_count;
      assert.equal(symbols, 200);
      await c2.close();
    } finally {
      await second?.stop();
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('indexing pipeline: a stage no service serves', () => {
  it('fails the job after SEXTANT_STAGE_STALL_MS without a finished batch, naming the stage', async () => {
    const base = mkdtempSync(join(tmpdir(), 'sextant-stalled-stage-'));
    const workspace = makeWorkspace(base, 'service', 3);
    // 'unserved' has no worker anywhere: its batches are queued and never taken (the default waits 5 minutes).
    const sextant = await startEmbedded({
      SEXTANT_WORKSPACE: workspace,
      SEXTANT_INDEXING_STAGES: 'unserved',
      SEXTANT_STAGE_STALL_MS: '1000',
    });
    try {
      const client = await httpClient(sextant.url);
      const job = await callTool<JobBody>(client, 'index_repo', {});
      const started = Date.now();
      const done = await waitForJob(client, job.body.job_id);
      assert.equal(done.status, 'failed', JSON.stringify(done));
      assert.match(done.error_message ?? '', /no unserved worker finished a batch for 1 s; is the unserved stage running\?/);
      assert.ok(Date.now() - started < 30_000, 'failed after the stall, not the default 5 minutes');
      await client.close();
    } finally {
      await sextant.stop();
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('indexing pipeline: jobs at once (SEXTANT_JOBS_AT_ONCE)', () => {
  it("runs two repositories' jobs at the same time with SEXTANT_JOBS_AT_ONCE=2, one after the other with 1", async () => {
    const base = mkdtempSync(join(tmpdir(), 'sextant-jobs-at-once-'));
    const roots = join(base, 'roots');
    const dirs = ['first', 'second'].map((name) => makeWorkspace(roots, name, 3));
    /** The most of the two jobs seen running at once while both are in hand (an unserved stage holds each for its stall). */
    const mostRunning = async (jobsAtOnce: string): Promise<number> => {
      const sextant = await startEmbedded({
        SEXTANT_WORKSPACE: dirs[0],
        SEXTANT_ALLOWED_ROOTS: roots,
        SEXTANT_INDEXING_STAGES: 'unserved',
        SEXTANT_STAGE_STALL_MS: '2000',
        SEXTANT_JOBS_AT_ONCE: jobsAtOnce,
        SEXTANT_WATCH_SYNC_MS: '0',
      });
      try {
        const client = await httpClient(sextant.url);
        const jobs: string[] = [];
        for (const dir of dirs) {
          const started = await callTool<JobBody>(client, 'index_repository', { localPath: dir });
          assert.equal(started.isError, false, JSON.stringify(started.body));
          jobs.push(started.body.job_id);
        }
        let most = 0;
        for (;;) {
          const statuses = await Promise.all(
            jobs.map(async (runId) => (await callTool<JobStatusBody>(client, 'get_index_job_status', { runId })).body.status),
          );
          most = Math.max(most, statuses.filter((s) => s === 'running').length);
          if (statuses.every((s) => s === 'failed')) break;
          assert.ok(
            statuses.every((s) => ['pending', 'running', 'failed'].includes(s)),
            statuses.join(),
          );
          await new Promise((r) => setTimeout(r, 100));
        }
        await client.close();
        return most;
      } finally {
        await sextant.stop();
      }
    };
    try {
      assert.equal(await mostRunning('2'), 2, 'both jobs ran at once');
      assert.equal(await mostRunning('1'), 1, 'one job at a time');
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('indexing pipeline (distributed: workspace-registry as its own process)', () => {
  let stack: Stack;
  let client: Client;
  let base: string;
  let daemon: GitDaemon;
  let remote: BareRepository;

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'sextant-indexing-nats-'));
    mkdirSync(join(base, 'remotes'));
    remote = new BareRepository(join(base, 'remotes'), 'library');
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`lib/part${i}.ts`] = `export const part${i} = ${i};\n`;
    remote.commit('main', files);
    daemon = await GitDaemon.start(join(base, 'remotes'));
    stack = await distributedStack();
    await stack.startService('workspace-registry', {
      GIT_ALLOWED_HOSTS: daemon.host,
      SEXTANT_DATA_DIR: join(base, 'data'),
      // Branch heads read in the background every 100 ms (a test waits for the round that sees a push).
      SEXTANT_HEAD_CACHE_MS: '100',
      SEXTANT_INDEXING_STAGES: 'symbols',
    });
    // git-cache and projects ask the registry over NATS for registered names; symbol-indexer runs the symbols stage.
    await Promise.all([
      stack.startService('git-cache', { GIT_ALLOWED_HOSTS: daemon.host }),
      stack.startService('projects'),
      stack.startService('symbol-indexer', { GIT_ALLOWED_HOSTS: daemon.host, SEXTANT_DATA_DIR: join(base, 'symbols-data') }),
    ]);
    const gateway = await stack.startGateway({ SEXTANT_PROGRESS_POLL_MS: '50' });
    client = await httpClient(gateway.url);
    await client.listTools();
  });
  after(async () => {
    await client?.close();
    await stack?.stop();
    await daemon?.stop();
    remote?.dispose();
    rmSync(base, { recursive: true, force: true });
  });

  it('clones and indexes a remote repository, follows it with progress, and syncs only what a new commit changed', async () => {
    const events: ProgressEvent[] = [];
    const started = await client.callTool({ name: 'index_repository', arguments: { repository: daemon.url('library') } }, undefined, {
      onprogress: (p) => void events.push(p),
    });
    const body = started.structuredContent as { runId: string; status: string };
    assert.equal(body.status, 'completed', JSON.stringify(body));
    assertJobProgress(events, ['symbols'], stack.gateway!.process.output());
    let listed = await callTool<{
      repositories: Array<{ url: string | null; indexed_commit: string | null; behind_head: boolean | null }>;
    }>(client, 'list_repositories', {});
    assert.equal(listed.body.repositories[0].url, daemon.url('library').replace(/\/?$/, ''));
    assert.equal(listed.body.repositories[0].behind_head, false);

    remote.commit('main', {
      'lib/part3.ts': 'export const part3 = "three";\n',
      'lib/new.ts': "import { part1 } from './part1';\nexport const fresh = part1 + 1;\n",
    });
    // Read in the background (never by the call): a round after the push sees it.
    for (let i = 0; i < 200; i++) {
      listed = await callTool(client, 'list_repositories', {});
      if (listed.body.repositories[0].behind_head !== false) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(listed.body.repositories[0].behind_head, true, 'the branch moved on');

    const again = await callTool<{ runId: string }>(client, 'index_repository', { repository: daemon.url('library') });
    const done = await waitForJob(client, again.body.runId);
    assert.equal(done.status, 'completed', done.error_message ?? '');
    assert.equal(done.stats.files_indexed, 2, 'only the two files the commit touched');
    listed = await callTool(client, 'list_repositories', {});
    assert.equal(listed.body.repositories[0].behind_head, false);
  });

  it('lets git-cache and projects find the registered repository by name over NATS', async () => {
    const listed = await callTool<{ repositories: Array<{ id: string; name: string }> }>(client, 'list_repositories', {});
    const library = listed.body.repositories[0];
    const grep = await callTool<{ matches: Array<{ path: string }> }>(client, 'grep_repository', {
      repository: library.name,
      pattern: 'fresh',
    });
    assert.equal(grep.isError, false, JSON.stringify(grep.body));
    assert.deepEqual(
      grep.body.matches.map((m) => m.path),
      ['lib/new.ts'],
    );
    const project = await callTool<{ project: { repository_ids: string[] } }>(client, 'create_project', {
      name: 'over nats',
      repository_ids: [library.name.toUpperCase()],
    });
    assert.deepEqual(project.body.project.repository_ids, [library.id]);
    await expectToolError(client, 'grep_repository', { workspace: '/srv/not-registered', pattern: 'x' }, 'workspace_not_registered');
  });

  it('indexes symbols in its own process (the symbols stage over NATS) and answers the symbol tools', async () => {
    const listed = await callTool<{ repositories: Array<{ name: string; url: string | null }> }>(client, 'list_repositories', {});
    const library = listed.body.repositories.find((r) => r.url !== null)!.name;
    const found = await callTool<{ definitions: Array<{ repo: string; path: string; kind: string }> }>(client, 'locate_symbol', {
      name: 'fresh',
      repo: library,
    });
    assert.equal(found.isError, false, JSON.stringify(found.body));
    assert.deepEqual(
      found.body.definitions.map((d) => [d.repo, d.path, d.kind]),
      [[library, 'lib/new.ts', 'constant']],
    );
    const outline = await callTool<{ symbols: Array<{ name: string }> }>(client, 'get_file_outline', {
      path: 'lib/part3.ts',
      repo: library,
    });
    assert.deepEqual(
      outline.body.symbols.map((s) => s.name),
      ['part3'],
    );
    // References and the import graph, with snippets read from symbol-indexer's own clone.
    const refs = await callTool<{ references: Array<{ path: string; line: number; kind: string; snippet: string }> }>(
      client,
      'find_references',
      {
        name: 'part1',
        repo: library,
      },
    );
    assert.equal(refs.isError, false, JSON.stringify(refs.body));
    assert.deepEqual(
      refs.body.references.map((r) => [r.path, r.line, r.kind, r.snippet]),
      [
        ['lib/new.ts', 1, 'import', "import { part1 } from './part1';"],
        ['lib/new.ts', 2, 'read', 'export const fresh = part1 + 1;'],
      ],
    );
    const deps = await callTool<{ dependencies: Array<{ path: string }> }>(client, 'search_dependencies', {
      file_path: 'lib/new.ts',
      repository: library,
    });
    assert.deepEqual(
      deps.body.dependencies.map((d) => d.path),
      ['lib/part1.ts'],
    );
    // The other six symbol tools, over the bus, against symbol-indexer's own process.
    type Def = { path: string; name: string };
    const hierarchy = await callTool<{ symbol: Def; parents: Def[]; children: Def[] }>(client, 'get_symbol_hierarchy', {
      name: 'fresh',
      repo: library,
    });
    assert.deepEqual([hierarchy.body.symbol.path, hierarchy.body.parents, hierarchy.body.children], ['lib/new.ts', [], []]);
    const related = await callTool<{ callers: Def[] }>(client, 'find_related_symbols', { name: 'part1', repo: library });
    assert.deepEqual(
      related.body.callers.map((d) => `${d.path} ${d.name}`),
      ['lib/new.ts fresh'],
    );
    const context = await callTool<{ definition: string; imports: string[] }>(client, 'get_code_context', { name: 'fresh', repo: library });
    assert.deepEqual([context.body.definition, context.body.imports], ['export const fresh = part1 + 1;', ['./part1']]);
    const impact = await callTool<{ dependents: Array<{ path: string; depth: number }> }>(client, 'analyze_change_impact', {
      files: ['lib/part1.ts'],
      repository: library,
    });
    assert.deepEqual(
      impact.body.dependents.map((d) => `${d.depth} ${d.path}`),
      ['1 lib/new.ts'],
    );
    const recent = await callTool<{ files: Array<{ repo: string }> }>(client, 'list_recent_files', { limit: 3 });
    assert.deepEqual(
      recent.body.files.map((f) => f.repo),
      [library, library, library],
    );
    const spec = await callTool<{ valid: boolean; errors: Array<{ kind: string; target: string }> }>(
      client,
      'validate_implementation_spec',
      {
        files_to_create: ['lib/new.ts'],
        repository: library,
      },
    );
    assert.deepEqual([spec.body.valid, spec.body.errors.map((e) => `${e.kind} ${e.target}`)], [false, ['file_exists lib/new.ts']]);
  });

  it('fails the job of a repository that does not exist with a clear message', async () => {
    const job = await callTool<{ runId: string }>(client, 'index_repository', { repository: daemon.url('missing') });
    const done = await waitForJob(client, job.body.runId);
    assert.equal(done.status, 'failed');
    assert.match(done.error_message ?? '', /was not found/);
  });
});

describe('indexing pipeline: the database goes away in the middle of a job', () => {
  it('waits for it, starts the job over and completes it; nothing is lost or doubled', async () => {
    const base = mkdtempSync(join(tmpdir(), 'sextant-indexing-db-'));
    const workspace = makeWorkspace(base, 'big', 6_000);
    const stack = await distributedStack();
    const target = new URL(stack.database.url);
    const proxy = new FaultProxy(target.hostname, Number(target.port));
    const viaProxy = new URL(stack.database.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(await proxy.start());
    try {
      await stack.startService('workspace-registry', {
        DATABASE_URL: viaProxy.toString(),
        DATABASE_CONNECT_TIMEOUT_MS: '1000',
        SEXTANT_WORKSPACE: workspace,
        SEXTANT_DATA_DIR: join(base, 'data'),
      });
      const gateway = await stack.startGateway({ SEXTANT_SERVICES: 'workspace-registry' });
      const client = await httpClient(gateway.url);
      const job = await callTool<JobBody>(client, 'index_repo', {});
      for (let i = 0; i < 200; i++) {
        const status = await callTool<JobStatusBody>(client, 'get_index_job_status', { runId: job.body.job_id });
        if (status.body.status === 'running') break;
        await new Promise((r) => setTimeout(r, 10));
      }
      proxy.cut();
      await new Promise((r) => setTimeout(r, 1_500));
      proxy.restore();
      let done: (JobStatusBody & { retry_count: number }) | undefined;
      for (let i = 0; i < 600 && !done; i++) {
        const status = await callTool<JobStatusBody & { retry_count: number }>(client, 'get_index_job_status', { runId: job.body.job_id });
        if (!status.isError && ['completed', 'failed'].includes(status.body.status)) done = status.body;
        else await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(done?.status, 'completed', JSON.stringify(done));
      assert.ok(done.retry_count >= 1, 'the job was started over');
      const rows = await queryOnce<{ n: number }>(stack.database.url, 'SELECT count(*)::int AS n FROM workspace_registry.files');
      assert.equal(rows[0].n, 6_001, 'each file once');
      await client.close();
    } finally {
      await stack.stop();
      await proxy.stop();
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('indexing pipeline: a 50,000-file repository', () => {
  it('indexes every file with the manifest written in batches, reporting as it goes, in bounded memory', async () => {
    const base = mkdtempSync(join(tmpdir(), 'sextant-indexing-50k-'));
    const workspace = makeWorkspace(base, 'huge', 50_000);
    const stack = await distributedStack();
    try {
      const registry = await stack.startService('workspace-registry', {
        SEXTANT_WORKSPACE: workspace,
        SEXTANT_DATA_DIR: join(base, 'data'),
      });
      const gateway = await stack.startGateway({ SEXTANT_SERVICES: 'workspace-registry', SEXTANT_PROGRESS_POLL_MS: '50' });
      const client = await httpClient(gateway.url);
      await client.listTools();
      const events: ProgressEvent[] = [];
      const answer = await client.callTool({ name: 'index_repo', arguments: {} }, undefined, {
        timeout: 300_000,
        onprogress: (p) => void events.push(p),
      });
      const body = answer.structuredContent as JobBody;
      assert.equal(body.status, 'completed', JSON.stringify(body));
      const job = await callTool<JobStatusBody>(client, 'get_index_job_status', { runId: body.job_id });
      assert.equal(job.body.stats.files_indexed, 50_001);
      const rows = await queryOnce<{ n: number }>(stack.database.url, 'SELECT count(*)::int AS n FROM workspace_registry.files');
      assert.equal(rows[0].n, 50_001);
      // Discovery reported files found while it walked (its messages count them), not once at the end.
      const counts = events
        .map((e) => /^Scanning files: (\d+) discovered$/.exec(e.message ?? '')?.[1])
        .filter(Boolean)
        .map(Number);
      assert.ok(new Set(counts).size >= 3, `Discovery reported progress as it went: ${JSON.stringify(events.map((e) => e.message))}`);
      // Bounded: the manifest and the job's changes are streamed in batches, never held as whole rows of 50,000 files.
      const { peak } = await memory(registry.pid);
      console.log(`50,000-file job: workspace-registry peak RSS ${(peak / 2 ** 20).toFixed(0)} MB`);
      assert.ok(peak < 300 * 2 ** 20, `workspace-registry peak RSS ${(peak / 2 ** 20).toFixed(0)} MB`);
      await client.close();
    } finally {
      await stack.stop();
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('indexing pipeline: NATS restarts in the middle of a distributed job', () => {
  it('completes the job, and a client following it gets its end once NATS is back; each file once', async () => {
    const base = mkdtempSync(join(tmpdir(), 'sextant-indexing-nats-restart-'));
    const workspace = makeWorkspace(base, 'big', 6_000);
    const nats = await NatsServer.start();
    const stack = await distributedStack();
    try {
      await stack.startService('workspace-registry', {
        NATS_URL: nats.url,
        SEXTANT_WORKSPACE: workspace,
        SEXTANT_DATA_DIR: join(base, 'data'),
      });
      const gateway = await stack.startGateway({
        NATS_URL: nats.url,
        SEXTANT_SERVICES: 'workspace-registry',
        SEXTANT_PROGRESS_POLL_MS: '50',
      });
      const client = await httpClient(gateway.url);
      await client.listTools();
      let restart: Promise<void> | undefined;
      const events: ProgressEvent[] = [];
      // NATS goes down at the job's first progress report and is back 1.5 s later, on the same port.
      const answer = await client.callTool({ name: 'index_repo', arguments: {} }, undefined, {
        timeout: 120_000,
        onprogress: (p) => {
          events.push(p);
          restart ??= (async () => {
            await nats.down();
            await new Promise((r) => setTimeout(r, 1_500));
            await nats.up();
          })();
        },
      });
      await restart;
      const body = answer.structuredContent as JobBody;
      assert.equal(body.status, 'completed', JSON.stringify(body));
      const job = await callTool<JobStatusBody>(client, 'get_index_job_status', { runId: body.job_id });
      assert.equal(job.body.stats.files_indexed, 6_001);
      assert.ok(restart, 'NATS was restarted while the job ran');
      assert.equal(events.at(-1)?.progress, 100);
      const progress = events.map((e) => e.progress);
      assert.deepEqual(
        progress,
        [...progress].sort((a, b) => a - b),
        'progress only grows across the restart',
      );
      const rows = await queryOnce<{ n: number; files: number }>(
        stack.database.url,
        'SELECT count(*)::int AS n, max(r.file_count)::int AS files FROM workspace_registry.files f JOIN workspace_registry.repositories r ON r.id = f.repository_id',
      );
      assert.deepEqual(rows[0], { n: 6_001, files: 6_001 });
      const status = await callTool<{ index_status: string }>(client, 'index_status', {});
      assert.equal(status.body.index_status, 'ready');
      await client.close();
    } finally {
      await stack.stop();
      await nats.down();
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('indexing over stdio', () => {
  it('sends the progress of a job started without a token, under index-job-<id>', async () => {
    const base = mkdtempSync(join(tmpdir(), 'sextant-indexing-stdio-'));
    const workspace = makeWorkspace(base, 'app', 20);
    const { client } = await stdioClient('apps/sextant/dist/main.js', {
      SEXTANT_DATA_DIR: join(base, 'data'),
      SEXTANT_WORKSPACE: workspace,
      SEXTANT_PROGRESS_POLL_MS: '50',
    });
    try {
      const tokens: Array<{ progressToken: string | number; progress: number }> = [];
      client.setNotificationHandler(ProgressNotificationSchema, (n) => void tokens.push(n.params));
      const job = await callTool<JobBody>(client, 'index_repo', {});
      assert.equal(job.body.status, 'pending', 'the call returns at once');
      for (let i = 0; i < 600 && tokens.at(-1)?.progress !== 100; i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(tokens.length > 0);
      assert.ok(tokens.every((t) => t.progressToken === `index-job-${job.body.job_id}`));
      assert.equal(tokens.at(-1)!.progress, 100);
    } finally {
      await client.close();
      rmSync(base, { recursive: true, force: true });
    }
  });
});

/** A POST answered as SSE: every event's JSON, in order. */
async function postRawSse(url: string, message: object): Promise<{ status: number; json: any[]; headers: Headers }> {
  const response = await postRaw(url, JSON.stringify(message));
  const events = typeof response.json === 'string' ? response.json : JSON.stringify(response.json);
  const json = events
    .split('\n')
    .filter((line: string) => line.startsWith('data: '))
    .map((line: string) => JSON.parse(line.slice(6)));
  return { status: response.status, json, headers: response.headers };
}
