import { existsSync, lstatSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import type { GitRunner } from '../git/git-runner.js';
import { languageOf } from './languages.js';
import { readFiles, type ReadResult, type SkipReason, type SkippedFile, type ToRead, type WalkedFile } from './read-files.js';

export type { SkipReason, SkippedFile, WalkedFile } from './read-files.js';

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
  /** Files per batch handed to the caller. */
  batchSize?: number;
  /** Files read at once (default 16). */
  concurrency?: number;
  timeoutMs?: number;
  /** Walk only these paths (the files git says changed) instead of listing the checkout. */
  paths?: readonly string[];
  /**
   * With `paths` (changed paths a watcher reported, not git): only those git lists (tracked, or untracked and not
   * ignored with `includeUntracked`), as a whole walk would.
   */
  pathsListedOnly?: boolean;
  /** With `pathsListedOnly`: paths known to be listed (an earlier walk listed them), which git is not asked about. */
  listedBefore?: (path: string) => boolean;
  /**
   * What is known of a path from an earlier walk: when its size and mtime are
   * unchanged its hash is reused (hash null: it was binary, and is skipped
   * again) and the file is not read (a local workspace's incremental scan
   * costs one `lstat` per unchanged file; with `knownText` and many files, a
   * tracked file git's index vouches for at the known hash costs nothing).
   */
  known?: (path: string) => { size: number; mtimeMs: number; hash: string | null } | undefined;
  /** Told of each file read and left out (binary …), e.g. to remember it for `known`. */
  onSkipped?: (file: SkippedFile) => void;
  /**
   * Blob ids known to hold text (e.g. the hashes of the last manifest). A
   * tracked file that git's index says is unchanged in the working tree, and
   * whose blob is one of these, is not read: its hash is the blob id git
   * already has (`ls-files -s`; changed files from `diff-files`, as `git
   * status` decides). Not used where git may store other bytes than the
   * working tree's (`.gitattributes`, `core.autocrlf`).
   */
  knownText?: (blobId: string) => boolean;
  /**
   * When given, a file found exactly as `known` says (same size, mtime and hash) is told here, by path, instead of
   * being yielded: an incremental scan of a large, mostly unchanged tree then costs a few map lookups per file, not
   * an object and a language lookup (`WalkStats.unchanged` counts them).
   */
  onUnchanged?: (path: string) => void;
}

export interface WalkStats {
  listed: number;
  files: number;
  /** Files whose content was read (the others were known by size and mtime, or by git's index). */
  read: number;
  /** Files told to `onUnchanged` instead of yielded. */
  unchanged: number;
  bytes: number;
  skipped: Record<SkipReason, number>;
}

/** Above this many files to read, they are read in a worker thread (its start costs ~30 ms; a sync reads few files). */
const WORKER_MIN_FILES = 1_000;
/** Fewer files to read than this, and they are read without asking git's index first. */
const INDEX_CHECK_MIN_FILES = 64;
/** Files lstat'ed between two yields of the event loop. */
const LSTAT_CHUNK = 250;

/**
 * The files of a checkout, in batches: the paths git knows (tracked, plus
 * untracked but not ignored for a local workspace), without vendored
 * directories, symlinks, submodules, binaries (a NUL in the first 8000 bytes,
 * git's own test) and files over the size cap. Each file is read once, for
 * its hash. Memory is the metadata of files read but not yet taken plus
 * `concurrency` file contents (one, when many files are read in a worker
 * thread).
 */
export async function* walkFiles(
  git: GitRunner,
  dir: string,
  options: WalkOptions,
  stats: WalkStats = newWalkStats(),
): AsyncGenerator<WalkedFile[]> {
  // Git's index is read at most once. An incremental walk reads it first (it lists the tracked files too): a file it
  // vouches for at the hash already known is not looked at (35,000 lstat calls took ~160 ms of the main thread; git
  // decides with its own, threaded, off it).
  let indexed: Promise<GitIndex> | undefined;
  const index = () => (indexed ??= readIndex(git, dir, options.timeoutMs));
  const indexFirst = options.known !== undefined && options.knownText !== undefined && options.paths === undefined;
  const list = (args: string[]) => git.run(['ls-files', '-z', ...args], { cwd: dir, timeoutMs: options.timeoutMs }).then(nulSeparated);
  const untracked = options.includeUntracked ? ['--others', '--exclude-standard'] : [];
  let listed: string[];
  let vouched: Map<string, string> | undefined;
  if (options.paths && options.pathsListedOnly) {
    const known = options.listedBefore ?? (() => false);
    const ask = options.paths.filter((path) => !known(path));
    const answered = ask.length > 0 ? await list(['--cached', ...untracked, '--', ...ask.map((path) => `:(literal)${path}`)]) : [];
    listed = [...options.paths.filter(known), ...answered];
  } else if (options.paths) listed = [...options.paths];
  else if (indexFirst) {
    const [tracked, others] = await Promise.all([index(), untracked.length > 0 ? list(untracked) : []]);
    listed = [...tracked.paths, ...others];
    vouched = tracked.unchanged;
  } else listed = await list(['--cached', ...untracked]);
  // One regular expression, not a split per path: 20,000 paths in 2–5 ms instead of 8–25.
  const vendored = vendoredPath(VENDORED_DIRECTORIES);
  // --cached and --others never overlap, but a path staged and deleted shows once; keep each path once.
  const paths = [...new Set(listed)].filter((path) => {
    if (!vendored.test(path)) return true;
    stats.skipped.vendored++;
    return false;
  });
  stats.listed += listed.length;
  const batchSize = options.batchSize ?? 500;
  const concurrency = options.concurrency ?? 16;
  // lstat runs synchronously, in chunks: ~3 µs a file instead of a thread-pool round trip (4× slower),
  // and an unchanged file of an incremental scan needs nothing else.
  const ready: WalkedFile[] = [];
  const toRead: Array<ToRead & { size: number }> = [];
  const skip = (reason: SkipReason) => void stats.skipped[reason]++;
  // A file exactly as `known` has it: told to onUnchanged, else yielded with the known hash.
  const asKnown = (path: string, size: number, hash: string, mtimeMs: number) => {
    if (!options.onUnchanged) ready.push({ path, size, hash, language: languageOf(path), mtimeMs });
    else {
      stats.unchanged++;
      options.onUnchanged(path);
    }
  };
  for (let start = 0; start < paths.length; start += LSTAT_CHUNK) {
    for (const path of paths.slice(start, start + LSTAT_CHUNK)) {
      const blob = vouched?.get(path);
      if (blob !== undefined) {
        // Unchanged since git's index saw it, at the content already known: the earlier walk's entry stands.
        const before = options.known!(path);
        if (before?.hash === blob) {
          asKnown(path, before.size, blob, before.mtimeMs);
          continue;
        }
      }
      const info = lstatSync(join(dir, path), { throwIfNoEntry: false });
      if (!info)
        skip('unreadable'); // deleted since it was listed
      else if (!info.isFile()) skip('not_regular');
      else if (info.size > options.maxFileBytes) skip('too_large');
      else {
        const mtimeMs = Math.floor(info.mtimeMs);
        const before = options.known?.(path);
        if (before && before.size === info.size && before.mtimeMs === mtimeMs) {
          if (before.hash === null) skip('binary');
          else asKnown(path, info.size, before.hash, mtimeMs);
        } else toRead.push({ path, mtimeMs, size: info.size });
      }
    }
    await new Promise((resolve) => setImmediate(resolve)); // let others run between chunks
  }
  // Many files left to read: ask git's index which of them it vouches for (three git calls, worth it only beyond a few reads).
  if (options.knownText && (indexed !== undefined || toRead.length >= INDEX_CHECK_MIN_FILES)) {
    const blobs = (await index()).unchanged;
    if (blobs) {
      let kept = 0;
      for (const item of toRead) {
        const blob = blobs.get(item.path);
        if (blob !== undefined && options.knownText(blob)) {
          ready.push({ path: item.path, size: item.size, hash: blob, language: languageOf(item.path), mtimeMs: item.mtimeMs });
        } else toRead[kept++] = item;
      }
      toRead.length = kept;
    }
  }
  stats.read += toRead.length;
  // The rest is read (many files: in a worker thread) without waiting at batch boundaries; the caller gets batches as they fill.
  let done = false;
  let wake: (() => void) | undefined;
  const onResult = (result: ReadResult) => {
    if ('skipped' in result) {
      skip(result.skipped);
      options.onSkipped?.(result);
    } else ready.push(result);
    if (ready.length >= batchSize) wake?.();
  };
  const reading = (
    toRead.length >= WORKER_MIN_FILES
      ? readInWorker(dir, toRead, options.maxFileBytes, onResult)
      : readFiles(dir, toRead, options.maxFileBytes, concurrency, onResult)
  ).finally(() => {
    done = true;
    wake?.();
  });
  reading.catch(() => undefined);
  for (;;) {
    if (ready.length >= batchSize || (done && ready.length > 0)) {
      const batch = ready.splice(0, batchSize);
      stats.files += batch.length;
      for (const file of batch) stats.bytes += file.size;
      yield batch;
      continue;
    }
    if (done) break;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
  await reading;
}

/** Like `readFiles`, in a worker thread, with blocking reads one after another (`readFilesSync`: no reads in flight to bound). */
function readInWorker(dir: string, items: readonly ToRead[], maxBytes: number, onResult: (result: ReadResult) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let received = 0;
    const worker = new Worker(new URL('./read-worker.js', import.meta.url), {
      workerData: { dir, items, maxBytes },
      // Short-lived garbage only (buffers, results): a small young generation keeps the thread's memory low.
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    worker.on('message', (chunk: ReadResult[]) => {
      for (const result of chunk) onResult(result);
      received += chunk.length;
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      received === items.length
        ? resolve()
        : reject(new Error(`the file reader thread stopped (exit ${code}) after ${received} of ${items.length} files`)),
    );
  });
}

interface GitIndex {
  /** Every path of the index (as `ls-files --cached` lists them). */
  paths: string[];
  /**
   * Blob ids of the tracked regular files git considers unchanged in the working tree: the index (stage 0) minus
   * what `diff-files` reports changed. Undefined when git may store other bytes than the working tree holds
   * (attributes that convert or filter, `core.autocrlf`), so a blob id could differ from the file's own.
   */
  unchanged: Map<string, string> | undefined;
}

/** Git's index of a working tree (`ls-files -s`), and what of it is unchanged (`diff-files`, as `git status` decides). */
async function readIndex(git: GitRunner, dir: string, timeoutMs: number | undefined): Promise<GitIndex> {
  const [staged, changed, autocrlf] = await Promise.all([
    git.run(['ls-files', '-s', '-z'], { cwd: dir, timeoutMs }),
    git.run(['diff-files', '--name-only', '-z'], { cwd: dir, timeoutMs }),
    git.run(['config', '--get', 'core.autocrlf'], { cwd: dir, timeoutMs }).catch(() => ''),
  ]);
  const paths: string[] = [];
  let unchanged: Map<string, string> | undefined =
    existsSync(join(dir, '.git', 'info', 'attributes')) || ['true', 'input'].includes(autocrlf.trim()) ? undefined : new Map();
  // Each entry: `<mode> <blob> <stage>\t<path>`.
  for (const entry of nulSeparated(staged)) {
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const path = entry.slice(tab + 1);
    paths.push(path);
    if (!unchanged) continue;
    if (path === '.gitattributes' || path.endsWith('/.gitattributes')) unchanged = undefined;
    else if (entry.charCodeAt(tab - 1) === 48 /* stage 0 */ && (entry.startsWith('100644 ') || entry.startsWith('100755 ')))
      unchanged.set(path, entry.slice(7, entry.indexOf(' ', 7)));
  }
  if (unchanged) for (const path of nulSeparated(changed)) unchanged.delete(path);
  return { paths, unchanged };
}

function nulSeparated(output: string): string[] {
  return output.split('\0').filter(Boolean);
}

/** A path under a directory named one of `names` (at any depth; the file's own name does not count). */
function vendoredPath(names: readonly string[]): RegExp {
  const escaped = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(^|/)(${escaped.join('|')})/`);
}

export function newWalkStats(): WalkStats {
  return {
    listed: 0,
    files: 0,
    read: 0,
    unchanged: 0,
    bytes: 0,
    skipped: { vendored: 0, too_large: 0, binary: 0, not_regular: 0, unreadable: 0 },
  };
}
