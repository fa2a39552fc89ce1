/**
 * The indexing pipeline end to end: workspaces, jobs, progress, restarts.
 * Embedded mode as a user runs it (`node apps/sextant/dist/main.js --workspace DIR`),
 * the official MCP SDK client over HTTP, raw SSE for the notification format.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, git, httpClient, postRaw, startEmbedded, writeTree, type Sextant } from '@sextant/testing';
import { expectToolError } from './scenarios.js';

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

interface ProgressEvent {
  progress: number;
  total?: number;
  message?: string;
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
    const body = result.structuredContent as unknown as JobBody;
    assert.equal(result.isError ?? false, false, JSON.stringify(body));
    assert.equal(body.status, 'completed', 'the call followed the job to its end');
    assert.equal(body.mode, 'full');
    assert.match(body.progress_token, /^index-job-[0-9a-f-]{36}$/);
    // Polled: a short stage may fall between two polls, but what arrives is in order.
    assert.ok(events.length >= 2, `${events.length} notifications`);
    for (let i = 1; i < events.length; i++) assert.ok(events[i]!.progress > events[i - 1]!.progress, 'progress increases');
    assert.match(events[0]!.message ?? '', /^Scanning files: \d+ discovered$/);
    const order = ['Scanning files', 'Parsing files', 'Indexing:', 'Finalizing index', 'Indexed'];
    const stages = events.map((e) => order.findIndex((prefix) => e.message?.startsWith(prefix)));
    assert.ok(!stages.includes(-1), JSON.stringify(events));
    assert.deepEqual(
      stages,
      [...stages].sort((a, b) => a - b),
      'stages in order',
    );
    assert.equal(events.at(-1)!.progress, 100);
    assert.match(events.at(-1)!.message ?? '', /^Indexed 301 files, 0 symbols in [\d.]+s$/);

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
    assert.equal(repositories.body.repositories[0]!.behind_head, false);
    const health = (await (await fetch(sextant.url.replace('/mcp', '/health'))).json()) as { projects: Array<{ file_count: number }> };
    assert.equal(health.projects[0]!.file_count, 302, '301 + extra.ts + new.ts − file2.ts');
  });

  it('gives a second index_repo of the same workspace the job already running', async () => {
    const [a, b] = await Promise.all([
      callTool<JobBody>(client, 'index_repo', { force: true }),
      callTool<JobBody>(client, 'index_repo', {}),
    ]);
    assert.equal(a.body.job_id, b.body.job_id);
    assert.equal((await waitForJob(client, a.body.job_id)).status, 'completed');
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

  it('answers bad input and unknown things clearly', async () => {
    await expectToolError(client, 'get_index_job_status', { runId: 'no-such-job' }, 'not_found');
    await expectToolError(client, 'get_index_job_status', { runId: '00000000-0000-4000-8000-000000000000' }, 'not_found');
    await expectToolError(client, 'index_repository', { repository: 'https://evil.example.com/o/r.git' }, 'invalid_input', 'repository');
    await expectToolError(client, 'index_repository', { repository: 'x', localPath: join(base, 'nope') }, 'invalid_input', 'localPath');
    await expectToolError(client, 'index_repository', { repository: 'x', localPath: 'relative/dir' }, 'invalid_input', 'localPath');
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
