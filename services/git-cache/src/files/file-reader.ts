import { constants } from 'node:fs';
import { lstat, open, realpath, type FileHandle } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { OpenFile } from '@sextant/contracts';
import { ServiceError } from '@sextant/work';

export interface FileReaderOptions {
  /** One checkout per repository: `<codebaseRoot>/<repo>`. */
  codebaseRoot: string;
  /** Single-repository compatibility mode: every `repo` means this directory. */
  repoRoot?: string | undefined;
  maxLines: number;
  /** Cap on the bytes of content returned. */
  maxBytes: number;
}

const BINARY_SNIFF_BYTES = 8192;
const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * Reads files for `open_file` without ever reading a byte outside the
 * repository or inside its `.git`. Four layers: the names are checked
 * lexically (one plain repository segment; a relative path with no `..`, no
 * `.git`, no backslash, no NUL, also after percent-decoding); the resolved
 * real path (symlinks followed) must lie inside the repository's real path
 * and outside its `.git`; only a regular file is opened (a FIFO, socket or
 * device would block or have side effects), non-blocking and without
 * following a symlink swapped in since (`O_NOFOLLOW`); and the opened
 * descriptor is checked again with `fstat`.
 */
export class FileReader {
  constructor(private readonly options: FileReaderOptions) {}

  get singleRepository(): boolean {
    return this.options.repoRoot !== undefined;
  }

  /**
   * A directory of the server (CODEBASE_ROOT, REPO_ROOT, a registered workspace's working tree) that answers as
   * `repo`: files with more than one hard link are refused.
   */
  async open(directory: string, request: FileRequest): Promise<OpenFile.Response> {
    return this.read(directory, request, false);
  }

  /** The directory `open` reads `repo` from: REPO_ROOT, or `<CODEBASE_ROOT>/<repo>`. */
  directoryOf(repo: string): string {
    if (this.options.repoRoot !== undefined) return this.options.repoRoot;
    checkRepoName(repo);
    return join(this.options.codebaseRoot, repo);
  }

  /** Reads from the checkout at `directory` (a clone the cache made) as it is now, at `request.commit`. */
  openIn(directory: string, request: FileRequest): Promise<OpenFile.Response> {
    return this.read(directory, request, true);
  }

  /**
   * A file's content as git stores it at `request.commit` (a blob read from a clone's object database): nothing of
   * the file system is involved, so only the path's spelling is checked.
   */
  openBlob(content: Buffer, request: FileRequest): Promise<OpenFile.Response> {
    checkRelativePath(request.path);
    if (content.subarray(0, BINARY_SNIFF_BYTES).includes(0)) throw binary(request.path);
    return this.window(bufferSource(content), request);
  }

  /** The path as it is spelled for `open`, checked (no `..`, no `.git`, not absolute): for a caller that reads it itself. */
  checkPath(path: string): void {
    checkRelativePath(path);
  }

  /**
   * `ownClone`: the directory is a checkout git made for us, whose files git wrote. Anywhere else a second hard
   * link may be someone's link to a file outside the repository (`ln /etc/passwd notes.txt`), which no path check
   * can see: such a file is refused.
   */
  private async read(repositoryDir: string, request: FileRequest, ownClone: boolean): Promise<OpenFile.Response> {
    checkRelativePath(request.path);
    const root = await realpath(repositoryDir).catch(() => {
      throw repositoryMissing(request.repo);
    });
    const target = await realpath(join(root, request.path)).catch(() => {
      throw notFound(request);
    });
    if (target === root) throw ServiceError.invalid({ path: `"${request.path}" is the repository's root directory; name a file` });
    if (!target.startsWith(root + sep)) throw escape(request.path);
    // A symlink inside the repository may still lead into its .git.
    if (hasGitSegment(target.slice(root.length + 1))) throw gitInternals(request.path);
    const info = await lstat(target).catch(() => {
      throw notFound(request);
    });
    if (!info.isFile()) throw notRegular(request.path, info);

    const handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
      (error: NodeJS.ErrnoException) => {
        throw error.code === 'ENOENT' ? notFound(request) : escape(request.path);
      },
    );
    try {
      const opened = await handle.stat();
      if (!opened.isFile()) throw notRegular(request.path, opened); // swapped since the lstat
      if (!ownClone && opened.nlink > 1) {
        throw ServiceError.of(
          'forbidden',
          `"${request.path}" has ${opened.nlink} hard links; a file linked from elsewhere is not served from a directory of the server.`,
          { path: request.path },
        );
      }
      const sniff = Buffer.alloc(Math.min(BINARY_SNIFF_BYTES, opened.size));
      await handle.read(sniff, 0, sniff.length, 0);
      if (sniff.includes(0)) throw binary(request.path);
      return await this.window(fileSource(handle), request);
    } finally {
      await handle.close();
    }
  }

  /**
   * Reads the file once, in chunks, splitting lines at `\n` (as git and
   * ripgrep count them): keeps the bytes of the window's lines up to the byte
   * cap and counts every line. Memory is one chunk plus what is returned,
   * whatever the length of a line; a first line longer than the cap comes back
   * cut, with `truncated: true`.
   */
  private async window(source: ByteSource, request: FileRequest): Promise<OpenFile.Response> {
    const { maxBytes } = this.options;
    const startLine = request.startLine ?? 1;
    const wanted = request.endLine ?? startLine + this.options.maxLines - 1;
    const endLine = Math.min(wanted, startLine + this.options.maxLines - 1);
    let kept: Buffer[] = [];
    let keptBytes = 0;
    let keptLines = 0;
    /** `keptBytes` when the current line began: where to cut back to if it does not fit. */
    let lineStart = 0;
    let atLineStart = true;
    let full = false;
    let line = 1;
    let lastByte = NEWLINE;
    let position = 0;
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const bytesRead = await source(buffer, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const chunk = buffer.subarray(0, bytesRead);
      lastByte = chunk[bytesRead - 1]!;
      for (let start = 0; start < bytesRead;) {
        const newline = chunk.indexOf(NEWLINE, start);
        const end = newline === -1 ? bytesRead : newline + 1;
        if (!full && line >= startLine && line <= endLine) {
          if (atLineStart) {
            lineStart = keptBytes;
            keptLines++;
          }
          const piece = chunk.subarray(start, end);
          if (keptBytes + piece.length <= maxBytes) {
            kept.push(Buffer.from(piece));
            keptBytes += piece.length;
          } else if (lineStart === 0) {
            // The window's first line alone is over the cap: return its start.
            kept.push(Buffer.from(piece.subarray(0, maxBytes - keptBytes)));
            keptBytes = maxBytes;
            full = true;
          } else {
            kept = [Buffer.concat(kept).subarray(0, lineStart)];
            keptBytes = lineStart;
            keptLines--;
            full = true;
          }
        }
        atLineStart = chunk[end - 1] === NEWLINE;
        if (!atLineStart) break;
        line++;
        start = end;
      }
    }
    const total = position === 0 ? 0 : lastByte === NEWLINE ? line - 1 : line;
    if (total > 0 && startLine > total) {
      throw ServiceError.invalid({ startLine: `is beyond the end of the file (${total} lines)` });
    }
    const content = keptLines === 0 ? [] : decodeWhole(Buffer.concat(kept)).split('\n').slice(0, keptLines).map(withoutCr);
    // Cut short: by the byte cap, or by the line cap before the end of what was asked (or of the file).
    const truncated = full || (total > endLine && wanted > endLine) || (request.endLine === undefined && total > endLine);
    const last = startLine + content.length - 1;
    // What to ask for next: the rest of the range asked for (or of the file), as much as one answer holds.
    const until = Math.min(request.endLine ?? total, total);
    const next = truncated && last < until ? { startLine: last + 1, endLine: Math.min(until, last + this.options.maxLines) } : null;
    return {
      repo: request.repo,
      path: request.path,
      commit: request.commit,
      startLine,
      endLine: last,
      totalLines: total,
      content: content.join('\n'),
      truncated,
      next,
    };
  }
}

/** What the reader needs of a request: the repository named as the answer names it, and the commit the files are at. */
export type FileRequest = Pick<OpenFile.Request, 'path' | 'startLine' | 'endLine'> & {
  repo: string;
  /** The commit the content is at; null: a working tree (a workspace, a directory of the server). */
  commit: string | null;
};

/** Fills `buffer` with the bytes from `position` on; how many it read (0: the end). */
type ByteSource = (buffer: Buffer, position: number) => Promise<number>;

function fileSource(handle: FileHandle): ByteSource {
  return async (buffer, position) => (await handle.read(buffer, 0, buffer.length, position)).bytesRead;
}

function bufferSource(content: Buffer): ByteSource {
  return async (buffer, position) => content.copy(buffer, 0, position, Math.min(content.length, position + buffer.length));
}

/** UTF-8 text of `bytes`, leaving out a multi-byte character cut at the end. */
function decodeWhole(bytes: Buffer): string {
  let end = bytes.length;
  let lead = end - 1;
  while (lead > 0 && lead > end - 4 && (bytes[lead] & 0xc0) === 0x80) lead--;
  if (lead >= 0) {
    const b = bytes[lead];
    const size = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    if (lead + size > end) end = lead;
  }
  return bytes.toString('utf8', 0, end);
}

function withoutCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** What `open_file` answers for a repository directory that does not exist (or that the caller may not read). */
export function repositoryMissing(repo: string): ServiceError {
  return ServiceError.of('not_found', `Repository "${repo}" was not found.`);
}

function binary(path: string): ServiceError {
  return ServiceError.invalid({ path: `"${path}" is a binary file` });
}

function notFound(request: FileRequest): ServiceError {
  return ServiceError.of('not_found', `File "${request.path}" was not found in ${request.repo}.`);
}

function notRegular(path: string, info: { isDirectory(): boolean }): ServiceError {
  const what = info.isDirectory() ? 'a directory' : 'not a regular file (a FIFO, socket or device)';
  return ServiceError.invalid({ path: `"${path}" is ${what}; only regular files can be opened` });
}

function escape(path: string): ServiceError {
  return ServiceError.of('forbidden', `"${path}" resolves outside the repository; only files inside it can be opened.`, { field: 'path' });
}

function gitInternals(path: string): ServiceError {
  return ServiceError.of('forbidden', `"${path}" is inside .git; git's own files (config, hooks, objects) cannot be opened.`, {
    field: 'path',
  });
}

/** Whether a relative path has a `.git` segment (any case: case-insensitive file systems read `.GIT` as `.git`). */
function hasGitSegment(path: string): boolean {
  return path.split(/[/\\]/).some((segment) => segment.toLowerCase() === '.git');
}

/** Percent-decodes up to three times (double and triple encoding), so `%252e%252e` is seen as `..`. */
function decodings(value: string): string[] {
  const forms = [value];
  let current = value;
  for (let i = 0; i < 3; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      break;
    }
    if (next === current) break;
    forms.push(next);
    current = next;
  }
  return forms;
}

function checkRepoName(repo: string): void {
  for (const form of decodings(repo)) {
    if (form === '' || form === '.' || form === '..' || /[/\\\0]/.test(form)) {
      throw ServiceError.of('forbidden', `"${repo}" is not a repository name (one directory name, no separators or "..").`, {
        field: 'repo',
      });
    }
  }
}

function checkRelativePath(path: string): void {
  for (const form of decodings(path)) {
    const absolute = form.startsWith('/') || /^[A-Za-z]:/.test(form) || form.startsWith('\\\\');
    const parent = form.split(/[/\\]/).includes('..');
    if (absolute || parent || form.includes('\\') || form.includes('\0')) {
      throw ServiceError.of('forbidden', `"${path.replace(/\0/g, '\\0')}" is not a plain relative path inside the repository.`, {
        field: 'path',
      });
    }
    if (hasGitSegment(form)) throw gitInternals(path);
  }
}
