import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
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
        const { path, mtimeMs } = items[next++]!;
        onResult(await readOne(dir, path, maxBytes, mtimeMs));
      }
    }),
  );
}

/** Reads a file once (not through a symlink, never blocking on a FIFO swapped in since the lstat) for its hash. */
async function readOne(dir: string, path: string, maxBytes: number, mtimeMs: number): Promise<ReadResult> {
  let content: Buffer;
  try {
    content = await readFile(join(dir, path), { flag: constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW });
  } catch {
    return { path, skipped: 'unreadable', size: 0, mtimeMs };
  }
  if (content.length > maxBytes) return { path, skipped: 'too_large', size: content.length, mtimeMs }; // grew since the lstat
  if (isBinary(content)) return { path, skipped: 'binary', size: content.length, mtimeMs };
  const hash = createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
  return { path, size: content.length, hash, language: languageOf(path), mtimeMs };
}
