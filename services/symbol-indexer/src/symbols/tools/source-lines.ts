import { join } from 'node:path';
import { parseRepository, readRegularFileSync, type CloneCache, type LocatorPolicy } from '@sextant/checkouts';
import type { RegisteredRepository } from '@sextant/contracts';

/** Longest snippet returned; a longer line is cut, with `…`. */
const SNIPPET_MAX = 200;

/** Lines wanted from one file: 1-based, inclusive ranges. */
export type LineRanges = ReadonlyArray<readonly [number, number]>;

/**
 * Reads lines of indexed files for snippets and definition bodies: a local
 * workspace's working tree, or the symbol indexer's clone of a remote
 * repository as it is (no clone or fetch here: a snippet never waits on the
 * network). Files are opened without following links and never past
 * `maxBytes`; only the wanted lines are decoded (a bundle of megabytes is
 * scanned for newlines, not split); a file that cannot be read gives empty
 * snippets.
 */
export class SourceLines {
  constructor(private readonly deps: { clones: CloneCache; policy: LocatorPolicy; maxBytes: number }) {}

  /** Per path: the wanted lines by number, as far as they can be read. */
  async read(repository: RegisteredRepository, wanted: ReadonlyMap<string, LineRanges>): Promise<Map<string, Map<number, string>>> {
    return (await this.inCheckout(repository, (dir) => this.readFiles(dir, wanted))) ?? new Map();
  }

  /** `work` on the directory of the repository's files (the working tree, or the clone as it is); undefined: none. */
  async inCheckout<T>(repository: RegisteredRepository, work: (dir: string) => Promise<T>): Promise<T | undefined> {
    if (repository.kind === 'local') return work(repository.locator);
    try {
      const locator = parseRepository(repository.locator, this.deps.policy);
      return await this.deps.clones.peek(locator, repository.ref ?? undefined, (checkout) => work(checkout.dir));
    } catch {
      return undefined;
    }
  }

  /**
   * Reads the files one after another, synchronously: a page of references is a few dozen small files of the
   * local disk, which three system calls each read in microseconds, where the thread pool's round trips of
   * asynchronous reads took several milliseconds per page.
   */
  private async readFiles(dir: string, wanted: ReadonlyMap<string, LineRanges>): Promise<Map<string, Map<number, string>>> {
    const out = new Map<string, Map<number, string>>();
    for (const [path, ranges] of wanted) {
      const bytes = this.readOne(join(dir, path));
      if (bytes) out.set(path, linesOf(bytes, ranges));
    }
    return out;
  }

  private readOne(file: string): Buffer | undefined {
    const bytes = readRegularFileSync(file, this.deps.maxBytes);
    return Buffer.isBuffer(bytes) ? bytes : undefined;
  }
}

/** The lines of `ranges` in `bytes`, found by scanning for newlines up to the last one wanted. */
function linesOf(bytes: Buffer, ranges: LineRanges): Map<number, string> {
  const out = new Map<number, string>();
  // Sorted by start, then walked once with the lines.
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const last = Math.max(...sorted.map((r) => r[1]));
  let next = 0;
  let start = 0;
  for (let line = 1; line <= last && start <= bytes.length; line++) {
    const newline = bytes.indexOf(10, start);
    const end = newline < 0 ? bytes.length : newline;
    while (next < sorted.length && sorted[next][1] < line) next++;
    if (next < sorted.length && sorted[next][0] <= line) out.set(line, bytes.toString('utf8', start, end).replace(/\r$/, ''));
    if (newline < 0) break;
    start = newline + 1;
  }
  return out;
}

/** A line as a snippet: trimmed, cut to `SNIPPET_MAX` characters. */
export function snippetOf(lines: ReadonlyMap<number, string> | undefined, line: number): string {
  const text = (lines?.get(line) ?? '').trim();
  return text.length > SNIPPET_MAX ? `${text.slice(0, SNIPPET_MAX - 1)}…` : text;
}
