import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { GitRunner } from '../git/git-runner.js';
import { languageOf } from './languages.js';

/**
 * Directories of code nobody wrote here (dependencies, build output, caches):
 * skipped by default wherever they are in the tree.
 */
export const VENDORED_DIRECTORIES: readonly string[] = [
  'node_modules',
  'bower_components',
  'vendor',
  'third_party',
  'dist',
  'build',
  'out',
  'target',
  'coverage',
  '.next',
  '.nuxt',
  '.svelte-kit',
  '__pycache__',
  '.venv',
  'venv',
  '.tox',
  '.gradle',
  'Pods',
];

export interface WalkOptions {
  /** Larger files are skipped (`too_large`). */
  maxFileBytes: number;
  /** A local workspace: untracked files not ignored by `.gitignore` too (a clone has none). */
  includeUntracked: boolean;
  /** Directory names skipped at any depth; default `VENDORED_DIRECTORIES`. */
  excludedDirectories?: readonly string[];
  /** Files per batch handed to the caller. */
  batchSize?: number;
  /** Files read at once. */
  concurrency?: number;
  timeoutMs?: number;
  /** Walk only these paths (the files git says changed) instead of listing the checkout. */
  paths?: readonly string[];
  /**
   * What is known of a path from an earlier walk: when its size and mtime are
   * unchanged its hash is reused and the file is not read (a local
   * workspace's incremental scan costs one `lstat` per unchanged file).
   */
  known?: (path: string) => { size: number; mtimeMs: number; hash: string } | undefined;
}

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

export interface WalkStats {
  listed: number;
  files: number;
  bytes: number;
  skipped: Record<SkipReason, number>;
}

const BINARY_SNIFF_BYTES = 8000;

/**
 * The files of a checkout, in batches: the paths git knows (tracked, plus
 * untracked but not ignored for a local workspace), without vendored
 * directories, symlinks, submodules, binaries (a NUL in the first 8000 bytes,
 * git's own test) and files over the size cap. Each file is read once, for
 * its hash. Memory is one batch of metadata plus `concurrency` file contents.
 */
export async function* walkFiles(
  git: GitRunner,
  dir: string,
  options: WalkOptions,
  stats: WalkStats = newWalkStats(),
): AsyncGenerator<WalkedFile[]> {
  const listArgs = ['ls-files', '-z', '--cached', ...(options.includeUntracked ? ['--others', '--exclude-standard'] : [])];
  const listed = options.paths
    ? [...options.paths]
    : (await git.run(listArgs, { cwd: dir, timeoutMs: options.timeoutMs })).split('\0').filter(Boolean);
  const excluded = new Set(options.excludedDirectories ?? VENDORED_DIRECTORIES);
  // --cached and --others never overlap, but a path staged and deleted shows once; keep each path once.
  const paths = [...new Set(listed)].filter((path) => {
    const vendored = path
      .split('/')
      .slice(0, -1)
      .some((segment) => excluded.has(segment));
    if (vendored) stats.skipped.vendored++;
    return !vendored;
  });
  stats.listed += listed.length;
  const batchSize = options.batchSize ?? 500;
  const concurrency = options.concurrency ?? 16;
  for (let start = 0; start < paths.length; start += batchSize) {
    const slice = paths.slice(start, start + batchSize);
    const results: Array<WalkedFile | SkipReason> = new Array(slice.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, slice.length) }, async () => {
        while (next < slice.length) {
          const i = next++;
          results[i] = await readOne(dir, slice[i]!, options.maxFileBytes, options.known);
        }
      }),
    );
    const batch: WalkedFile[] = [];
    for (const result of results) {
      if (typeof result === 'string') stats.skipped[result]++;
      else {
        batch.push(result);
        stats.files++;
        stats.bytes += result.size;
      }
    }
    if (batch.length > 0) yield batch;
  }
}

export function newWalkStats(): WalkStats {
  return { listed: 0, files: 0, bytes: 0, skipped: { vendored: 0, too_large: 0, binary: 0, not_regular: 0, unreadable: 0 } };
}

async function readOne(dir: string, path: string, maxBytes: number, known: WalkOptions['known']): Promise<WalkedFile | SkipReason> {
  const full = join(dir, path);
  const info = await lstat(full).catch(() => undefined);
  if (!info) return 'unreadable'; // deleted since it was listed
  if (!info.isFile()) return 'not_regular';
  if (info.size > maxBytes) return 'too_large';
  const mtimeMs = Math.floor(info.mtimeMs);
  const before = known?.(path);
  if (before && before.size === info.size && before.mtimeMs === mtimeMs) {
    return { path, size: info.size, hash: before.hash, language: languageOf(path), mtimeMs };
  }
  let content: Buffer;
  try {
    // Non-blocking and not through a symlink: a FIFO or link swapped in since the lstat must not block or lead out.
    const handle = await open(full, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    try {
      if (!(await handle.stat()).isFile()) return 'not_regular';
      content = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch {
    return 'unreadable';
  }
  if (content.length > maxBytes) return 'too_large'; // grew since the lstat
  if (content.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return 'binary';
  const hash = createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
  return { path, size: content.length, hash, language: languageOf(path), mtimeMs };
}
