import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BusError, OpenFile } from '@sextant/contracts';
import { FileReader, type FileRequest } from './file-reader.js';

const SECRET = 'TOP-SECRET-OUTSIDE-THE-REPOSITORY';

async function failure(promise: Promise<unknown>): Promise<BusError> {
  try {
    await promise;
  } catch (error) {
    const busError = (error as { busError?: BusError }).busError;
    assert.ok(busError, `expected a ServiceError, got ${String(error)}`);
    return busError;
  }
  assert.fail('expected a failure');
}

/** What the service does for a directory of the server: `<CODEBASE_ROOT>/<repo>` (or REPO_ROOT), read as a working tree. */
async function openAt(reader: FileReader, request: Omit<FileRequest, 'commit'>) {
  return reader.open(reader.directoryOf(request.repo), { ...request, commit: null });
}

describe('open_file: FileReader', () => {
  let base: string;
  let root: string;
  let reader: FileReader;
  const open = (repo: string, path: string, extra: Partial<OpenFile.Request> = {}) => openAt(reader, { repo, path, ...extra });

  before(() => {
    base = mkdtempSync(join(tmpdir(), 'sextant-files-'));
    root = join(base, 'codebase');
    const alpha = join(root, 'alpha');
    mkdirSync(join(alpha, 'src', 'deep'), { recursive: true });
    mkdirSync(join(root, 'alphabeta'), { recursive: true });
    mkdirSync(join(base, 'outside'));
    writeFileSync(join(base, 'outside', 'secret.txt'), SECRET);
    writeFileSync(join(base, 'secret.txt'), SECRET);
    writeFileSync(join(root, 'secret.txt'), SECRET);
    writeFileSync(join(root, 'alphabeta', 'secret.txt'), SECRET);
    writeFileSync(join(alpha, 'README.md'), 'line 1\nline 2\nline 3\n');
    writeFileSync(join(alpha, 'src', 'deep', 'code.ts'), 'export const x = 1;\n');
    writeFileSync(join(alpha, 'crlf.txt'), 'one\r\ntwo\r\nthree');
    writeFileSync(join(alpha, 'big.txt'), Array.from({ length: 10_000 }, (_, i) => `line ${i + 1}`).join('\n'));
    writeFileSync(join(alpha, 'blob.bin'), Buffer.from([0x50, 0x4b, 0, 0, 1, 2]));
    writeFileSync(join(alpha, 'file:'), 'a file whose name has a colon');
    symlinkSync('README.md', join(alpha, 'inside-link'));
    symlinkSync(join(base, 'outside', 'secret.txt'), join(alpha, 'escape-link'));
    symlinkSync('../../secret.txt', join(alpha, 'relative-escape'));
    symlinkSync(join(base, 'outside'), join(alpha, 'outside-dir'));
    symlinkSync('../alphabeta', join(alpha, 'sibling'));
    symlinkSync('/etc/passwd', join(alpha, 'passwd'));
    mkdirSync(join(alpha, '.git'));
    writeFileSync(join(alpha, '.git', 'config'), `[remote "origin"]\n  url = https://x:${SECRET}@example.com/r.git\n`);
    symlinkSync('.git/config', join(alpha, 'git-config-link'));
    mkdirSync(join(alpha, 'vendor', 'sub'), { recursive: true });
    writeFileSync(join(alpha, 'vendor', 'sub', '.GIT'), `gitdir: ${SECRET}`);
    execFileSync('mkfifo', [join(alpha, 'fifo')]);
    reader = new FileReader({ codebaseRoot: root, maxLines: 100, maxBytes: 64 * 1024 });
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  const escapes: Array<[string, string]> = [
    ['alpha', '../secret.txt'],
    ['alpha', '../../secret.txt'],
    ['alpha', 'src/../../secret.txt'],
    ['alpha', 'src/deep/../../../secret.txt'],
    ['alpha', './../secret.txt'],
    ['alpha', 'src/..'],
    ['alpha', '..'],
    ['alpha', '../alphabeta/secret.txt'],
    ['alpha', '/etc/passwd'],
    ['alpha', join(tmpdir(), 'secret.txt')],
    ['alpha', '//etc/passwd'],
    ['alpha', '%2e%2e/secret.txt'],
    ['alpha', '%2e%2e%2fsecret.txt'],
    ['alpha', '..%2fsecret.txt'],
    ['alpha', '%2E%2E%2F%2E%2E%2Fsecret.txt'],
    ['alpha', '%252e%252e%252fsecret.txt'],
    ['alpha', '%25252e%25252e%25252fsecret.txt'],
    ['alpha', '%2fetc%2fpasswd'],
    ['alpha', '..\\secret.txt'],
    ['alpha', '..%5csecret.txt'],
    ['alpha', 'src\\..\\..\\secret.txt'],
    ['alpha', 'C:\\Windows\\win.ini'],
    ['alpha', 'C:/Windows/win.ini'],
    ['alpha', '\\\\server\\share\\secret.txt'],
    ['alpha', 'README.md\u0000.png'],
    ['alpha', 'README.md%00.png'],
    ['alpha', 'escape-link'],
    ['alpha', 'relative-escape'],
    ['alpha', 'passwd'],
    ['alpha', 'outside-dir/secret.txt'],
    ['alpha', 'sibling/secret.txt'],
    ['..', 'secret.txt'],
    ['.', 'secret.txt'],
    ['', 'secret.txt'],
    ['alpha/..', 'secret.txt'],
    ['../codebase', 'secret.txt'],
    ['a/b', 'secret.txt'],
    ['%2e%2e', 'secret.txt'],
    ['alpha%2f..', 'secret.txt'],
    ['alpha\\..', 'secret.txt'],
    ['alpha\u0000', 'README.md'],
    ['alpha', '.git/config'],
    ['alpha', '.GIT/config'],
    ['alpha', '.Git/config'],
    ['alpha', 'src/../.git/config'],
    ['alpha', '%2egit/config'],
    ['alpha', '.git%2fconfig'],
    ['alpha', 'git-config-link'],
    ['alpha', 'vendor/sub/.GIT'],
    ['alpha', '.git'],
  ];

  for (const [repo, path] of escapes) {
    it(`refuses repo=${JSON.stringify(repo)} path=${JSON.stringify(path)} with forbidden, reading nothing outside`, async () => {
      const error = await failure(open(repo, path));
      assert.equal(error.code, 'forbidden', error.message);
      assert.doesNotMatch(JSON.stringify(error), new RegExp(SECRET));
      assert.ok(!error.message.includes(base), 'the server path is not disclosed');
    });
  }

  it('has at least 30 distinct escape attempts', () => assert.ok(new Set(escapes.map((e) => e.join('|'))).size >= 30));

  it('reads a whole small file and a line window', async () => {
    const whole = await open('alpha', 'README.md');
    assert.deepEqual(whole, {
      repo: 'alpha',
      path: 'README.md',
      commit: null,
      startLine: 1,
      endLine: 3,
      totalLines: 3,
      content: 'line 1\nline 2\nline 3',
      truncated: false,
      next: null,
    });
    const window = await open('alpha', 'README.md', { startLine: 2, endLine: 2 });
    assert.equal(window.content, 'line 2');
    assert.equal(window.endLine, 2);
    assert.equal((await open('alpha', 'README.md', { startLine: 2, endLine: 50 })).endLine, 3);
  });

  it('strips CRLF line ends and reads nested paths, names with colons and symlinks inside the repository', async () => {
    assert.equal((await open('alpha', 'crlf.txt')).content, 'one\ntwo\nthree');
    assert.equal((await open('alpha', 'src/deep/code.ts')).content, 'export const x = 1;');
    assert.equal((await open('alpha', './src/deep/code.ts')).content, 'export const x = 1;');
    assert.equal((await open('alpha', 'file:')).content, 'a file whose name has a colon');
    assert.equal((await open('alpha', 'inside-link')).totalLines, 3);
  });

  it('caps the lines returned and says the result was truncated', async () => {
    const capped = await open('alpha', 'big.txt');
    assert.equal(capped.totalLines, 10_000);
    assert.equal(capped.endLine, 100);
    assert.equal(capped.truncated, true);
    const wide = await open('alpha', 'big.txt', { startLine: 9_950, endLine: 10_500 });
    assert.equal(wide.startLine, 9_950);
    assert.equal(wide.endLine, 10_000);
    assert.equal(wide.truncated, false);
    const tooMany = await open('alpha', 'big.txt', { startLine: 1, endLine: 5_000 });
    assert.equal(tooMany.endLine, 100);
    assert.equal(tooMany.truncated, true);
    const bytes = await openAt(new FileReader({ codebaseRoot: root, maxLines: 10_000, maxBytes: 2_000 }), {
      repo: 'alpha',
      path: 'big.txt',
    });
    assert.ok(Buffer.byteLength(bytes.content) <= 2_000);
    assert.equal(bytes.truncated, true);
  });

  it('answers invalid_input for binaries, directories and a start past the end; not_found for missing files and repositories', async () => {
    assert.equal((await failure(open('alpha', 'blob.bin'))).code, 'invalid_input');
    assert.equal((await failure(open('alpha', 'src'))).code, 'invalid_input');
    const past = await failure(open('alpha', 'README.md', { startLine: 9 }));
    assert.equal(past.code, 'invalid_input');
    assert.match(past.message, /3 lines/);
    assert.equal((await failure(open('alpha', 'nope.txt'))).code, 'not_found');
    assert.equal((await failure(open('gamma', 'README.md'))).code, 'not_found');
  });

  it('refuses a FIFO with invalid_input at once, and it blocks nothing else', async () => {
    // Before the fix, opening a FIFO waited in the thread pool for a writer: four such calls took
    // every libuv thread and every later file read hung.
    const within = <T>(promise: Promise<T>, ms: number) =>
      Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);
    const errors = await within(Promise.all(Array.from({ length: 8 }, () => failure(open('alpha', 'fifo')))), 5_000);
    for (const error of errors) {
      assert.equal(error.code, 'invalid_input');
      assert.match(error.message, /not a regular file/);
    }
    assert.equal((await within(open('alpha', 'README.md'), 5_000)).totalLines, 3);
  });

  it('refuses a hard link to a file outside the repository in a directory of the server, and serves it in its own clone', async () => {
    // A local user places a hard link (same inode as a file outside) inside a checkout: no path check sees it.
    linkSync(join(base, 'outside', 'secret.txt'), join(root, 'alpha', 'hard-link.txt'));
    try {
      const error = await failure(open('alpha', 'hard-link.txt'));
      assert.equal(error.code, 'forbidden');
      assert.match(error.message, /2 hard links/);
      assert.ok(!JSON.stringify(error).includes(SECRET));
      // A clone git-cache made itself (openIn): git wrote its files, a link count is no sign of a planted link.
      const answer = await reader.openIn(join(root, 'alpha'), { repo: 'alpha', path: 'hard-link.txt', commit: null });
      assert.equal(answer.content, SECRET);
    } finally {
      rmSync(join(root, 'alpha', 'hard-link.txt'));
    }
  });

  it('answers the repository root and directories with invalid_input, not as an escape', async () => {
    for (const path of ['.', './', 'src', 'src/deep/']) {
      const error = await failure(open('alpha', path));
      assert.equal(error.code, 'invalid_input', path);
      assert.match(error.message, /directory/, path);
    }
  });

  it('returns the start of a line longer than the byte cap, cut on a character boundary', async () => {
    const dir = join(root, 'wide');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'minified.js'), 'é'.repeat(2_500_000)); // 5 MB, one line
    const reader = new FileReader({ codebaseRoot: root, maxLines: 100, maxBytes: 4_001 });
    const result = await openAt(reader, { repo: 'wide', path: 'minified.js' });
    assert.equal(result.totalLines, 1);
    assert.equal(result.truncated, true);
    assert.equal(result.endLine, 1);
    assert.equal(result.content, 'é'.repeat(2_000));
    // A later line over the cap ends the window before it, whole lines only.
    writeFileSync(join(dir, 'mixed.txt'), `short\n${'x'.repeat(10_000)}\nlast\n`);
    const mixed = await openAt(reader, { repo: 'wide', path: 'mixed.txt' });
    assert.deepEqual([mixed.content, mixed.endLine, mixed.totalLines, mixed.truncated], ['short', 1, 3, true]);
  });

  it('counts lines across read chunks exactly', async () => {
    const dir = join(root, 'long');
    mkdirSync(dir, { recursive: true });
    const lines = Array.from({ length: 200_000 }, (_, i) => `${i + 1} ${'ab'.repeat(i % 7)}`);
    writeFileSync(join(dir, 'many.txt'), `${lines.join('\n')}\n`);
    const reader = new FileReader({ codebaseRoot: root, maxLines: 5, maxBytes: 65_536 });
    const result = await openAt(reader, { repo: 'long', path: 'many.txt', startLine: 150_000 });
    assert.deepEqual(result.content.split('\n'), lines.slice(149_999, 150_004));
    assert.equal(result.totalLines, 200_000);
    writeFileSync(join(dir, 'empty.txt'), '');
    assert.deepEqual([(await openAt(reader, { repo: 'long', path: 'empty.txt' })).totalLines], [0]);
  });

  it('names the repository as the caller did in not_found', async () => {
    const error = await failure(
      reader.openIn(join(root, 'alpha'), { repo: 'https://example.com/o/r.git', path: 'nope.txt', commit: null }),
    );
    assert.equal(error.code, 'not_found');
    assert.equal(error.message, 'File "nope.txt" was not found in https://example.com/o/r.git.');
  });

  it('in REPO_ROOT mode reads from that root whatever repo says, and echoes repo', async () => {
    const single = new FileReader({ codebaseRoot: '/nonexistent', repoRoot: join(root, 'alpha'), maxLines: 100, maxBytes: 65536 });
    const result = await openAt(single, { repo: 'anything', path: 'README.md' });
    assert.equal(result.repo, 'anything');
    assert.equal(result.totalLines, 3);
    assert.equal((await failure(openAt(single, { repo: 'anything', path: '../secret.txt' }))).code, 'forbidden');
    assert.equal((await failure(openAt(single, { repo: 'anything', path: 'escape-link' }))).code, 'forbidden');
  });
});
