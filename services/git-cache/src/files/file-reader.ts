import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { createInterface } from 'node:readline';
import type { OpenFile } from '@sextant/contracts';
import { ServiceError } from '@sextant/messaging';

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

/**
 * Reads files for `open_file` without ever reading a byte outside the
 * repository. Three layers: the names are checked lexically (one plain
 * repository segment; a relative path with no `..`, no backslash, no NUL,
 * also after percent-decoding); the resolved real path (symlinks followed)
 * must lie inside the repository's real path; and the final open refuses a
 * symlink swapped in since (`O_NOFOLLOW`).
 */
export class FileReader {
  constructor(private readonly options: FileReaderOptions) {}

  get singleRepository(): boolean {
    return this.options.repoRoot !== undefined;
  }

  async open(request: OpenFile.Request): Promise<OpenFile.Response> {
    if (this.options.repoRoot !== undefined) return this.read(this.options.repoRoot, request);
    checkRepoName(request.repo);
    return this.read(join(this.options.codebaseRoot, request.repo), request);
  }

  /** Reads from `<root>/<request.repo>` (the clone cache, for repository locators). */
  async openIn(root: string, request: OpenFile.Request): Promise<OpenFile.Response> {
    checkRepoName(request.repo);
    return this.read(join(root, request.repo), request);
  }

  private async read(repositoryDir: string, request: OpenFile.Request): Promise<OpenFile.Response> {
    checkRelativePath(request.path);
    const root = await realpath(repositoryDir).catch(() => {
      throw ServiceError.of('not_found', `Repository "${request.repo}" was not found.`);
    });
    const target = await realpath(join(root, request.path)).catch(() => {
      throw ServiceError.of('not_found', `File "${request.path}" was not found in ${request.repo}.`);
    });
    if (!target.startsWith(root + sep)) throw escape(request.path);

    const handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => {
      throw escape(request.path);
    });
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw ServiceError.invalid({ path: `"${request.path}" is not a regular file` });
      const sniff = Buffer.alloc(Math.min(BINARY_SNIFF_BYTES, info.size));
      await handle.read(sniff, 0, sniff.length, 0);
      if (sniff.includes(0)) throw ServiceError.invalid({ path: `"${request.path}" is a binary file` });
      return await this.window(handle, request);
    } finally {
      await handle.close();
    }
  }

  /** Streams the file once: keeps the lines of the window, counts them all. */
  private async window(handle: Awaited<ReturnType<typeof open>>, request: OpenFile.Request): Promise<OpenFile.Response> {
    const startLine = request.startLine ?? 1;
    const wanted = request.endLine ?? startLine + this.options.maxLines - 1;
    const endLine = Math.min(wanted, startLine + this.options.maxLines - 1);
    const lines: string[] = [];
    let bytes = 0;
    let total = 0;
    let full = false;
    const reader = createInterface({
      input: handle.createReadStream({ encoding: 'utf8', start: 0, autoClose: false }),
      crlfDelay: Infinity,
    });
    for await (const line of reader) {
      total++;
      if (full || total < startLine || total > endLine) continue;
      const size = Buffer.byteLength(line) + 1;
      if (bytes + size > this.options.maxBytes) {
        full = true;
        continue;
      }
      bytes += size;
      lines.push(line);
    }
    if (total > 0 && startLine > total) {
      throw ServiceError.invalid({ startLine: `is beyond the end of the file (${total} lines)` });
    }
    // Cut short: by the byte cap, or by the line cap before the end of what was asked (or of the file).
    const truncated = full || (total > endLine && wanted > endLine) || (request.endLine === undefined && total > endLine);
    return {
      repo: request.repo,
      path: request.path,
      startLine,
      endLine: startLine + lines.length - 1,
      totalLines: total,
      content: lines.join('\n'),
      truncated,
    };
  }
}

function escape(path: string): ServiceError {
  return ServiceError.of('forbidden', `"${path}" resolves outside the repository; only files inside it can be opened.`, { field: 'path' });
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
  }
}
