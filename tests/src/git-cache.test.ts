/**
 * The git-cache tools end to end, through the gateway: embedded mode (one
 * process, in-process bus) and distributed mode (git-cache as its own process
 * behind real NATS). Real git daemon, real ripgrep, a local stand-in for the
 * GitHub API speaking its wire format.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  callTool,
  createSampleRepository,
  FaultProxy,
  GitDaemon,
  httpClient,
  startEmbedded,
  startFakeGitHub,
  BareRepository,
  type FakeGitHub,
  type Sextant,
} from '@sextant/testing';
import { assertMetadata, expectToolError } from './scenarios.js';
import { distributedStack, type Stack } from './stack.js';

interface GrepBody {
  matches: Array<{ path: string; line_matches: Array<{ line_number: number; line: string; ranges: Array<[number, number]> }> }>;
  stats: { files_searched: number; total_matches: number; files_with_matches: number; execution_time_ms: number };
  truncated: boolean;
  ref: string;
  notes?: string[];
}

interface Fixture {
  workspace: string;
  sample: BareRepository;
  /** 20,000 matching lines (2.4 MB): more than one bus message (NATS max_payload, 1 MiB) can carry. */
  big: BareRepository;
  daemon: GitDaemon;
  github: FakeGitHub;
  env(cacheDir: string): Record<string, string>;
}

async function fixture(): Promise<Fixture> {
  const workspace = mkdtempSync(join(tmpdir(), 'sextant-git-e2e-'));
  mkdirSync(join(workspace, 'remotes'));
  const sample = createSampleRepository(join(workspace, 'remotes'), 'sample');
  const big = new BareRepository(join(workspace, 'remotes'), 'big');
  big.commit('main', { 'haystack.txt': Array.from({ length: 20_000 }, (_, i) => `${i} needle ${'hay '.repeat(28)}`).join('\n') });
  const daemon = await GitDaemon.start(join(workspace, 'remotes'));
  const github = await startFakeGitHub();
  return {
    workspace,
    sample,
    big,
    daemon,
    github,
    env: (cacheDir) => ({
      GIT_CACHE_DIR: cacheDir,
      GIT_ALLOWED_HOSTS: `github.com,${daemon.host}`,
      GIT_ALLOW_FILE_URLS: 'true',
      GITHUB_API_URL: github.url,
      GITCODE_MCP_GITHUB_TOKEN: 'ghp_e2e-secret-token',
    }),
  };
}

async function disposeFixture(f: Fixture | undefined): Promise<void> {
  if (!f) return;
  await f.daemon.stop();
  await f.github.close();
  f.sample.dispose();
  f.big.dispose();
  rmSync(f.workspace, { recursive: true, force: true });
}

/** The same scenario in both modes. */
async function gitScenario(client: Client, f: Fixture): Promise<void> {
  const grep = await callTool<GrepBody>(client, 'grep_repository', { repository: f.daemon.url('sample'), pattern: 'hello' });
  assert.equal(grep.isError, false, JSON.stringify(grep.body));
  assert.deepEqual(grep.body.matches.map((m) => m.path).sort(), ['README.md', 'src/main.ts']);
  assert.equal(grep.body.ref, 'main');
  assertMetadata(grep.body.metadata);

  // Answers larger than one bus message are cut to a size budget, never lost to a timeout.
  const many = await callTool<GrepBody>(client, 'grep_repository', {
    repository: f.daemon.url('big'),
    pattern: 'needle',
    max_matches: 10_000,
  });
  assert.equal(many.isError, false, JSON.stringify(many.body).slice(0, 500));
  assert.equal(many.body.truncated, true);
  assert.ok(many.body.stats.total_matches > 1_000 && many.body.stats.total_matches < 10_000, `${many.body.stats.total_matches} lines`);
  assert.match(many.body.notes?.[0] ?? '', /GREP_MAX_RESULT_BYTES/);
  const whole = await callTool<{ truncated: boolean; content: string; endLine: number; next: { startLine: number } | null }>(
    client,
    'open_file',
    { repo: f.daemon.url('big'), path: 'haystack.txt' },
  );
  assert.equal(whole.isError, false, JSON.stringify(whole.body).slice(0, 500));
  assert.equal(whole.body.truncated, true);
  // Sized for an agent's context by default: 64 KiB at most, and the range to ask for next.
  assert.ok(Buffer.byteLength(whole.body.content) <= 64 * 1024, `${Buffer.byteLength(whole.body.content)} bytes`);
  assert.equal(whole.body.next?.startLine, whole.body.endLine + 1);
  const refs = await callTool<{ branches: string[]; tags: string[] }>(client, 'list_repository_refs', {
    repository: f.daemon.url('sample'),
  });
  assert.deepEqual({ branches: refs.body.branches, tags: refs.body.tags }, { branches: ['feature', 'main'], tags: ['v0.9', 'v1.0'] });

  const file = await callTool<{ content: string; totalLines: number }>(client, 'open_file', {
    repo: f.daemon.url('sample'),
    path: 'src/main.ts',
    startLine: 2,
    endLine: 2,
  });
  assert.equal(file.isError, false, JSON.stringify(file.body));
  assert.equal(file.body.content, '  // TODO: localize');
  assert.equal(file.body.totalLines, 4);

  const search = await callTool<{ repositories: Array<{ full_name: string }>; metadata: Record<string, unknown> }>(
    client,
    'search_repositories',
    { query: 'sextant', per_page: 2 },
  );
  assert.equal(search.isError, false, JSON.stringify(search.body));
  assert.equal(typeof search.body.metadata.rate_limit_remaining, 'number');
  assert.equal(typeof search.body.metadata.rate_limit_reset, 'number');
  assert.equal(f.github.requests.at(-1)?.headers.authorization, 'Bearer ghp_e2e-secret-token');

  await expectToolError(client, 'grep_repository', { repository: f.daemon.url('sample'), pattern: '' }, 'invalid_input', 'pattern');
  await expectToolError(client, 'grep_repository', { repository: f.daemon.url('sample'), pattern: 'a(' }, 'invalid_input', 'pattern');
  await expectToolError(
    client,
    'grep_repository',
    { repository: '--upload-pack=touch /tmp/x', pattern: 'x' },
    'invalid_input',
    'repository',
  );
  await expectToolError(
    client,
    'grep_repository',
    { repository: 'https://evil.example.org/o/r', pattern: 'x' },
    'invalid_input',
    'repository',
  );
  await expectToolError(client, 'open_file', { repo: f.daemon.url('sample'), path: '../../../etc/passwd' }, 'forbidden');
  await expectToolError(client, 'grep_repository', { repository: f.daemon.url('missing'), pattern: 'x' }, 'not_found');

  f.github.fail([{ rateLimitExhausted: true }]);
  const limited = await expectToolError(client, 'search_repositories', { query: 'x' }, 'rate_limited');
  assert.match(limited.message, /reset/);
  assert.equal(typeof limited.details?.rate_limit_reset, 'number');
  assert.doesNotMatch(JSON.stringify(limited), /ghp_e2e-secret-token/);
}

describe('git-cache tools through the gateway, embedded mode', () => {
  let f: Fixture;
  let sextant: Sextant;
  let client: Client;
  let cacheDir: string;

  before(async () => {
    f = await fixture();
    cacheDir = join(f.workspace, 'cache');
    sextant = await startEmbedded(f.env(cacheDir));
    client = await httpClient(sextant.url);
    await client.listTools();
  });
  after(async () => {
    await client?.close();
    await sextant?.stop();
    await disposeFixture(f);
  });

  it('greps, lists refs, opens files and searches GitHub', () => gitScenario(client, f));

  it('shares one clone among 10 simultaneous greps of an uncached repository', async () => {
    const other = createSampleRepository(join(f.workspace, 'remotes'), 'concurrent');
    try {
      const before = readdirSync(cacheDir).length;
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          callTool<GrepBody>(client, 'grep_repository', { repository: f.daemon.url('concurrent'), pattern: 'TODO' }),
        ),
      );
      for (const r of results) assert.equal(r.body.stats.total_matches, 6);
      assert.equal(readdirSync(cacheDir).length, before + 1, 'one new clone directory');
    } finally {
      other.dispose();
    }
  });

  it('removes its clones when the process stops', async () => {
    assert.ok(readdirSync(cacheDir).some((d) => d.startsWith('mcp_')));
    await client.close();
    await sextant.stop();
    assert.deepEqual(
      readdirSync(cacheDir).filter((d) => d.startsWith('mcp_')),
      [],
    );
  });
});

describe('git-cache tools through the gateway, distributed over NATS', () => {
  let f: Fixture;
  let stack: Stack;
  let client: Client;

  before(async () => {
    f = await fixture();
    stack = await distributedStack();
    await stack.startService('git-cache', f.env(join(f.workspace, 'cache')));
    await stack.startGateway();
    client = await httpClient(stack.gateway!.url);
    await client.listTools();
  });
  after(async () => {
    await client?.close();
    await stack?.stop();
    await disposeFixture(f);
  });

  it('greps, lists refs, opens files and searches GitHub', () => gitScenario(client, f));
});

describe('git-cache stops the work its caller no longer waits for (embedded, 2 s bus timeout)', () => {
  let f: Fixture;
  let proxy: FaultProxy;
  let sextant: Sextant;
  let client: Client;
  let cacheDir: string;

  before(async () => {
    f = await fixture();
    cacheDir = join(f.workspace, 'cache');
    // A git server that accepts the connection and then says nothing.
    proxy = new FaultProxy('127.0.0.1', f.daemon.port);
    await proxy.start();
    const env = f.env(cacheDir);
    sextant = await startEmbedded({
      ...env,
      GIT_ALLOWED_HOSTS: `${env.GIT_ALLOWED_HOSTS},127.0.0.1:${proxy.port}`,
      SEXTANT_BUS_TIMEOUT_MS: '2000',
    });
    client = await httpClient(sextant.url);
  });
  after(async () => {
    await client?.close();
    await sextant?.stop();
    await proxy?.stop();
    await disposeFixture(f);
  });

  const clonesRunning = async () => {
    const text = await (await fetch(new URL('/metrics', sextant.url))).text();
    return Number(/^sextant_work_running\{budget="clones"\} (\d+)$/m.exec(text)?.[1]);
  };
  const until = async (what: string, ok: () => Promise<boolean>, withinMs: number) => {
    const deadline = performance.now() + withinMs;
    while (!(await ok())) {
      if (performance.now() > deadline) assert.fail(`${what} within ${withinMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it("kills a clone stalled past the caller's deadline (not at its own 120 s budget), leaves nothing behind, and clones again later", async () => {
    proxy.stall();
    const repository = `git://127.0.0.1:${proxy.port}/sample.git`;
    const call = expectToolError(client, 'grep_repository', { repository, pattern: 'hello' }, 'timeout');
    await until('the clone starts', async () => (await clonesRunning()) === 1, 5_000);
    await call;
    await until('the clone is stopped after the deadline', async () => (await clonesRunning()) === 0, 2_000);
    const clones = spawnSync('pgrep', ['-f', `clone.*127.0.0.1:${proxy.port}/`], { encoding: 'utf8' }).stdout.trim();
    assert.equal(clones, '', 'no git clone left running');
    assert.deepEqual(
      readdirSync(cacheDir).filter((name) => name.startsWith('.tmp-') || name.startsWith('mcp_')),
      [],
      'no partial clone left',
    );

    proxy.restore();
    const grep = await callTool<GrepBody>(client, 'grep_repository', { repository, pattern: 'hello' });
    assert.equal(grep.isError, false, JSON.stringify(grep.body));
    assert.ok(grep.body.stats.total_matches > 0);
  });
});
