import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { parseRepository, type CloneCache, type LocatorPolicy } from '@sextant/checkouts';
import type { RegisteredRepository } from '@sextant/contracts';

/** Longest snippet returned; a longer line is cut, with `…`. */
const SNIPPET_MAX = 200;

/**
 * Reads lines of indexed files for snippets: a local workspace's working
 * tree, or the symbol indexer's clone of a remote repository as it is (no
 * clone or fetch here: a snippet never waits on the network). Files are
 * opened without following links and never past `maxBytes`; a file that
 * cannot be read gives empty snippets.
 */
export class SourceLines {
  constructor(private readonly deps: { clones: CloneCache; policy: LocatorPolicy; maxBytes: number }) {}

  /** The lines of each of `paths` (1-based: index 0 is line 1), as far as they can be read. */
  async read(repository: RegisteredRepository, paths: readonly string[]): Promise<Map<string, string[]>> {
    const readAll = (dir: string) => this.readFiles(dir, paths);
    if (repository.kind === 'local') return readAll(repository.locator);
    try {
      const locator = parseRepository(repository.locator, this.deps.policy);
      return (await this.deps.clones.peek(locator, repository.ref ?? undefined, (checkout) => readAll(checkout.dir))) ?? new Map();
    } catch {
      return new Map();
    }
  }

  /** Reads the files, at most 16 at a time. */
  private async readFiles(dir: string, paths: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    const queue = [...new Set(paths)];
    const worker = async () => {
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
        const lines = await this.readOne(join(dir, path));
        if (lines) out.set(path, lines);
      }
    };
    await Promise.all(Array.from({ length: Math.min(16, queue.length) }, worker));
    return out;
  }

  private async readOne(file: string): Promise<string[] | undefined> {
    let handle;
    try {
      handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
      const stat = await handle.stat();
      if (!stat.isFile() || stat.size > this.deps.maxBytes) return undefined;
      return (await handle.readFile('utf8')).split('\n');
    } catch {
      return undefined;
    } finally {
      await handle?.close();
    }
  }
}

/** A line as a snippet: trimmed, cut to `SNIPPET_MAX` characters. */
export function snippetOf(lines: readonly string[] | undefined, line: number): string {
  const text = (lines?.[line - 1] ?? '').trim();
  return text.length > SNIPPET_MAX ? `${text.slice(0, SNIPPET_MAX - 1)}…` : text;
}
