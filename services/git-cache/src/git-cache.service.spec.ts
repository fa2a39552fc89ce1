/**
 * The git-cache service against real git (bare repositories served by
 * `git daemon` and over file://), real ripgrep and real `git grep`.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { busError, type BusError, type GrepRepository, type RegisteredRepository } from '@sextant/contracts';
import { GrepRepository as GrepContract, OpenFile as OpenFileContract } from '@sextant/contracts';
import { BusRequestError } from '@sextant/messaging';
import { ReadableRepositoryIds } from '@sextant/registry-client';
import { BareRepository, createSampleRepository, GitDaemon, HangingServer, freePort, git, writeTree } from '@sextant/testing';
import { FileReader } from './files/file-reader.js';
import { GitCacheService } from './git-cache.service.js';
import { GitHubSearch } from './github/github-search.js';
import type { GrepEngine } from './grep/collector.js';
import { findRipgrep } from './grep/engine.js';
import { GitGrepEngine } from './grep/git-grep.js';
import { RipgrepEngine } from './grep/ripgrep.js';
import {
  CloneCache,
  type CloneCacheOptions,
  GitError,
  ProcessGitRunner,
  type GitRunner,
  parseRepository,
  LauncherSpawner,
} from '@sextant/checkouts';

// Children are started as in production: through the launcher process.
const spawner = new LauncherSpawner();

const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
const HOUR = 3_600_000;

async function failure(promise: Promise<unknown>): Promise<BusError> {
  try {
    await promise;
  } catch (error) {
    // A ServiceError of git-cache, or the registry's error passed through.
    const busError = error instanceof BusRequestError ? error.error : (error as { busError?: BusError }).busError;
    assert.ok(busError, `expected a ServiceError, got ${String(error)}`);
    return busError;
  }
  assert.fail('expected a failure');
}

class Clock {
  now = Date.now();
  advance(ms: number): void {
    this.now += ms;
  }
}

/**
 * workspace-registry as git-cache sees it over the bus (the real one answers
 * in tests/): repositories registered by reference (id or name) and workspaces by path.
 */
class RegistryStandIn {
  readonly byReference = new Map<string, RegisteredRepository>();
  readonly byWorkspace = new Map<string, RegisteredRepository>();
  /** The commit each repository's index reflects (by id). */
  readonly indexed = new Map<string, string>();
  register(repository: RegisteredRepository, workspace?: string): void {
    this.byReference.set(repository.id, repository);
    this.byReference.set(repository.name, repository);
    this.byReference.set(repository.locator, repository);
    if (workspace) {
      this.byWorkspace.set(workspace, repository);
      this.byReference.set(workspace, repository);
    }
  }
  async freshness(ids: readonly string[]) {
    return ids.map((id) => ({
      id,
      indexed_commit: this.indexed.get(id) ?? null,
      behind_head: null,
      index_status: this.indexed.has(id) ? ('ready' as const) : ('not_indexed' as const),
      dirty: null,
      changed_paths: [],
    }));
  }
  async repositories(references: readonly string[]): Promise<Array<RegisteredRepository | null>> {
    return references.map((r) => this.byReference.get(r) ?? null);
  }
  async workspace(path: string | undefined) {
    const repository = path === undefined ? undefined : this.byWorkspace.get(path);
    if (!repository) throw new BusRequestError(busError('workspace_not_registered', `Workspace "${path}" is not registered.`));
    return { repository, discovered: false };
  }
}

interface Harness {
  service: GitCacheService;
  cache: CloneCache;
  clock: Clock;
  root: string;
  registry: RegistryStandIn;
}

describe('git-cache service (real git, git daemon, ripgrep)', () => {
  let workspace: string;
  let sample: BareRepository;
  let other: BareRepository;
  let daemon: GitDaemon;
  let rg: string;
  const harnesses: Harness[] = [];

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'sextant-git-cache-'));
    const remotes = join(workspace, 'remotes');
    mkdirSync(remotes);
    sample = createSampleRepository(remotes, 'sample');
    other = createSampleRepository(remotes, 'other');
    daemon = await GitDaemon.start(remotes);
    const found = await findRipgrep();
    assert.ok(found, 'ripgrep is installed (@vscode/ripgrep)');
    rg = found;
  });

  after(async () => {
    for (const h of harnesses) await h.cache.stop();
    await spawner.close();
    await daemon?.stop();
    sample?.dispose();
    other?.dispose();
    rmSync(workspace, { recursive: true, force: true });
  });

  function harness(
    options: { engine?: GrepEngine; git?: GitRunner; cache?: Partial<CloneCacheOptions>; grepTimeoutMs?: number } = {},
  ): Harness {
    const root = mkdtempSync(join(workspace, 'cache-'));
    const clock = new Clock();
    const registry = new RegistryStandIn();
    const git =
      options.git ?? new ProcessGitRunner({ protocols: ['git', 'file', 'http', 'https'], defaultTimeoutMs: 20_000, baseEnv, spawner });
    const cache = new CloneCache({
      root,
      maxBytes: 10 * 1024 ** 3,
      refreshAfterMs: 24 * HOUR,
      evictAfterMs: 7 * 24 * HOUR,
      cloneTimeoutMs: 20_000,
      git,
      now: () => clock.now,
      ...options.cache,
    });
    const service = new GitCacheService({
      cache,
      git,
      engine: options.engine ?? new RipgrepEngine(rg, spawner),
      github: new GitHubSearch({ apiUrl: 'http://127.0.0.1:9', timeoutMs: 100, retries: 0, backoffMs: 1, maxResultBytes: 768 * 1024 }),
      files: new FileReader({ codebaseRoot: root, maxLines: 2000, maxBytes: 1024 * 1024 }),
      policy: { allowedHosts: ['github.com', daemon.host], allowFileUrls: true },
      // The local user (no principal in scope) reads everything; permissions are tested end to end (permissions.test.ts).
      readable: new ReadableRepositoryIds(),
      unregistered: 'read',
      grepTimeoutMs: options.grepTimeoutMs ?? 5_000,
      lsRemoteTimeoutMs: 5_000,
      registry,
    });
    const h = { service, cache, clock, root, registry };
    harnesses.push(h);
    return h;
  }

  function grep(h: Harness, input: Partial<GrepRepository.Request> & { pattern: string }) {
    return h.service.grep(GrepContract.Request.parse(input));
  }

  const paths = (r: GrepRepository.Response) => r.matches.map((m) => m.path).sort();

  function openFile(h: Harness, input: Record<string, unknown>) {
    return h.service.openFile(OpenFileContract.Request.parse(input));
  }

  describe('open_file', () => {
    it('opens a registered remote repository by its name at the commit its index reflects, or a ref at its head', async () => {
      const h = harness();
      const remote = createSampleRepository(join(workspace, 'remotes'), 'opened');
      const indexed = remote.commit('main', { 'src/app.ts': 'export const version = 1;\n', 'link.ts': { symlink: 'src/app.ts' } });
      h.registry.register({ id: 'id-opened', name: 'opened', kind: 'remote', locator: remote.fileUrl, ref: null });
      h.registry.indexed.set('id-opened', indexed);
      const moved = remote.commit('main', { 'src/app.ts': 'export const version = 2;\n' });
      // The clone fetches the branch's head: the answer is still what search saw, at the indexed commit.
      const atIndex = await openFile(h, { repo: 'opened', path: 'src/app.ts' });
      assert.deepEqual([atIndex.repo, atIndex.commit, atIndex.content], ['opened', indexed, 'export const version = 1;']);
      const byUrl = await openFile(h, { repo: remote.fileUrl, path: 'src/app.ts' });
      assert.deepEqual([byUrl.repo, byUrl.commit], ['opened', indexed]);
      const atHead = await openFile(h, { repo: 'id-opened', path: 'src/app.ts', ref: 'main' });
      assert.deepEqual([atHead.commit, atHead.content], [moved, 'export const version = 2;']);
      // Once indexed at the head, the file is read from the checkout itself.
      h.registry.indexed.set('id-opened', moved);
      assert.equal((await openFile(h, { repo: 'opened', path: 'src/app.ts' })).content, 'export const version = 2;');
      h.registry.indexed.set('id-opened', indexed);
      const link = await failure(openFile(h, { repo: 'opened', path: 'link.ts' }));
      assert.deepEqual(
        [link.code, link.message],
        [
          'invalid_input',
          `Invalid input: path: "link.ts" is a symbolic link at ${indexed.slice(0, 12)}; only regular files can be opened.`,
        ],
      );
      assert.equal((await failure(openFile(h, { repo: 'opened', path: 'src' }))).code, 'invalid_input');
      assert.equal((await failure(openFile(h, { repo: 'opened', path: 'missing.ts' }))).code, 'not_found');
      assert.equal((await failure(openFile(h, { repo: 'opened', path: '../x' }))).code, 'forbidden');
      assert.equal((await failure(openFile(h, { repo: 'opened', path: '.git/config' }))).code, 'forbidden');
      remote.dispose();
    });

    it('opens a registered workspace by name, path or workspace from its working tree; other names stay CODEBASE_ROOT directories', async () => {
      const h = harness();
      const dir = mkdtempSync(join(workspace, 'ws-'));
      git(dir, 'init', '-q', '--initial-branch=main');
      writeTree(dir, { 'notes.md': 'draft\n' });
      h.registry.register({ id: 'id-ws', name: 'target', kind: 'local', locator: dir, ref: null }, '/srv/target');
      for (const input of [{ repo: 'target' }, { repo: 'id-ws' }, { repo: dir }, { workspace: '/srv/target' }]) {
        const answer = await openFile(h, { ...input, path: 'notes.md' });
        assert.deepEqual([answer.repo, answer.commit, answer.content], ['target', null, 'draft'], JSON.stringify(input));
      }
      const ref = await failure(openFile(h, { repo: 'target', path: 'notes.md', ref: 'main' }));
      assert.deepEqual([ref.code, Object.keys((ref.details as { fields: object }).fields)], ['invalid_input', ['ref']]);
      const mismatch = await failure(openFile(h, { repo: 'opened-elsewhere', workspace: '/srv/target', path: 'notes.md' }));
      assert.deepEqual([mismatch.code, Object.keys((mismatch.details as { fields: object }).fields)], ['invalid_input', ['repo']]);
      assert.equal((await failure(openFile(h, { repo: 'target', path: '../escape' }))).code, 'forbidden');
      mkdirSync(join(h.root, 'plain'));
      writeTree(join(h.root, 'plain'), { 'a.txt': 'in the codebase root\n' });
      assert.deepEqual((await openFile(h, { repo: 'plain', path: 'a.txt' })).content, 'in the codebase root');
      assert.equal((await failure(openFile(h, { repo: 'nowhere', path: 'a.txt' }))).code, 'not_found');
    });

    it('says which range to ask for next when an answer is cut short', async () => {
      const h = harness();
      mkdirSync(join(h.root, 'long'));
      writeTree(join(h.root, 'long'), { 'many.txt': Array.from({ length: 5_000 }, (_, i) => `line ${i + 1}`).join('\n') });
      const first = await openFile(h, { repo: 'long', path: 'many.txt' });
      assert.deepEqual([first.endLine, first.truncated, first.next], [2_000, true, { startLine: 2_001, endLine: 4_000 }]);
      const last = await openFile(h, { repo: 'long', path: 'many.txt', startLine: 4_001 });
      assert.deepEqual([last.endLine, last.truncated, last.next], [5_000, false, null]);
      const asked = await openFile(h, { repo: 'long', path: 'many.txt', startLine: 10, endLine: 2_500 });
      assert.deepEqual([asked.endLine, asked.next], [2_009, { startLine: 2_010, endLine: 2_500 }]);
    });
  });

  describe('grep_repository', () => {
    let h: Harness;
    before(() => {
      h = harness();
    });

    it('finds a pattern case-insensitively over git://, skipping binaries and never searching .git', async () => {
      const result = await grep(h, { repository: daemon.url('sample'), pattern: 'todo' });
      assert.deepEqual(paths(result), [
        '.github/workflows/ci.yml',
        'CHANGELOG.md',
        'node_modules/dep/index.js',
        'src/main.ts',
        'src/nested/deep/util.js',
        'src/unicode.txt',
      ]);
      assert.equal(result.ref, 'main');
      assert.equal(result.truncated, false);
      assert.equal(result.stats.files_with_matches, 6);
      assert.equal(result.stats.total_matches, 6);
      assert.ok(result.stats.files_searched >= 8, `files_searched ${result.stats.files_searched}`);
      const gitDir = await grep(h, { repository: daemon.url('sample'), pattern: 'refs/heads' });
      assert.deepEqual(gitDir.matches, [], '.git is not searched');
    });

    it('reports ranges as [start, length] in characters, also after non-ASCII text', async () => {
      const result = await grep(h, { repository: daemon.url('sample'), pattern: 'TODO', file_extensions: ['txt'] });
      const line = result.matches[0].line_matches[0];
      assert.equal(line.line, 'ä TODO über TODO');
      assert.deepEqual(line.ranges, [
        [2, 4],
        [12, 4],
      ]);
    });

    it('honours case_sensitive, use_regex, file_extensions, exclude_dirs and context_lines', async () => {
      const repository = sample.fileUrl;
      assert.deepEqual(paths(await grep(h, { repository, pattern: 'Hello', case_sensitive: true })), []);
      assert.deepEqual(paths(await grep(h, { repository, pattern: 'T.DO', use_regex: false })), []);
      assert.equal((await grep(h, { repository, pattern: 'T.DO' })).stats.total_matches, 6);
      assert.deepEqual(paths(await grep(h, { repository, pattern: 'todo', file_extensions: ['ts', '.js'] })), [
        'node_modules/dep/index.js',
        'src/main.ts',
        'src/nested/deep/util.js',
      ]);
      assert.deepEqual(paths(await grep(h, { repository, pattern: 'todo', file_extensions: ['js'], exclude_dirs: ['node_modules'] })), [
        'src/nested/deep/util.js',
      ]);
      const context = await grep(h, { repository, pattern: 'localize', context_lines: 1 });
      assert.deepEqual(context.matches[0].line_matches[0].context_before, ['export function greet(name: string) {']);
      assert.deepEqual(context.matches[0].line_matches[0].context_after, ['  return `hello ${name}`;']);
    });

    it('caps the matches at max_matches and says the result was truncated', async () => {
      const result = await grep(h, { repository: sample.fileUrl, pattern: 'todo', max_matches: 2 });
      assert.equal(result.stats.total_matches, 2);
      assert.equal(result.truncated, true);
    });

    it('rejects an invalid regex with invalid_input quoting the engine', async () => {
      const error = await failure(grep(h, { repository: sample.fileUrl, pattern: 'a(' }));
      assert.equal(error.code, 'invalid_input');
      assert.match(error.message, /regex parse error|unclosed group/i);
      assert.ok((error.details as { fields: Record<string, string> }).fields.pattern);
    });

    it('finishes a catastrophic-backtracking pattern quickly (linear-time engine)', async () => {
      const started = performance.now();
      await grep(h, { repository: sample.fileUrl, pattern: '(a+)+$|(x+x+)+y' });
      assert.ok(performance.now() - started < 5_000);
    });

    it('reads a multi-megabyte minified line in bounded time: line cut, ranges kept within the cut (both engines)', async () => {
      const remotes = join(workspace, 'remotes');
      const minified = new BareRepository(remotes, 'minified');
      try {
        // 3 MB on one line, ~600,000 matches of "e" on it: the cost must not grow with the matches on a line.
        const line = `ä ${'let e=1;'.repeat(350_000)}`;
        minified.commit('main', { 'dist/bundle.min.js': `${line}\nfin\n`, 'src/a.ts': 'const e = 1;\n' });
        for (const engine of [new RipgrepEngine(rg, spawner), new GitGrepEngine(baseEnv, spawner)]) {
          const started = performance.now();
          const result = await grep(harness({ engine }), {
            repository: minified.fileUrl,
            pattern: 'e',
            max_matches: 10_000,
            context_lines: 1,
          });
          const elapsed = performance.now() - started;
          assert.ok(elapsed < 5_000, `${engine.name} took ${elapsed.toFixed(0)} ms`);
          const bundle = result.matches.find((m) => m.path === 'dist/bundle.min.js')!;
          const first = bundle.line_matches[0];
          assert.equal(first.line_number, 1);
          assert.equal(first.line.length, 1_000);
          assert.ok(first.line.startsWith('ä let e=1;let e=1;'));
          // "ä" is one character but two bytes: the "e"s of "ä let e=1;let e=1;" are at characters 3, 6 and 11.
          assert.deepEqual(first.ranges.slice(0, 3), [
            [3, 1],
            [6, 1],
            [11, 1],
          ]);
          assert.ok(first.ranges.every(([start]) => start < 1_000));
          assert.deepEqual(first.context_after, ['fin']);
          assert.equal(result.stats.total_matches, 2, `${engine.name}: one matching line per file`);
        }
      } finally {
        minified.dispose();
      }
    });

    it('refuses bad file_extensions and exclude_dirs', async () => {
      const error = await failure(
        grep(h, { repository: sample.fileUrl, pattern: 'x', file_extensions: ['{ts,js}'], exclude_dirs: ['../etc', '*'] }),
      );
      assert.equal(error.code, 'invalid_input');
      assert.deepEqual(Object.keys((error.details as { fields: Record<string, string> }).fields).sort(), [
        'exclude_dirs.0',
        'exclude_dirs.1',
        'file_extensions.0',
      ]);
    });

    it('searches a branch or a tag; a named ref that does not exist is not_found with the closest names, never another branch', async () => {
      const repository = daemon.url('sample');
      assert.deepEqual(paths(await grep(h, { repository, pattern: 'only on the branch', ref_name: 'feature' })), ['feature.txt']);
      const tag = await grep(h, { repository, pattern: 'v1.1', ref_name: 'v1.0' });
      assert.deepEqual(tag.matches, [], 'the tag predates CHANGELOG.md');
      assert.equal(tag.ref, 'v1.0');
      const missing = await failure(grep(h, { repository, pattern: 'v1.1', ref_name: 'featur' }));
      assert.equal(missing.code, 'not_found', missing.message);
      assert.match(missing.message, /Ref "featur" was not found in git:\/\/127\.0\.0\.1:\d+\/sample \(closest branches: feature/);
      assert.deepEqual((missing.details as { closest_branches: string[] }).closest_branches, ['feature']);
      for (const ref_name of ['FETCH_HEAD', 'ORIG_HEAD', 'refs/heads/nope']) {
        assert.equal((await failure(grep(h, { repository, pattern: 'x', ref_name }))).code, 'not_found', ref_name);
      }
      assert.equal((await grep(h, { repository, pattern: 'x', ref_name: 'HEAD' })).ref, 'main', 'HEAD names the default branch');
      assert.equal((await failure(grep(h, { repository, pattern: 'x', ref_name: '.git' }))).code, 'invalid_input');
      // The default branch when no ref is named.
      assert.equal((await grep(h, { repository, pattern: 'v1.1' })).ref, 'main');
    });

    it('keeps one clone per transport: a git:// clone never answers an https:// request', async () => {
      const plain = await grep(h, { repository: daemon.url('other'), pattern: 'hello' });
      assert.ok(plain.matches.length > 0);
      // The git daemon serves no TLS: the https:// request must go to the network (and fail), not to the plaintext clone.
      const tls = await failure(grep(h, { repository: daemon.url('other').replace(/^git:/, 'https:'), pattern: 'hello' }));
      assert.equal(tls.code, 'unavailable', tls.message);
    });

    it('takes a registered repository by id or name (remote: its registered branch) and a workspace (its working tree)', async () => {
      const remote = createSampleRepository(join(workspace, 'remotes'), 'registered');
      remote.commit('registered', { 'src/only-on-branch.ts': 'export const registered = 1;\n' });
      h.registry.register({ id: 'id-remote', name: 'sample-remote', kind: 'remote', locator: remote.fileUrl, ref: 'registered' });
      const byName = await grep(h, { repository: 'sample-remote', pattern: 'registered = 1' });
      assert.deepEqual([paths(byName), byName.ref], [['src/only-on-branch.ts'], 'registered']);
      assert.deepEqual(paths(await grep(h, { repository: 'id-remote', pattern: 'registered = 1', ref_name: 'main' })), []);

      const dir = mkdtempSync(join(workspace, 'local-'));
      git(dir, 'init', '-q', '--initial-branch=trunk');
      writeTree(dir, { 'committed.txt': 'needle one\n' });
      git(dir, 'add', '-A');
      git(dir, '-c', 'user.name=t', '-c', 'user.email=t@t.invalid', 'commit', '-q', '-m', 'c');
      git(dir, 'tag', 'v1');
      writeTree(dir, { 'uncommitted.txt': 'needle two\n' });
      h.registry.register({ id: 'id-local', name: 'local-ws', kind: 'local', locator: dir, ref: null }, '/srv/ws');
      const local = await grep(h, { workspace: '/srv/ws', pattern: 'needle' });
      assert.deepEqual([paths(local), local.ref], [['committed.txt', 'uncommitted.txt'], 'trunk']);
      assert.deepEqual(paths(await grep(h, { repository: 'local-ws', workspace: '/srv/ws', pattern: 'needle two' })), ['uncommitted.txt']);
      assert.deepEqual(await h.service.listRefs({ workspace: '/srv/ws' }), { branches: ['trunk'], tags: ['v1'] });

      const ref = await failure(grep(h, { workspace: '/srv/ws', pattern: 'x', ref_name: 'v1' }));
      assert.deepEqual([ref.code, Object.keys((ref.details as { fields: object }).fields)], ['invalid_input', ['ref_name']]);
      const mismatch = await failure(grep(h, { repository: 'sample-remote', workspace: '/srv/ws', pattern: 'x' }));
      assert.deepEqual([mismatch.code, Object.keys((mismatch.details as { fields: object }).fields)], ['invalid_input', ['repository']]);
      assert.equal((await failure(grep(h, { workspace: '/srv/elsewhere', pattern: 'x' }))).code, 'workspace_not_registered');
      assert.equal((await failure(h.service.listRefs({ workspace: '/srv/elsewhere' }))).code, 'workspace_not_registered');
      const unknown = await failure(grep(h, { repository: 'no-such-name', pattern: 'x' }));
      assert.equal(unknown.code, 'not_found');
      assert.match(unknown.message, /nor the id or name of a registered repository/);
      const neither = await failure(h.service.listRefs({}));
      assert.deepEqual([neither.code, Object.keys((neither.details as { fields: object }).fields)], ['invalid_input', ['repository']]);
      remote.dispose();
    });

    it('matches file_extensions in any case and exclude_dirs in any script', async () => {
      const repository = sample.fileUrl;
      assert.deepEqual(
        paths(await grep(h, { repository, pattern: 'todo', file_extensions: ['JS'], exclude_dirs: ['node_modules', 'données'] })),
        ['src/nested/deep/util.js'],
      );
    });

    it('excludes a directory with a non-ASCII name, and gives the neighbouring lines as context even when they match (both engines)', async () => {
      const remote = createSampleRepository(join(workspace, 'remotes'), 'adjacent');
      try {
        remote.commit('main', {
          'données/notes.txt': 'todo in a folder to leave out\n',
          'src/list.txt': 'alpha\ntodo one\ntodo two\nomega\n',
        });
        for (const engine of [new RipgrepEngine(rg, spawner), new GitGrepEngine(baseEnv, spawner)]) {
          const hx = harness({ engine });
          const all = await grep(hx, { repository: remote.fileUrl, pattern: 'todo', file_extensions: ['txt'] });
          assert.ok(paths(all).includes('données/notes.txt'), JSON.stringify(paths(all)));
          const excluded = await grep(hx, {
            repository: remote.fileUrl,
            pattern: 'todo',
            file_extensions: ['txt'],
            exclude_dirs: ['données'],
          });
          assert.ok(!paths(excluded).includes('données/notes.txt'), `${engine.constructor.name}: ${JSON.stringify(paths(excluded))}`);
          const context = await grep(hx, { repository: remote.fileUrl, pattern: 'todo', context_lines: 1, exclude_dirs: ['données'] });
          const lines = context.matches.find((m) => m.path === 'src/list.txt')!.line_matches;
          assert.deepEqual(
            lines.map((l) => [l.line_number, l.context_before, l.context_after]),
            [
              [2, ['alpha'], ['todo two']],
              [3, ['todo one'], ['omega']],
            ],
            engine.constructor.name,
          );
        }
      } finally {
        remote.dispose();
      }
    });
  });

  describe('clone cache policy', () => {
    it('makes exactly one clone for 10 simultaneous greps of an uncached repository', async () => {
      const h = harness();
      const results = await Promise.all(Array.from({ length: 10 }, () => grep(h, { repository: daemon.url('sample'), pattern: 'hello' })));
      assert.equal(h.cache.stats().clones, 1);
      assert.equal(h.cache.stats().refreshes, 0);
      for (const r of results) assert.deepEqual(paths(r), ['README.md', 'src/main.ts']);
      const dirs = readdirSync(h.root);
      assert.equal(dirs.length, 1);
      assert.match(dirs[0], /^mcp_git_127\.0\.0\.1_\d+_sample_[0-9a-f]{16}$/);
    });

    it('refreshes a branch older than the refresh age, and when another ref is asked; never pulls a tag again', async () => {
      const remotes = join(workspace, 'remotes');
      const moving = createSampleRepository(remotes, 'moving');
      try {
        const h = harness();
        const repository = daemon.url('moving');
        assert.deepEqual(paths(await grep(h, { repository, pattern: 'fresh-marker' })), []);
        moving.commit('main', { 'new.txt': 'fresh-marker\n' });
        assert.deepEqual(paths(await grep(h, { repository, pattern: 'fresh-marker' })), [], 'still fresh: not refreshed');
        h.clock.advance(25 * HOUR);
        assert.deepEqual(paths(await grep(h, { repository, pattern: 'fresh-marker' })), ['new.txt'], 'stale: refreshed');
        assert.equal(h.cache.stats().refreshes, 1);
        await grep(h, { repository, pattern: 'x', ref_name: 'v1.0' });
        assert.equal(h.cache.stats().refreshes, 2, 'another ref: refreshed');
        h.clock.advance(48 * HOUR);
        await grep(h, { repository, pattern: 'x', ref_name: 'v1.0' });
        assert.equal(h.cache.stats().refreshes, 2, 'a tag is not pulled again');
        assert.equal(h.cache.stats().clones, 1);
      } finally {
        moving.dispose();
      }
    });

    it('refreshes an unchanged branch with one ls-remote and no fetch; a moved one with a fetch', async () => {
      const remotes = join(workspace, 'remotes');
      const steady = createSampleRepository(remotes, 'steady');
      try {
        const commands: string[] = [];
        const real = new ProcessGitRunner({ protocols: ['git', 'file'], defaultTimeoutMs: 20_000, baseEnv, spawner });
        const h = harness({ git: { run: (args, options) => (commands.push(args[0]), real.run(args, options)) } });
        for (const ref_name of [undefined, 'feature']) {
          const repository = daemon.url('steady');
          await grep(h, { repository, pattern: 'x', ref_name });
          commands.length = 0;
          h.clock.advance(25 * HOUR);
          await grep(h, { repository, pattern: 'x', ref_name });
          assert.deepEqual(commands, ['ls-remote'], `${ref_name ?? 'default branch'}: unchanged, no fetch`);
        }
        steady.commit('feature', { 'later.txt': 'later-marker\n' });
        commands.length = 0;
        h.clock.advance(25 * HOUR);
        assert.deepEqual(paths(await grep(h, { repository: daemon.url('steady'), pattern: 'later-marker', ref_name: 'feature' })), [
          'later.txt',
        ]);
        assert.deepEqual(commands, ['ls-remote', 'fetch', 'checkout']);
      } finally {
        steady.dispose();
      }
    });

    it('evicts clones unused for the eviction age', async () => {
      const h = harness();
      await grep(h, { repository: daemon.url('sample'), pattern: 'x' });
      const first = h.cache.directoryFor(locatorOf(daemon.url('sample')));
      assert.ok(existsSync(first));
      h.clock.advance(8 * 24 * HOUR);
      await grep(h, { repository: daemon.url('other'), pattern: 'x' });
      await waitFor(() => !existsSync(first));
      assert.equal(h.cache.stats().entries, 1);
      assert.equal(h.cache.stats().evictions, 1);
    });

    it('evicts least-recently-used clones when the total size passes the cap', async () => {
      const probe = harness();
      await grep(probe, { repository: daemon.url('sample'), pattern: 'x' });
      const oneClone = probe.cache.stats().bytes;
      const h = harness({ cache: { maxBytes: Math.round(oneClone * 1.5) } });
      await grep(h, { repository: daemon.url('sample'), pattern: 'x' });
      h.clock.advance(1_000);
      await grep(h, { repository: daemon.url('other'), pattern: 'x' });
      assert.equal(h.cache.stats().entries, 1);
      assert.ok(!existsSync(h.cache.directoryFor(locatorOf(daemon.url('sample')))), 'the older clone went');
      assert.ok(existsSync(h.cache.directoryFor(locatorOf(daemon.url('other')))), 'the one in use stays');
    });

    it('removes its clones at shutdown, and what dead processes left at start', async () => {
      const h = harness();
      await grep(h, { repository: sample.fileUrl, pattern: 'x' });
      assert.equal(readdirSync(h.root).length, 1);
      await h.cache.stop();
      assert.deepEqual(readdirSync(h.root), []);

      const old = new Date(Date.now() - 8 * 24 * HOUR);
      for (const name of ['mcp_github.com_o_r_0123456789abcdef', '.tmp-deadbeef-0001']) {
        mkdirSync(join(h.root, name));
        utimesSync(join(h.root, name), old, old);
      }
      mkdirSync(join(h.root, 'mcp_recent_0123456789abcdef'));
      const restarted = harness({ cache: { root: h.root } });
      await restarted.cache.start();
      assert.deepEqual(readdirSync(h.root), ['mcp_recent_0123456789abcdef']);
    });

    it('on a full disk evicts idle clones and retries once, then fails with a clear message', async () => {
      const real = new ProcessGitRunner({ protocols: ['file'], defaultTimeoutMs: 20_000, baseEnv, spawner });
      let diskFullClones = 1;
      const flaky: GitRunner = {
        run(args, options) {
          if (args[0] === 'clone' && args.includes(other.fileUrl) && diskFullClones-- > 0) {
            return Promise.reject(new GitError('disk_full', 'fatal: write error: No space left on device', args));
          }
          return real.run(args, options);
        },
      };
      const h = harness({ git: flaky });
      await grep(h, { repository: sample.fileUrl, pattern: 'x' });
      await grep(h, { repository: other.fileUrl, pattern: 'x' });
      assert.equal(h.cache.stats().evictions, 1, 'the idle clone was evicted to make room');

      diskFullClones = 2;
      const h2 = harness({ git: flaky });
      const error = await failure(grep(h2, { repository: other.fileUrl, pattern: 'x' }));
      assert.equal(error.code, 'unavailable');
      assert.match(error.message, /no disk space left/);
      assert.deepEqual(readdirSync(h2.root), [], 'no half-written clone is left');
    });
  });

  describe('remote failures leave the cache consistent', () => {
    it('a repository that does not exist → not_found (git:// and file://)', async () => {
      const h = harness();
      for (const repository of [daemon.url('missing'), `file://${join(workspace, 'remotes', 'missing.git')}`]) {
        const error = await failure(grep(h, { repository, pattern: 'x' }));
        assert.equal(error.code, 'not_found', `${repository}: ${error.message}`);
        assert.match(error.message, /was not found/);
      }
      assert.deepEqual(readdirSync(h.root), []);
    });

    it('a ref that does not exist, in a repository without main/master → not_found naming the ref', async () => {
      const remotes = join(workspace, 'remotes');
      const trunk = new BareRepository(remotes, 'trunk-only');
      try {
        trunk.commit('trunk', { 'a.txt': 'a\n' });
        const h = harness();
        const error = await failure(grep(h, { repository: daemon.url('trunk-only'), pattern: 'x', ref_name: 'nope' }));
        assert.equal(error.code, 'not_found', error.message);
        assert.match(error.message, /Ref "nope" was not found/);
        assert.deepEqual(readdirSync(h.root), []);
      } finally {
        trunk.dispose();
      }
    });

    it('an unreachable remote → unavailable; a remote that hangs → timeout; nothing left behind', async () => {
      const hanging = await HangingServer.start();
      const closedPort = await freePort();
      try {
        const h = harness({ cache: { cloneTimeoutMs: 1_500 } });
        (h.service as unknown as { deps: { policy: { allowedHosts: string[] } } }).deps.policy.allowedHosts.push(
          hanging.host,
          `127.0.0.1:${closedPort}`,
        );
        const unreachable = await failure(grep(h, { repository: `git://127.0.0.1:${closedPort}/x.git`, pattern: 'x' }));
        assert.equal(unreachable.code, 'unavailable', unreachable.message);
        const started = performance.now();
        const hung = await failure(grep(h, { repository: `git://${hanging.host}/x.git`, pattern: 'x' }));
        assert.equal(hung.code, 'timeout', hung.message);
        assert.ok(performance.now() - started < 10_000);
        assert.deepEqual(readdirSync(h.root), []);
        // The cache still works after the failures.
        assert.deepEqual(paths(await grep(h, { repository: sample.fileUrl, pattern: 'hello world' })), ['README.md']);
      } finally {
        await hanging.stop();
      }
    });
  });

  describe('list_repository_refs', () => {
    it('lists branches and tags of the remote', async () => {
      const h = harness();
      assert.deepEqual(await h.service.listRefs({ repository: daemon.url('sample') }), {
        branches: ['feature', 'main'],
        tags: ['v0.9', 'v1.0'],
      });
      assert.equal((await failure(h.service.listRefs({ repository: daemon.url('missing') }))).code, 'not_found');
    });
  });

  describe('git grep fallback engine', () => {
    it('gives the same answers as ripgrep for the sample', async () => {
      const h = harness({ engine: new GitGrepEngine(baseEnv, spawner) });
      const result = await grep(h, { repository: sample.fileUrl, pattern: 'todo' });
      assert.equal(result.stats.total_matches, 6);
      assert.ok(!paths(result).includes('assets/blob.bin'));
      const unicode = await grep(h, { repository: sample.fileUrl, pattern: 'TODO', file_extensions: ['txt'] });
      assert.deepEqual(unicode.matches[0].line_matches[0].ranges, [
        [2, 4],
        [12, 4],
      ]);
      assert.deepEqual(
        paths(await grep(h, { repository: sample.fileUrl, pattern: 'todo', file_extensions: ['js'], exclude_dirs: ['node_modules'] })),
        ['src/nested/deep/util.js'],
      );
      const context = await grep(h, { repository: sample.fileUrl, pattern: 'localize', context_lines: 1 });
      assert.deepEqual(context.matches[0].line_matches[0].context_after, ['  return `hello ${name}`;']);
      assert.equal((await failure(grep(h, { repository: sample.fileUrl, pattern: 'a(' }))).code, 'invalid_input');
    });

    it('bounds a backtracking PCRE pattern by the time budget', async () => {
      const remotes = join(workspace, 'remotes');
      const evil = createSampleRepository(remotes, 'evil');
      try {
        evil.commit('main', { 'evil.txt': `${'a'.repeat(5_000)}!\n`.repeat(200) });
        const h = harness({ engine: new GitGrepEngine(baseEnv, spawner), grepTimeoutMs: 1_000 });
        const started = performance.now();
        const outcome = await grep(h, { repository: evil.fileUrl, pattern: '^(a|aa)+$' }).then(
          () => 'finished',
          (e: { busError?: BusError }) => e.busError?.code,
        );
        // PCRE either finishes, hits its own backtracking limit (reported as a bad pattern) or is stopped by the budget.
        assert.ok(['finished', 'timeout', 'invalid_input'].includes(String(outcome)), String(outcome));
        assert.ok(performance.now() - started < 8_000, 'bounded by the budget');
      } finally {
        evil.dispose();
      }
    });
  });
});

function locatorOf(repository: string) {
  return parseRepository(repository, { allowedHosts: ['127.0.0.1'], allowFileUrls: true });
}

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) assert.fail('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
