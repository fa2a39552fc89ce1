import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MatchCollector, MAX_LINE_BYTES, type GrepEngine, type GrepQuery, type GrepResult } from './collector.js';
import { headOf, lineSplitter } from './lines.js';
import { invalidPattern, timeoutError } from './ripgrep.js';
import { runToCompletion, spawnWithin, type BudgetedChild, type Spawner } from '@sextant/checkouts';
import { workBudgets } from '@sextant/work';

function pathspecs(query: GrepQuery): string[] {
  return [
    ...query.fileExtensions.map((ext) => `:(glob,icase)**/*.${ext}`),
    ...query.excludeDirs.flatMap((dir) => [`:(exclude,glob)**/${dir}/**`, `:(exclude,glob)${dir}/**`]),
  ];
}

/**
 * The fallback engine when no ripgrep binary exists: `git grep` over the
 * checkout's tracked files (`-I` skips binaries; `.git` is never searched).
 * Regexes use `-P` (PCRE, the closest to ripgrep's syntax), which can
 * backtrack: the time budget kills a runaway search. git grep reports one
 * column per line, so match ranges are recomputed here from the line.
 */
export class GitGrepEngine implements GrepEngine {
  readonly name = 'git-grep' as const;
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    baseEnv: { PATH: string | undefined; HOME: string | undefined },
    private readonly spawner: Spawner,
  ) {
    this.env = { ...baseEnv, LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  }

  async search(dir: string, query: GrepQuery): Promise<GrepResult> {
    const started = performance.now();
    const collector = new MatchCollector(query);
    const finder = rangeFinder(query);
    const [, filesSearched] = await Promise.all([this.grep(dir, query, collector, finder), this.countFiles(dir, query)]);
    if (query.contextLines > 0) await addContext(dir, collector, query.contextLines);
    return collector.result({ filesSearched: collector.truncated ? undefined : filesSearched, elapsedMs: performance.now() - started });
  }

  private async grep(
    dir: string,
    query: GrepQuery,
    collector: MatchCollector,
    finder: (line: string) => Array<[number, number]>,
  ): Promise<void> {
    const args = ['grep', '-n', '-z', '-I', '--no-color', '--full-name', query.useRegex ? '-P' : '-F'];
    if (!query.caseSensitive) args.push('-i');
    args.push('-e', query.pattern, '--', ...pathspecs(query));
    let stderr = '';
    const onLine = (raw: Buffer) => {
      if (!collector.wantsMore) return;
      const pathEnd = raw.indexOf(0);
      const numberEnd = raw.indexOf(0, pathEnd + 1);
      // Only the start of a long line is shown, so only its start is decoded and searched for ranges.
      const content = raw.subarray(numberEnd + 1, numberEnd + 1 + MAX_LINE_BYTES);
      const line = content.toString('utf8');
      collector.match(
        raw.toString('utf8', 0, pathEnd),
        Number(raw.toString('latin1', pathEnd + 1, numberEnd)),
        content,
        byteRanges(line, finder(line)),
      );
      if (!collector.wantsMore) child.kill();
    };
    const child: BudgetedChild = spawnWithin(
      this.spawner,
      { command: 'git', args, cwd: dir, env: this.env },
      {
        // A line too long to buffer: its path, number and first bytes are all at its start.
        stdout: lineSplitter(onLine, (start) => headOf(start, 64 * 1024, onLine)),
        stderr: (chunk) => void (stderr += chunk.toString('utf8')),
      },
      query.timeoutMs,
      workBudgets.greps,
    );
    const { code, timedOut } = await child.exit;
    if (collector.truncated || code === 0 || code === 1) return;
    if (timedOut) throw timeoutError(query.timeoutMs);
    throw invalidPattern(stderr);
  }

  private async countFiles(dir: string, query: GrepQuery): Promise<number | undefined> {
    const listed = await runToCompletion(
      this.spawner,
      { command: 'git', args: ['ls-files', '-z', '--', ...pathspecs(query)], cwd: dir, env: this.env },
      { timeoutMs: query.timeoutMs, maxBytes: 256 * 1024 * 1024 },
    ).catch(() => undefined);
    return listed?.code === 0 ? listed.stdout.split('\0').filter(Boolean).length : undefined;
  }
}

/** [start, end) string indices in ascending order → byte offsets, in one pass over the line. */
function byteRanges(line: string, ranges: Array<[number, number]>): Array<[number, number]> {
  let chars = 0;
  let bytes = 0;
  const at = (index: number) => {
    bytes += Buffer.byteLength(line.slice(chars, index), 'utf8');
    chars = index;
    return bytes;
  };
  return ranges.map(([s, e]) => [at(s), at(e)]);
}

/** Every match of the query in a line, as [start, end) string indices. */
function rangeFinder(query: GrepQuery): (line: string) => Array<[number, number]> {
  let regex: RegExp | undefined;
  try {
    const source = query.useRegex ? query.pattern : query.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    regex = new RegExp(source, query.caseSensitive ? 'gu' : 'giu');
  } catch {
    regex = undefined; // PCRE syntax JavaScript does not know: lines still match, without ranges
  }
  return (line) => {
    if (!regex) return [];
    const ranges: Array<[number, number]> = [];
    for (const m of line.matchAll(regex)) {
      if (m[0].length === 0) continue;
      ranges.push([m.index, m.index + m[0].length]);
    }
    return ranges;
  };
}

/** git grep's -z output cannot tell context from matches, so context comes from the files themselves. */
async function addContext(dir: string, collector: MatchCollector, contextLines: number): Promise<void> {
  for (const file of collector.result({ filesSearched: 0, elapsedMs: 0 }).matches) {
    const lines = (await readFile(join(dir, file.path), 'utf8')).replace(/\n$/, '').split('\n');
    for (const m of file.line_matches) {
      const at = m.line_number - 1;
      m.context_before = lines.slice(Math.max(0, at - contextLines), at).map(trimCr);
      m.context_after = lines.slice(at + 1, at + 1 + contextLines).map(trimCr);
    }
  }
}

function trimCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
