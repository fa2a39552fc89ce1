import { ServiceError, workBudgets } from '@sextant/work';
import { MatchCollector, type GrepEngine, type GrepQuery, type GrepResult } from './collector.js';
import { lineSplitter } from './lines.js';
import { longMessage, parseMessage, type RgEvent } from './rg-json.js';
import { spawnWithin, type BudgetedChild, type Spawner } from '@sextant/checkouts';

/** ripgrep's arguments for a query. The pattern goes after `-e`, so it can never be read as an option. */
export function ripgrepArgs(query: GrepQuery): string[] {
  const args = [
    '--json',
    '--no-config',
    '--hidden',
    '--no-ignore',
    '--glob',
    '!.git',
    query.caseSensitive ? '--case-sensitive' : '--ignore-case',
  ];
  if (!query.useRegex) args.push('--fixed-strings');
  if (query.contextLines > 0) args.push('--context', String(query.contextLines));
  // Extensions match in any case (`TS` finds `a.ts`), as the schema documents.
  for (const ext of query.fileExtensions) args.push('--iglob', `*.${ext}`);
  for (const dir of query.excludeDirs) args.push('--glob', `!${dir}`);
  args.push('--regexp', query.pattern, '--', '.');
  return args;
}

/**
 * ripgrep with structured output (`--json`), read as a stream: the process
 * is stopped as soon as `max_matches` lines were collected, and a message
 * too long to buffer (a match in a minified line) is read in passing (see
 * rg-json.ts), so memory stays bounded whatever the repository holds. Binary
 * files are skipped by ripgrep itself; `.git` is excluded.
 */
export class RipgrepEngine implements GrepEngine {
  readonly name = 'ripgrep' as const;

  constructor(
    private readonly binary: string,
    private readonly spawner: Spawner,
  ) {}

  async search(dir: string, query: GrepQuery): Promise<GrepResult> {
    const started = performance.now();
    const collector = new MatchCollector(query);
    let stderr = '';
    let filesSearched: number | undefined;
    // The summary is the last thing ripgrep prints: with it, the answer is complete
    // and need not wait for the process to wind down and its exit to be relayed.
    let summarized!: () => void;
    const summary = new Promise<void>((resolve) => (summarized = resolve));
    const onEvent = (event: RgEvent) => {
      if (!collector.wantsMore) return;
      if (event.type === 'match') {
        collector.match(event.path.toString('utf8'), event.lineNumber, event.line, event.ranges);
        if (!collector.wantsMore) child.kill();
      } else if (event.type === 'context') {
        collector.context(event.path.toString('utf8'), event.lineNumber, event.line);
      } else if (event.type === 'summary') {
        filesSearched = event.searches;
        summarized();
      }
    };
    const child: BudgetedChild = spawnWithin(
      this.spawner,
      { command: this.binary, args: ripgrepArgs(query), cwd: dir },
      {
        stdout: lineSplitter(
          (line) => onEvent(parseMessage(line)),
          (start) =>
            longMessage(start, (line) => {
              if (line) onEvent(line);
              else if (start.toString('latin1', 0, 16) === '{"type":"match",') collector.skipUnreadable();
            }),
        ),
        stderr: (chunk) => {
          if (stderr.length < 4096) stderr += chunk.toString('utf8');
        },
      },
      query.timeoutMs,
      workBudgets.greps,
    );
    const ended = await Promise.race([child.exit, summary]);
    if (!ended) {
      child.exit.catch(() => undefined);
      return collector.result({ filesSearched, elapsedMs: performance.now() - started });
    }
    const { code, timedOut } = ended;
    if (collector.truncated) return collector.result({ filesSearched: undefined, elapsedMs: performance.now() - started });
    if (timedOut) throw timeoutError(query.timeoutMs);
    if (code === 2 && /regex parse error|error parsing regex|regex.*(too large|exceeded)/i.test(stderr)) throw invalidPattern(stderr);
    // Exit 2 with a summary means some files could not be read; the results stand.
    if (code !== 0 && code !== 1 && filesSearched === undefined) {
      throw ServiceError.of('internal_error', `ripgrep failed: ${stderr.trim().split('\n')[0] ?? `exit ${code}`}`);
    }
    return collector.result({ filesSearched, elapsedMs: performance.now() - started });
  }
}

export function timeoutError(timeoutMs: number): ServiceError {
  return ServiceError.of('timeout', `The search took longer than ${timeoutMs} ms and was stopped; narrow the pattern or the paths.`, {
    timeout_ms: timeoutMs,
  });
}

/** The engine's own words about the bad pattern, without the "rg:" noise. */
export function invalidPattern(stderr: string): ServiceError {
  const message = stderr
    .replace(/^rg: /, '')
    .replace(/^fatal: /, '')
    .trim()
    .slice(0, 800);
  return ServiceError.invalid({ pattern: `invalid regular expression: ${message}` });
}
