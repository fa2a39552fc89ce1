/**
 * The path an agent walks most, through the MCP SDK client, in both modes:
 * search → open → references → open, for the default local workspace and
 * for a remote repository whose branch moved on after it was indexed. Every
 * result names its repository the way open_file takes it, and what open_file
 * answers is what the result pointed at (the same lines, the same commit).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BareRepository, callTool, GitDaemon, httpClient, startEmbedded, type Sextant } from '@sextant/testing';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { distributedStack, type Stack } from './stack.js';
import { indexed, makeRepository, SHOP } from './shop.js';

interface Hit {
  repo: string;
  path: string;
  startLine: number;
  endLine: number;
  snippet: string;
  commit?: string;
}
interface Opened {
  repo: string;
  path: string;
  commit: string | null;
  startLine: number;
  endLine: number;
  content: string;
  truncated: boolean;
}
interface Reference {
  repo: string;
  path: string;
  line: number;
  snippet: string;
}
interface Definition {
  repo: string;
  path: string;
  name: string;
  line: number;
  endLine: number;
}

/** The answers' sizes, per call, for the closing note (an agent pays for each in its context): cl100k tokens. */
type Calls = Array<{ tool: string; tokens: number }>;

interface Fixture {
  base: string;
  workspace: string;
  remote: BareRepository;
  daemon: GitDaemon;
}

async function fixture(): Promise<Fixture> {
  const base = mkdtempSync(join(tmpdir(), 'sextant-agent-path-'));
  const workspace = makeRepository(base, 'shop', SHOP);
  mkdirSync(join(base, 'remotes'));
  const remote = new BareRepository(join(base, 'remotes'), 'storefront');
  remote.commit('main', SHOP);
  const daemon = await GitDaemon.start(join(base, 'remotes'));
  return { base, workspace, remote, daemon };
}

async function disposeFixture(f: Fixture | undefined): Promise<void> {
  if (!f) return;
  await f.daemon.stop();
  f.remote.dispose();
  rmSync(f.base, { recursive: true, force: true });
}

function caller(client: Client, calls: Calls) {
  return async <T>(tool: string, args: Record<string, unknown>): Promise<T> => {
    const answer = await callTool<T>(client, tool, args);
    assert.equal(answer.isError, false, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(answer.body).slice(0, 500)}`);
    calls.push({ tool, tokens: countTokens(JSON.stringify(answer.body)) });
    return answer.body;
  };
}

/** The lines `open_file` answers for a result's range. */
async function open(
  call: ReturnType<typeof caller>,
  at: { repo: string; path: string; startLine: number; endLine?: number },
): Promise<Opened> {
  const opened = await call<Opened>('open_file', {
    repo: at.repo,
    path: at.path,
    startLine: at.startLine,
    endLine: at.endLine ?? at.startLine,
  });
  assert.equal(opened.path, at.path);
  assert.equal(opened.repo, at.repo, 'open_file names the repository as the result did');
  return opened;
}

/** search → open → references → open → definition → open, on one repository; the commit open_file read at. */
async function walk(call: ReturnType<typeof caller>, scope: Record<string, unknown>): Promise<{ hit: Hit; opened: Opened }> {
  const search = await call<{ results: Hit[] }>('search_code', { query: 'retry failed webhooks with exponential backoff', ...scope });
  const hit = search.results.find((r) => r.path === 'src/webhooks/retry.ts');
  assert.ok(hit, JSON.stringify(search.results.map((r) => `${r.repo}:${r.path}`)));
  const opened = await open(call, hit);
  assert.equal(opened.content, hit.snippet, 'open_file reads the lines search answered');

  const refs = await call<{ references: Reference[] }>('find_references', { name: 'send', repo: hit.repo });
  const use = refs.references.find((r) => r.path === 'src/webhooks/retry.ts' && r.snippet.includes('await send(hook)'));
  assert.ok(use, JSON.stringify(refs.references));
  assert.equal((await open(call, { ...use, startLine: use.line })).content.trim(), use.snippet);

  const located = await call<{ definitions: Definition[] }>('locate_symbol', { name: 'send', repo: use.repo });
  const definition = located.definitions.find((d) => d.path === 'src/webhooks/send.ts');
  assert.ok(definition, JSON.stringify(located.definitions));
  const body = await open(call, { ...definition, startLine: definition.line, endLine: definition.endLine });
  assert.match(body.content, /^export async function send\(url: string\)/);

  const outline = await call<{ repo: string; path: string; symbols: Array<{ name: string; line: number }> }>('get_file_outline', {
    repo: definition.repo,
    path: 'src/billing/invoice.ts',
  });
  const invoice = outline.symbols.find((s) => s.name === 'InvoiceService');
  assert.ok(invoice, JSON.stringify(outline.symbols));
  assert.equal(
    (await open(call, { repo: outline.repo, path: outline.path, startLine: invoice.line })).content,
    'export class InvoiceService {',
  );

  const grep = await call<{ repo: string; matches: Array<{ path: string; line_matches: Array<{ line_number: number; line: string }> }> }>(
    'grep_repository',
    { repository: hit.repo, pattern: 'taxFor' },
  );
  const match = grep.matches[0];
  const line = match.line_matches[0];
  assert.equal((await open(call, { repo: grep.repo, path: match.path, startLine: line.line_number })).content, line.line);
  return { hit, opened };
}

function report(t: TestContext, mode: string, calls: Calls): void {
  const total = calls.reduce((sum, c) => sum + c.tokens, 0);
  t.diagnostic(`${mode}: ${calls.length} calls, ${total} tokens: ${calls.map((c) => `${c.tool} ${c.tokens}`).join(', ')}`);
}

/** The whole path in one mode: the workspace first, then the remote repository after its branch moved on. */
async function agentPath(t: TestContext, client: Client, f: Fixture, mode: string): Promise<void> {
  const calls: Calls = [];
  const call = caller(client, calls);
  await indexed(client, 'index_repo', {});
  await indexed(client, 'index_repository', { repository: f.daemon.url('storefront') });

  // The default workspace: read as its working tree (no commit).
  const local = await walk(call, {});
  assert.equal(local.hit.repo, 'shop');
  assert.equal(local.opened.commit, null);

  // The remote repository moves on after indexing: lines shift, yet open_file reads what search saw.
  const listed = await call<{ repositories: Array<{ name: string; url: string | null; indexed_commit: string | null }> }>(
    'list_repositories',
    {},
  );
  const storefront = listed.repositories.find((r) => r.url !== null)!;
  f.remote.commit('main', { 'src/webhooks/retry.ts': `// moved\n// on\n${SHOP['src/webhooks/retry.ts']}` });
  const remote = await walk(call, { repo: storefront.name });
  assert.equal(remote.hit.repo, storefront.name);
  assert.equal(remote.opened.commit, storefront.indexed_commit, 'read at the commit the index reflects');
  // The branch's head, when asked for.
  const head = await call<Opened>('open_file', {
    repo: storefront.name,
    path: 'src/webhooks/retry.ts',
    ref: 'main',
    startLine: 1,
    endLine: 1,
  });
  assert.equal(head.content, '// moved');
  report(t, mode, calls);
}

describe('the agent path: search → open → references → open (embedded)', () => {
  let f: Fixture;
  let sextant: Sextant;
  let client: Client;

  before(async () => {
    f = await fixture();
    sextant = await startEmbedded({ SEXTANT_WORKSPACE: f.workspace, GIT_ALLOWED_HOSTS: f.daemon.host, SEXTANT_PROGRESS_POLL_MS: '50' });
    client = await httpClient(sextant.url);
  });
  after(async () => {
    await client?.close();
    await sextant?.stop();
    await disposeFixture(f);
  });

  it('opens what search, references, symbols, outlines and grep point at, in a workspace and a remote repository', async (t) => {
    await agentPath(t, client, f, 'embedded');
  });
});

describe('the agent path: search → open → references → open (distributed)', () => {
  let f: Fixture;
  let stack: Stack;
  let client: Client;

  before(async () => {
    f = await fixture();
    stack = await distributedStack();
    const git = { GIT_ALLOWED_HOSTS: f.daemon.host };
    await stack.startService('workspace-registry', {
      ...git,
      SEXTANT_WORKSPACE: f.workspace,
      SEXTANT_DATA_DIR: join(f.base, 'registry'),
      SEXTANT_INDEXING_STAGES: 'symbols,vectors',
    });
    await Promise.all([
      stack.startService('projects'),
      stack.startService('git-cache', git),
      stack.startService('symbol-indexer', { ...git, SEXTANT_DATA_DIR: join(f.base, 'symbols') }),
      stack.startService('vector-search', { ...git, SEXTANT_DATA_DIR: join(f.base, 'vectors') }),
    ]);
    const gateway = await stack.startGateway({ SEXTANT_PROGRESS_POLL_MS: '50' });
    client = await httpClient(gateway.url);
  });
  after(async () => {
    await client?.close();
    await stack?.stop();
    await disposeFixture(f);
  });

  it('opens what search, references, symbols, outlines and grep point at, in a workspace and a remote repository', async (t) => {
    await agentPath(t, client, f, 'distributed');
  });
});

describe('no silent answers: a workspace not indexed, being indexed, or edited since (embedded)', () => {
  let base: string;
  let workspace: string;
  let sextant: Sextant;
  let client: Client;

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'sextant-silent-'));
    workspace = makeRepository(base, 'fresh', SHOP);
    sextant = await startEmbedded({ SEXTANT_WORKSPACE: workspace, SEXTANT_WATCH_SYNC_MS: '4000' });
    client = await httpClient(sextant.url);
  });
  after(async () => {
    await client?.close();
    await sextant?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  interface Located {
    definitions: Definition[];
    freshness: Array<{ repo: string; commit: string | null; dirty?: true; changed_paths?: string[] }>;
    indexing_status?: string;
    result_completeness?: string;
    hint?: string;
  }
  const locate = async (name: string) => {
    const answer = await callTool<Located>(client, 'locate_symbol', { name });
    assert.equal(answer.isError, false, JSON.stringify(answer.body));
    return answer.body;
  };
  /** Asks until `done` holds (every 200 ms, `ms` at most): the last answer. */
  const until = async (name: string, done: (a: Located) => boolean, ms: number): Promise<Located> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const answer = await locate(name);
      if (done(answer) || Date.now() > deadline) return answer;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  it('lists the default workspace from the start, indexes it on first use and says so until it is; an edit shows as dirty, then syncs by itself', async () => {
    const listed = await callTool<{ repositories: Array<{ name: string; index_status: string }> }>(client, 'list_repositories', {});
    assert.deepEqual(
      listed.body.repositories.map((r) => [r.name, r.index_status]),
      [['fresh', 'not_indexed']],
    );

    // First use: the answer is partial and says why; indexing has started without being asked.
    const first = await locate('send');
    assert.equal(first.result_completeness, 'partial', JSON.stringify(first));
    assert.equal(first.indexing_status, 'indexing');
    assert.match(first.hint ?? '', /^fresh is being indexed: this answer covers what is indexed so far/);
    const ready = await until('send', (a) => a.definitions.length > 0 && a.hint === undefined, 60_000);
    assert.deepEqual(
      ready.definitions.map((d) => d.path),
      ['src/webhooks/send.ts'],
    );
    assert.equal(ready.result_completeness, undefined);

    // An edit: answers name it (once the answer's freshness is older than its few seconds of reuse) …
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    writeFileSync(join(workspace, 'src', 'added.ts'), 'export function freshlyAdded() { return 1; }\n');
    const dirty = await until('freshlyAdded', (a) => a.freshness[0]?.dirty === true, 3_000);
    assert.deepEqual(dirty.freshness[0], { ...dirty.freshness[0], dirty: true, changed_paths: ['src/added.ts'] });
    assert.deepEqual(dirty.definitions, [], 'not indexed yet');
    // … and the workspace syncs itself a few seconds after the last edit: no sync_repo.
    const synced = await until('freshlyAdded', (a) => a.definitions.length > 0, 20_000);
    assert.deepEqual(
      synced.definitions.map((d) => d.path),
      ['src/added.ts'],
    );
  });
});
