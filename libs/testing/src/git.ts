import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './processes.js';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Sextant Tests',
  GIT_AUTHOR_EMAIL: 'tests@sextant.invalid',
  GIT_COMMITTER_NAME: 'Sextant Tests',
  GIT_COMMITTER_EMAIL: 'tests@sextant.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  // A commit of thousands of files would start `git gc --auto` detached, still writing under .git when the test
  // removes its directory (ENOTEMPTY): fixtures are throwaway, so automatic housekeeping is off.
  GIT_CONFIG_COUNT: '2',
  GIT_CONFIG_KEY_0: 'gc.auto',
  GIT_CONFIG_VALUE_0: '0',
  GIT_CONFIG_KEY_1: 'maintenance.auto',
  GIT_CONFIG_VALUE_1: 'false',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Writes files (path → content; a `{ symlink }` value makes a symbolic link) under `dir`. */
export function writeTree(dir: string, files: Record<string, string | Buffer | { symlink: string }>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    rmSync(full, { force: true });
    if (typeof content === 'object' && 'symlink' in content) symlinkSync(content.symlink, full);
    else writeFileSync(full, content);
  }
}

/** A bare repository under `root`, with helpers to commit on a branch and tag, as a remote would be. */
export class BareRepository {
  readonly path: string;
  private readonly work: string;

  constructor(
    readonly root: string,
    readonly name: string,
  ) {
    this.path = join(root, `${name}.git`);
    this.work = mkdtempSync(join(tmpdir(), `sextant-work-${name}-`));
    git(root, 'init', '-q', '--bare', '--initial-branch=main', this.path);
    git(this.work, 'init', '-q', '--initial-branch=main');
    git(this.work, 'remote', 'add', 'origin', this.path);
  }

  get fileUrl(): string {
    return `file://${this.path}`;
  }

  /** Commits `files` on `branch` (created from the current HEAD when new) and pushes it. */
  commit(branch: string, files: Record<string, string | Buffer | { symlink: string }>, message = 'change'): string {
    const current = safeGit(this.work, 'symbolic-ref', '--short', 'HEAD').trim();
    if (branch !== current) {
      const exists = git(this.work, 'branch', '--list', branch).trim() !== '';
      git(this.work, 'checkout', '-q', ...(exists ? [] : ['-b']), branch);
    }
    writeTree(this.work, files);
    git(this.work, 'add', '-A');
    git(this.work, 'commit', '-q', '-m', message);
    git(this.work, 'push', '-q', 'origin', branch);
    return git(this.work, 'rev-parse', 'HEAD').trim();
  }

  tag(name: string, annotated = true): void {
    if (annotated) git(this.work, 'tag', '-a', name, '-m', name);
    else git(this.work, 'tag', name);
    git(this.work, 'push', '-q', 'origin', name);
  }

  dispose(): void {
    rmSync(this.work, { recursive: true, force: true });
  }
}

/** git, or '' when it fails (e.g. `symbolic-ref` in a detached state). */
function safeGit(cwd: string, ...args: string[]): string {
  try {
    return git(cwd, ...args);
  } catch {
    return '';
  }
}

/** `git daemon` serving every bare repository under `root` on 127.0.0.1 (git:// transport). */
export class GitDaemon {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  /** On `port` when given (a bench that keeps its registered git:// URLs across runs), else a free one. */
  static async start(root: string, port?: number): Promise<GitDaemon> {
    port ??= await freePort();
    const child = spawn(
      'git',
      [
        'daemon',
        '--reuseaddr',
        '--export-all',
        `--base-path=${root}`,
        '--listen=127.0.0.1',
        `--port=${port}`,
        '--informative-errors',
        root,
      ],
      { stdio: 'ignore', env: GIT_ENV },
    );
    const daemon = new GitDaemon(child, port);
    await waitForPort(port);
    return daemon;
  }

  url(name: string): string {
    return `git://127.0.0.1:${this.port}/${name}.git`;
  }

  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on port ${port}`);
}

/** A TCP server that accepts connections and never answers: a remote that hangs. */
export class HangingServer {
  private readonly sockets = new Set<Socket>();
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => undefined);
    });
  }

  static async start(): Promise<HangingServer> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return new HangingServer(server, (server.address() as { port: number }).port);
  }

  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server.close(r));
  }
}

/**
 * The repository most git-cache tests use: nested directories, a binary file
 * that contains the word TODO, a symlink, a vendored directory, a dot
 * directory, non-ASCII text; a `feature` branch and tags `v1.0` (annotated)
 * and `v0.9` (lightweight).
 */
export function createSampleRepository(root: string, name = 'sample'): BareRepository {
  const repo = new BareRepository(root, name);
  repo.commit(
    'main',
    {
      'README.md': '# Sample\nhello world\n',
      'src/main.ts': 'export function greet(name: string) {\n  // TODO: localize\n  return `hello ${name}`;\n}\n',
      'src/nested/deep/util.js': 'const answer = 42; // TODO answer\nmodule.exports = { answer };\n',
      'src/unicode.txt': 'ä TODO über TODO\n',
      'node_modules/dep/index.js': '// TODO vendored\n',
      'assets/blob.bin': Buffer.from([0, 1, 2, 0x54, 0x4f, 0x44, 0x4f, 0, 255, 10]),
      'docs/link.md': { symlink: '../README.md' },
      '.github/workflows/ci.yml': 'name: ci # TODO\n',
    },
    'initial',
  );
  repo.tag('v0.9', false);
  repo.tag('v1.0');
  repo.commit('feature', { 'feature.txt': 'feature TODO only on the branch\n' }, 'feature');
  repo.commit('main', { 'CHANGELOG.md': 'v1.1 TODO\n' }, 'after v1.0');
  return repo;
}
