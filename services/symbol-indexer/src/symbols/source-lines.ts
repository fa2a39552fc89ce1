import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { parseRepository, type CloneCache, type LocatorPolicy } from '@sextant/checkouts';
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
    const readAll = (dir: string) => this.readFiles(dir, wanted);
    if (repository.kind === 'local') return readAll(repository.locator);
    try {
      const locator = parseRepository(repository.locator, this.deps.policy);
      return (await this.deps.clones.peek(locator, repository.ref ?? undefined, (checkout) => readAll(checkout.dir))) ?? new Map();
    } catch {
      return new Map();
    }
  }

  /** Reads the files, at most 16 at a time. */
  private async readFiles(dir: string, wanted: ReadonlyMap<string, LineRanges>): Promise<Map<string, Map<number, string>>> {
    const out = new Map<string, Map<number, string>>();
    const queue = [...wanted.keys()];
    const worker = async () => {
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
        const bytes = await this.readOne(join(dir, path));
        if (bytes) out.set(path, linesOf(bytes, wanted.get(path)!));
      }
    };
    await Promise.all(Array.from({ length: Math.min(16, queue.length) }, worker));
    return out;
  }

  private async readOne(file: string): Promise<Buffer | undefined> {
    let handle;
    try {
      handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
      const stat = await handle.stat();
      if (!stat.isFile() || stat.size > this.deps.maxBytes) return undefined;
      return await handle.readFile();
    } catch {
      return undefined;
    } finally {
      await handle?.close();
    }
  }
}

/** The lines of `ranges` in `bytes`, found by scanning for newlines. */
function linesOf(bytes: Buffer, ranges: LineRanges): Map<number, string> {
  const out = new Map<number, string>();
  const last = Math.max(...ranges.map((r) => r[1]));
  let start = 0;
  for (let line = 1; line <= last && start <= bytes.length; line++) {
    const newline = bytes.indexOf(10, start);
    const end = newline < 0 ? bytes.length : newline;
    if (ranges.some(([from, to]) => from <= line && line <= to)) out.set(line, bytes.toString('utf8', start, end).replace(/\r$/, ''));
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
