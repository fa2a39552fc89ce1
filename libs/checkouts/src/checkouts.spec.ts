import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BareRepository, git, writeTree } from '@sextant/testing';
import { CloneCache } from './cache/clone-cache.js';
import { changedFiles } from './git/changes.js';
import { ProcessGitRunner } from './git/git-runner.js';
import { languageOf } from './files/languages.js';
import { directoriesOf, directoriesUnder, TreeWatcher } from './files/tree-watcher.js';
import { newWalkStats, walkFiles, type WalkedFile } from './files/walker.js';
import { LauncherSpawner } from './process/launcher.js';
import { parseRepository } from './repository/locator.js';

const spawner = new LauncherSpawner();
const runner = new ProcessGitRunner({
  protocols: ['file'],
  defaultTimeoutMs: 20_000,
  baseEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
  spawner,
});

async function collect(batches: AsyncGenerator<WalkedFile[]>): Promise<WalkedFile[]> {
  const files: WalkedFile[] = [];
  for await (const batch of batches) files.push(...batch);
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

describe('checkouts', () => {
  let base: string;
  before(() => {
    base = mkdtempSync(join(tmpdir(), 'sextant-checkouts-'));
  });
  after(async () => {
    await spawner.close();
    rmSync(base, { recursive: true, force: true });
  });

  describe('file walker', () => {
    let work: string;
    before(() => {
      work = join(base, 'workspace');
      mkdirSync(work);
      git(work, 'init', '-q', '--initial-branch=main');
      writeTree(work, {
        'src/a.ts': 'export const a = 1;\n',
        'src/deep/b.py': 'b = 2\n',
        'node_modules/dep/index.js': 'module.exports = 1;\n',
        'packages/x/vendor/lib.go': 'package lib\n',
        'big.txt': 'x'.repeat(2_000),
        'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]),
        'link.ts': { symlink: 'src/a.ts' },
        '.gitignore': 'ignored.log\n',
        Dockerfile: 'FROM scratch\n',
      });
      git(work, 'add', '-A');
      git(work, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
      writeTree(work, { 'untracked.ts': 'export const u = 0;\n', 'ignored.log': 'noise\n' });
    });

    it('lists tracked files once, with git blob ids, sizes and languages; skips vendored, binary, large and symlinked files', async () => {
      const stats = newWalkStats();
      const files = await collect(walkFiles(runner, work, { maxFileBytes: 1_000, includeUntracked: false, batchSize: 2 }, stats));
      assert.deepEqual(
        files.map((f) => [f.path, f.language]),
        [
          ['.gitignore', null],
          ['Dockerfile', 'dockerfile'],
          ['src/a.ts', 'typescript'],
          ['src/deep/b.py', 'python'],
        ],
      );
      const a = files.find((f) => f.path === 'src/a.ts')!;
      assert.equal(a.hash, execFileSync('git', ['hash-object', 'src/a.ts'], { cwd: work, encoding: 'utf8' }).trim());
      assert.equal(a.size, 20);
      assert.deepEqual(stats.skipped, { vendored: 2, too_large: 1, binary: 1, not_regular: 1, unreadable: 0 });
      assert.equal(stats.files, 4);
    });

    it('adds untracked files a local workspace does not ignore', async () => {
      const files = await collect(walkFiles(runner, work, { maxFileBytes: 1_000, includeUntracked: true }));
      assert.ok(files.some((f) => f.path === 'untracked.ts'));
      assert.ok(!files.some((f) => f.path === 'ignored.log'));
    });

    it('reads many files in a worker thread with the same results', async () => {
      const many = join(base, 'many');
      mkdirSync(many);
      git(many, 'init', '-q', '--initial-branch=main');
      const files: Record<string, string | Buffer> = { 'blob.bin': Buffer.from([1, 0, 2]) };
      for (let i = 0; i < 1_500; i++) files[`src/f${i}.js`] = `module.exports = ${i};\n`;
      // Larger than the reader's first buffer, and read just before small files that reuse it.
      files['src/big.js'] = `// ${'x'.repeat(150_000)}\n`;
      files['src/huge.js'] = `// ${'y'.repeat(250_000)}\n`;
      writeTree(many, files);
      git(many, 'add', '-A');
      const stats = newWalkStats();
      const walked = await collect(walkFiles(runner, many, { maxFileBytes: 200_000, includeUntracked: false, batchSize: 400 }, stats));
      assert.equal(walked.length, 1_501);
      assert.equal(stats.skipped.binary, 1);
      assert.equal(stats.skipped.too_large, 1);
      for (const path of ['src/f7.js', 'src/big.js', 'src/f0.js']) {
        const file = walked.find((f) => f.path === path)!;
        assert.equal(file.hash, execFileSync('git', ['hash-object', path], { cwd: many, encoding: 'utf8' }).trim(), path);
        assert.equal(file.language, 'javascript');
      }
    });

    it("does not read unchanged tracked files whose blob is known text: git's index vouches for their hash", async () => {
      const repo = join(base, 'vouched');
      mkdirSync(repo);
      git(repo, 'init', '-q', '--initial-branch=main');
      // Enough files that asking git's index pays (a handful are simply read).
      const many = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`f/${i}.ts`, `export const f${i} = ${i};\n`]));
      writeTree(repo, { ...many, 'a.ts': 'export const a = 1;\n', 'b.ts': 'export const b = 2;\n', 'c.bin': Buffer.from([0, 1]) });
      git(repo, 'add', '-A');
      git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
      const walk = async (knownText?: (blob: string) => boolean) => {
        const stats = newWalkStats();
        const files = await collect(walkFiles(runner, repo, { maxFileBytes: 1_000, includeUntracked: true, knownText }, stats));
        return { stats, hashes: Object.fromEntries(files.map((f) => [f.path, f.hash])) };
      };
      const first = await walk();
      assert.equal(first.stats.read, 73);
      const texts = new Set(Object.values(first.hashes));
      const second = await walk((blob) => texts.has(blob));
      assert.deepEqual([second.stats.read, second.hashes], [1, first.hashes], 'only the binary (not known text) is read again');

      // A changed file is read (git's index no longer vouches for it); so is a new one.
      writeTree(repo, { 'b.ts': 'export const b = 3;\n', 'new.ts': 'export const n = 0;\n' });
      const third = await walk((blob) => texts.has(blob));
      assert.equal(third.stats.read, 3);
      assert.equal(third.hashes['b.ts'], execFileSync('git', ['hash-object', 'b.ts'], { cwd: repo, encoding: 'utf8' }).trim());

      // Where attributes may convert content, the index is not trusted at all.
      writeTree(repo, { '.gitattributes': '*.ts text eol=crlf\n' });
      git(repo, 'add', '-A');
      git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'attributes');
      const fourth = await walk((blob) => texts.has(blob));
      assert.equal(fourth.stats.read, 75);
    });

    // Proves an incremental walk takes what git's index vouches for from `known` without an lstat (the known
    // mtime comes back, not the file's), and still finds what changed, was deleted or is new.
    it("takes files git's index vouches for at a known hash as known, without looking at them", async () => {
      const repo = join(base, 'index-first');
      mkdirSync(repo);
      git(repo, 'init', '-q', '--initial-branch=main');
      const tree = Object.fromEntries(Array.from({ length: 1_200 }, (_, i) => [`m/${i}.ts`, `export const m${i} = ${i};\n`]));
      writeTree(repo, tree);
      git(repo, 'add', '-A');
      git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
      const first = await collect(walkFiles(runner, repo, { maxFileBytes: 1_000, includeUntracked: true }));
      // What an earlier walk recorded, with an mtime no file has: a file not looked at keeps it.
      const entries = new Map(first.map((f) => [f.path, { size: f.size, hash: f.hash, mtimeMs: 1 }]));
      writeTree(repo, { 'm/1.ts': 'export const m1 = "changed";\n', 'new.ts': 'export const n = 0;\n' });
      rmSync(join(repo, 'm/2.ts'));
      const texts = new Set(first.map((f) => f.hash));
      const stats = newWalkStats();
      const incremental = {
        maxFileBytes: 1_000,
        includeUntracked: true,
        known: (path: string) => entries.get(path),
        knownText: (blob: string) => texts.has(blob),
      };
      const files = await collect(walkFiles(runner, repo, incremental, stats));
      const byPath = new Map(files.map((f) => [f.path, f]));
      assert.equal(byPath.get('m/0.ts')?.mtimeMs, 1, 'vouched for: not looked at');
      assert.equal(files.filter((f) => f.mtimeMs === 1).length, 1_198);
      assert.equal(byPath.get('m/1.ts')?.hash, execFileSync('git', ['hash-object', 'm/1.ts'], { cwd: repo, encoding: 'utf8' }).trim());
      assert.ok(byPath.has('new.ts'));
      assert.ok(!byPath.has('m/2.ts'));
      assert.equal(stats.skipped.unreadable, 1, 'the deleted file, still in the index, is looked at and found gone');
      assert.equal(stats.read, 2);

      // With onUnchanged, the files found as `known` has them are told by path, not yielded: only what changed comes.
      const told: string[] = [];
      const lean = newWalkStats();
      const changed = await collect(walkFiles(runner, repo, { ...incremental, onUnchanged: (path) => told.push(path) }, lean));
      assert.deepEqual(changed.map((f) => f.path).sort(), ['m/1.ts', 'new.ts']);
      assert.equal(told.length, 1_198);
      assert.equal(lean.unchanged, 1_198);
      assert.ok(told.includes('m/0.ts') && !told.includes('m/1.ts') && !told.includes('m/2.ts'));
    });

    it('knows languages by extension and by name', () => {
      assert.deepEqual(['a.TSX', 'x/y.go', 'Makefile', 'README', '.env', 'lib.rs', 'a.min.js'].map(languageOf), [
        'tsx',
        'go',
        'make',
        null,
        null,
        'rust',
        'javascript',
      ]);
    });

    // Proves symlinks are lstat'ed, never followed: a loop (a → b → a) and a link to its own parent neither hang nor crash the walk.
    it('walks a workspace with symlink loops, listing its regular files and skipping the links', async () => {
      const loops = join(base, 'loops');
      mkdirSync(loops);
      git(loops, 'init', '-q', '--initial-branch=main');
      writeTree(loops, {
        'src/real.ts': 'export const r = 1;\n',
        'src/a': { symlink: 'b' },
        'src/b': { symlink: 'a' },
        'src/up': { symlink: '..' },
      });
      git(loops, 'add', 'src/a', 'src/b'); // a tracked loop, and an untracked link to its own parent
      const stats = newWalkStats();
      const files = await collect(walkFiles(runner, loops, { maxFileBytes: 1_000, includeUntracked: true }, stats));
      assert.deepEqual(
        files.map((f) => f.path),
        ['src/real.ts'],
      );
      assert.equal(stats.listed, 4);
      assert.equal(stats.skipped.not_regular, 3);
    });

    // Proves a file deleted after git listed it (before its lstat) or after its lstat (before its read) is skipped as unreadable, not fatal.
    it('skips files that disappear during a scan', async () => {
      const vanishing = join(base, 'vanishing');
      mkdirSync(vanishing);
      git(vanishing, 'init', '-q', '--initial-branch=main');
      writeTree(vanishing, { 'keep.ts': 'k\n', 'listed-then-gone.ts': 'l\n', 'statted-then-gone.ts': 's\n' });
      // Deletes one file as soon as git has listed it.
      const deletingRunner = {
        run: async (args: readonly string[], options?: { cwd?: string; timeoutMs?: number }) => {
          const out = await runner.run(args, options);
          if (args[0] === 'ls-files') rmSync(join(vanishing, 'listed-then-gone.ts'));
          return out;
        },
      };
      const skipped: string[] = [];
      const stats = newWalkStats();
      const files = await collect(
        walkFiles(
          deletingRunner,
          vanishing,
          {
            maxFileBytes: 1_000,
            includeUntracked: true,
            // `known` is asked right after a file's lstat and before its read: delete the file there.
            known: (path) => void (path === 'statted-then-gone.ts' && rmSync(join(vanishing, path))),
            onSkipped: (file) => skipped.push(`${file.path}:${file.skipped}`),
          },
          stats,
        ),
      );
      assert.deepEqual(
        files.map((f) => f.path),
        ['keep.ts'],
      );
      assert.equal(stats.skipped.unreadable, 2);
      assert.deepEqual(skipped, ['statted-then-gone.ts:unreadable']);
    });

    it('walks only the given paths git lists, as a whole walk would, when a watcher named them', async () => {
      const asked = ['src/a.ts', 'untracked.ts', 'ignored.log', 'nope.ts', 'node_modules/dep/index.js'];
      const walk = (listedBefore?: (path: string) => boolean) =>
        collect(
          walkFiles(runner, work, { maxFileBytes: 1_000, includeUntracked: true, paths: asked, pathsListedOnly: true, listedBefore }),
        );
      assert.deepEqual(
        (await walk()).map((f) => f.path),
        ['src/a.ts', 'untracked.ts'],
        'not the ignored file, the missing one or the vendored one',
      );
      // A path listed before is not asked about: git would have left out ignored.log.
      assert.deepEqual(
        (await walk((path) => path === 'ignored.log')).map((f) => f.path),
        ['ignored.log', 'src/a.ts', 'untracked.ts'],
      );
    });
  });

  it('lists what changed between two commits, a rename as delete + add; undefined for a commit it does not have', async () => {
    const repo = join(base, 'history');
    mkdirSync(repo);
    const commit = (files: Record<string, string>, remove: string[] = []) => {
      writeTree(repo, files);
      for (const path of remove) rmSync(join(repo, path));
      git(repo, 'add', '-A');
      git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'c');
      return git(repo, 'rev-parse', 'HEAD').trim();
    };
    git(repo, 'init', '-q', '--initial-branch=main');
    const from = commit({ 'keep.ts': 'k\n', 'edit.ts': 'v1\n', 'gone.ts': 'g\n', 'old-name.ts': 'same\n', 'dir/x y.ts': 'x\n' });
    const to = commit({ 'edit.ts': 'v2\n', 'added.ts': 'new\n', 'new-name.ts': 'same\n', 'dir/x y.ts': 'x2\n' }, [
      'gone.ts',
      'old-name.ts',
    ]);
    const changes = await changedFiles(runner, repo, from, to);
    assert.deepEqual(
      changes?.sort((a, b) => a.path.localeCompare(b.path)),
      [
        { path: 'added.ts', status: 'added' },
        { path: 'dir/x y.ts', status: 'modified' },
        { path: 'edit.ts', status: 'modified' },
        { path: 'gone.ts', status: 'deleted' },
        { path: 'new-name.ts', status: 'added' },
        { path: 'old-name.ts', status: 'deleted' },
      ],
    );
    assert.equal(await changedFiles(runner, repo, 'f'.repeat(40), to), undefined);
  });

  describe('the tree watcher', () => {
    let tree: string;
    before(() => {
      tree = join(base, 'watched');
      writeTree(tree, { 'a.ts': '1', 'src/b.ts': '2', 'src/deep/c.ts': '3', '.git/HEAD': 'ref: refs/heads/main\n', 'skipped/d.ts': '4' });
    });

    /** What the watcher names once `expected` is among it (events arrive a moment after the change). */
    async function changes(watcher: TreeWatcher, expected: string[]): Promise<string[]> {
      const seen = new Set<string>();
      for (let i = 0; i < 200 && !expected.every((p) => seen.has(p)); i++) {
        const taken = watcher.take();
        if ('missed' in taken) assert.fail(taken.missed);
        for (const path of taken.paths) seen.add(path);
        await new Promise((r) => setTimeout(r, 10));
      }
      return [...seen].sort();
    }

    it('names the paths changed in the directories it watches, a new directory by its name, and nothing in .git', async () => {
      const dirs = directoriesOf(['a.ts', 'src/b.ts', 'src/deep/c.ts']);
      assert.deepEqual([...dirs].sort(), ['', 'src', 'src/deep']);
      const watcher = new TreeWatcher(tree, dirs);
      try {
        assert.deepEqual(watcher.take(), { paths: [] });
        writeFileSync(join(tree, 'src/deep/c.ts'), 'changed');
        writeFileSync(join(tree, '.git/HEAD'), 'ref: refs/heads/other\n');
        writeFileSync(join(tree, 'skipped/d.ts'), 'not watched');
        unlinkSync(join(tree, 'src/b.ts'));
        mkdirSync(join(tree, 'src/fresh'));
        writeFileSync(join(tree, 'src/fresh/e.ts'), 'inside a directory nobody watches yet');
        renameSync(join(tree, 'a.ts'), join(tree, 'src/a2.ts'));
        assert.deepEqual(await changes(watcher, ['a.ts', 'src/a2.ts', 'src/b.ts', 'src/deep/c.ts', 'src/fresh']), [
          'a.ts',
          'src/a2.ts',
          'src/b.ts',
          'src/deep/c.ts',
          'src/fresh',
        ]);
        assert.deepEqual(watcher.take(), { paths: [] }, 'a take starts afresh');
      } finally {
        watcher.close();
      }
    });

    it('is of no more use once a watched directory is made, removed or moved, or too many paths changed, and keeps saying so', async () => {
      // A directory given that is not there is not watched; once it is made, the watcher is of no more use (nothing
      // watches inside it), as when a watched directory is removed and made again.
      for (const [label, change] of [
        ['made', () => mkdirSync(join(tree, 'no-such-directory'))],
        ['removed and made again', () => (rmSync(join(tree, 'src/deep'), { recursive: true }), mkdirSync(join(tree, 'src/deep')))],
      ] as const) {
        const path = label === 'made' ? 'no-such-directory' : 'src/deep';
        const watcher = new TreeWatcher(tree, new Set(['', 'src', 'src/deep', 'no-such-directory']));
        try {
          assert.equal(watcher.missed, undefined);
          change();
          for (let i = 0; i < 200 && !watcher.missed; i++) await new Promise((r) => setTimeout(r, 10));
          assert.deepEqual(watcher.take(), { missed: `the watched directory ${path} was removed, moved or made` }, label);
        } finally {
          watcher.close();
        }
      }
      assert.deepEqual([...directoriesUnder(tree, ['skipped'], 100)!].sort(), ['', 'no-such-directory', 'src', 'src/deep', 'src/fresh']);
      assert.equal(directoriesUnder(tree, ['skipped'], 3), undefined, 'past the maximum');
      const small = new TreeWatcher(tree, new Set(['src']), 2);
      try {
        for (const name of ['x1', 'x2', 'x3']) writeFileSync(join(tree, 'src', name), name);
        for (let i = 0; i < 200 && !small.missed; i++) await new Promise((r) => setTimeout(r, 10));
        assert.deepEqual(small.take(), { missed: 'more than 2 paths changed' });
        writeFileSync(join(tree, 'src', 'x4'), 'after');
        assert.deepEqual(small.take(), { missed: 'more than 2 paths changed' });
      } finally {
        small.close();
      }
    });
  });

  describe('the persistent clone cache', () => {
    let remote: BareRepository;
    before(() => {
      mkdirSync(join(base, 'remotes'));
      remote = new BareRepository(join(base, 'remotes'), 'moving');
      remote.commit('main', { 'keep.ts': 'k\n' });
    });
    after(() => remote?.dispose());

    const cacheAt = (root: string, persistent: boolean) =>
      new CloneCache({
        root,
        maxBytes: 1e9,
        refreshAfterMs: 86_400_000,
        evictAfterMs: 7 * 86_400_000,
        cloneTimeoutMs: 20_000,
        git: runner,
        persistent,
      });

    it('keeps persistent clones across a restart and takes them up instead of cloning again', async () => {
      const root = join(base, 'persistent');
      const locator = parseRepository(remote.fileUrl, { allowedHosts: [], allowFileUrls: true });
      const one = cacheAt(root, true);
      await one.start();
      const dir = await one.withCheckout(locator, undefined, async (c) => c.dir);
      assert.equal(one.stats().clones, 1);
      await one.stop();
      assert.ok(existsSync(dir), 'a persistent clone outlives its process');

      const two = cacheAt(root, true);
      await two.start();
      assert.equal(two.directoryFor(locator), dir, 'stable names');
      const commit = await two.withCheckout(locator, undefined, async (c) => c.commit);
      assert.deepEqual([two.stats().clones, two.stats().takenUp], [0, 1]);
      assert.equal(commit, execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim());
      await two.stop();

      // A directory without its record (a crash mid-clone of an older version) is cloned anew.
      rmSync(join(dir, '.git', 'sextant-checkout.json'));
      const three = cacheAt(root, true);
      await three.start();
      await three.withCheckout(locator, undefined, async () => undefined);
      assert.deepEqual([three.stats().clones, three.stats().takenUp], [1, 0]);
      await three.stop();

      // Pinned to the commit it is at: no fetch, however eager the refresh policy (an indexing job's batches).
      const pinned = new CloneCache({
        root,
        maxBytes: 1e9,
        refreshAfterMs: 0,
        evictAfterMs: 7 * 86_400_000,
        cloneTimeoutMs: 20_000,
        git: runner,
        persistent: true,
      });
      await pinned.start();
      const at = await pinned.withCheckout(locator, undefined, async (c) => c.commit);
      const before = pinned.stats().refreshes;
      const again = await pinned.withCheckout(locator, undefined, async (c) => c.commit, { current: at });
      assert.deepEqual([again, pinned.stats().refreshes], [at, before]);
      remote.commit('main', { 'moved.ts': 'm\n' });
      const moved = await pinned.withCheckout(locator, undefined, async (c) => c.commit, { current: 'another-commit' });
      assert.notEqual(moved, at, 'another commit asked for: refreshed');
      assert.equal(pinned.stats().refreshes, before + 1);
      await pinned.stop();

      const perProcess = cacheAt(join(base, 'per-process'), false);
      await perProcess.start();
      const own = await perProcess.withCheckout(locator, undefined, async (c) => c.dir);
      assert.notEqual(perProcess.directoryFor(locator), cacheAt(join(base, 'per-process'), false).directoryFor(locator), 'seeded names');
      await perProcess.stop();
      assert.ok(!existsSync(own), 'per-process clones go at shutdown');
    });

    it('removes at start an unfinished clone whose process is gone, whatever its age, and keeps a live one', async () => {
      const root = join(base, 'leftovers');
      mkdirSync(root, { recursive: true });
      const host = hostname().replace(/[^A-Za-z0-9-]/g, '_');
      // A process that has ended: its pid runs no more.
      const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
      // A thread of this process (Node runs several): its id is not a process's.
      const threadId = readdirSync('/proc/self/task').find((t) => t !== String(process.pid))!;
      const later = spawn('sleep', ['30'], { stdio: 'ignore' });
      const leftovers = {
        deadProcess: `.tmp-${host}.${gone}.abc123-1`,
        // The pid of this very process with another tag: the process before a container's restart (pid 1 again).
        samePidEarlierProcess: `.tmp-${host}.${process.pid}.def456-1`,
        liveProcess: `.tmp-${host}.${process.ppid}.fed789-1`,
        otherHost: `.tmp-elsewhere.${gone}.aaa111-1`,
        // A dead process's pid that is now the id of a thread of a live one (in a restarted container, ids start over).
        nowAThread: `.tmp-${host}.${threadId}.bbb222-1`,
        // A dead process's pid that a process started since has taken.
        takenSince: `.tmp-${host}.${later.pid}.ccc333-1`,
      };
      for (const name of Object.values(leftovers)) {
        mkdirSync(join(root, name, '.git'), { recursive: true });
        writeFileSync(join(root, name, 'partial.pack'), 'x'.repeat(1000));
      }
      const minuteAgo = new Date(Date.now() - 60_000);
      utimesSync(join(root, leftovers.takenSince), minuteAgo, minuteAgo);
      const cache = cacheAt(root, false);
      await cache.start();
      try {
        assert.ok(!existsSync(join(root, leftovers.nowAThread)), 'a pid that is now a thread of another process: removed');
        assert.ok(!existsSync(join(root, leftovers.takenSince)), 'a pid a process started since the clone was written has: removed');
        assert.ok(!existsSync(join(root, leftovers.deadProcess)), 'a dead process: removed although fresh');
        assert.ok(!existsSync(join(root, leftovers.samePidEarlierProcess)), 'an earlier process with this pid: removed');
        assert.ok(existsSync(join(root, leftovers.liveProcess)), 'a live process: kept');
        assert.ok(existsSync(join(root, leftovers.otherHost)), "another host's process, under an hour old: kept");
      } finally {
        later.kill();
        await cache.stop();
      }
    });

    it('counts the clones an earlier process left in its size cap from the start, evicting the least recently used', async () => {
      const root = join(base, 'capped');
      const others = ['one', 'two', 'three'].map((name) => {
        const repository = new BareRepository(join(base, 'remotes'), `capped-${name}`);
        repository.commit('main', { [`${name}.ts`]: `${name}\n`.repeat(2000) });
        return repository;
      });
      try {
        const locators = others.map((r) => parseRepository(r.fileUrl, { allowedHosts: [], allowFileUrls: true }));
        const first = cacheAt(root, true);
        await first.start();
        const dirs: string[] = [];
        for (const locator of locators) dirs.push(await first.withCheckout(locator, undefined, async (c) => c.dir));
        const each = first.stats().bytes / 3;
        await first.stop();
        // The oldest use first: `one`, then `two`, then `three`.
        dirs.forEach((dir, i) => utimesSync(dir, new Date(Date.now() - (3 - i) * 60_000), new Date(Date.now() - (3 - i) * 60_000)));

        const second = new CloneCache({
          root,
          maxBytes: Math.floor(each * 2.5),
          refreshAfterMs: 86_400_000,
          evictAfterMs: 7 * 86_400_000,
          cloneTimeoutMs: 20_000,
          git: runner,
          persistent: true,
        });
        await second.start();
        // Before any call: two taken up and counted, the least recently used evicted from disk.
        assert.deepEqual([second.stats().entries, second.stats().takenUp, second.stats().evictions], [2, 3, 1]);
        assert.ok(second.stats().bytes <= Math.floor(each * 2.5));
        assert.deepEqual(
          dirs.map((dir) => existsSync(dir)),
          [false, true, true],
        );
        // A taken-up clone answers its repository without cloning; the evicted one is cloned again.
        assert.equal(await second.withCheckout(locators[2], undefined, async (c) => c.dir), dirs[2]);
        assert.equal(second.stats().clones, 0);
        await second.withCheckout(locators[0], undefined, async () => undefined);
        assert.equal(second.stats().clones, 1);
        await second.stop();
      } finally {
        for (const repository of others) repository.dispose();
      }
    });
  });
});
