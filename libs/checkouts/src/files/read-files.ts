import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { languageOf } from './languages.js';

/** One file of the manifest. */
export interface WalkedFile {
  path: string;
  size: number;
  /** Git's blob id of the content (`sha1("blob <size>\0" + content)`), equal to `git hash-object`. */
  hash: string;
  language: string | null;
  mtimeMs: number;
}

export type SkipReason = 'vendored' | 'too_large' | 'binary' | 'not_regular' | 'unreadable';

/** A file read and then left out (binary, grown past the cap, or gone), with what it was when read. */
export interface SkippedFile {
  path: string;
  skipped: Extract<SkipReason, 'binary' | 'too_large' | 'unreadable'>;
  size: number;
  mtimeMs: number;
}

export type ReadResult = WalkedFile | SkippedFile;

/** A file the walker must read: its lstat said a regular file within the cap. */
export interface ToRead {
  path: string;
  mtimeMs: number;
}

const BINARY_SNIFF_BYTES = 8000;

/** Git's own test: a NUL in the first 8000 bytes makes a file binary. */
export function isBinary(content: Uint8Array): boolean {
  return content.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** Reads `items` with `concurrency` reads in flight, each once, for its hash; `onResult` gets each outcome as it comes. */
export async function readFiles(
  dir: string,
  items: readonly ToRead[],
  maxBytes: number,
  concurrency: number,
  onResult: (result: ReadResult) => void,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const { path, mtimeMs } = items[next++];
        onResult(await readOne(dir, path, maxBytes, mtimeMs));
      }
    }),
  );
}

/** The flags every read opens with: not through a symlink, never blocking on a FIFO swapped in since the lstat. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/** Why `readRegularFileSync` gave no bytes. */
export interface NotRead {
  skipped: 'unreadable' | 'too_large';
  reason: string;
}

/**
 * One file's bytes, read synchronously (for a worker thread, or a few small files where the thread pool's round
 * trips would cost more than the reads): opened without following a symbolic link or blocking on a FIFO, `fstat`ed,
 * and read only when it is a regular file of at most `maxBytes`, as many bytes as `fstat` gave (a file that grows
 * meanwhile is read as it was; one that shrinks, to its end). Four system calls: `readFileSync(fd)` would `fstat`
 * once more.
 */
export function readRegularFileSync(path: string, maxBytes: number): Buffer | NotRead {
  let fd: number | undefined;
  try {
    fd = openSync(path, READ_FLAGS);
    const stat = fstatSync(fd);
    // A device or a FIFO (read to its end, it might never end) is no source file.
    if (!stat.isFile()) return { skipped: 'unreadable', reason: 'not a regular file' };
    if (stat.size > maxBytes) return { skipped: 'too_large', reason: `${stat.size} bytes, over the ${maxBytes}-byte limit` };
    const bytes = Buffer.allocUnsafe(stat.size);
    let read = 0;
    for (let n = -1; read < bytes.length && n !== 0; read += n) n = readSync(fd, bytes, read, bytes.length - read, read);
    return bytes.subarray(0, read);
  } catch (error) {
    return { skipped: 'unreadable', reason: (error as Error).message };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Reads a file once for its hash. */
async function readOne(dir: string, path: string, maxBytes: number, mtimeMs: number): Promise<ReadResult> {
  let content: Buffer;
  try {
    content = await readFile(join(dir, path), { flag: READ_FLAGS });
  } catch {
    return { path, skipped: 'unreadable', size: 0, mtimeMs };
  }
  return examine(path, content, maxBytes, mtimeMs);
}

/**
 * Like `readFiles`, one file after another with blocking reads: for a
 * worker thread, where blocking costs no one. A file costs one `open`, its
 * `read`s and a `close` instead of several thread-pool round trips, and is
 * read into one buffer reused for every file (allocating one per file let
 * their memory pile up between collections: 25 MB more peak RSS at 20,000
 * files).
 */
export function readFilesSync(dir: string, items: readonly ToRead[], maxBytes: number, onResult: (result: ReadResult) => void): void {
  let buffer = Buffer.allocUnsafe(1 << 16);
  for (const { path, mtimeMs } of items) {
    let length = 0;
    try {
      const fd = openSync(join(dir, path), READ_FLAGS);
      try {
        for (;;) {
          if (length === buffer.length) {
            const bigger = Buffer.allocUnsafe(buffer.length * 2);
            buffer.copy(bigger, 0, 0, length);
            buffer = bigger;
          }
          const n = readSync(fd, buffer, length, buffer.length - length, null);
          if (n === 0) break;
          length += n;
          // Grown past the cap since the lstat: no need to read the rest.
          if (length > maxBytes) {
            length = fstatSync(fd).size;
            break;
          }
        }
      } finally {
        closeSync(fd);
      }
    } catch {
      onResult({ path, skipped: 'unreadable', size: 0, mtimeMs });
      continue;
    }
    if (length > maxBytes) onResult({ path, skipped: 'too_large', size: length, mtimeMs });
    else onResult(examine(path, buffer.subarray(0, length), maxBytes, mtimeMs));
  }
}

/** What a read file is: too large (it grew since the lstat), binary, or text with its blob id. */
function examine(path: string, content: Buffer, maxBytes: number, mtimeMs: number): ReadResult {
  if (content.length > maxBytes) return { path, skipped: 'too_large', size: content.length, mtimeMs };
  if (isBinary(content)) return { path, skipped: 'binary', size: content.length, mtimeMs };
  const hash = createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
  return { path, size: content.length, hash, language: languageOf(path), mtimeMs };
}
