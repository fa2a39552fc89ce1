import type { GrepRepository } from '@sextant/contracts';

export type GrepResult = Omit<GrepRepository.Response, 'ref' | 'notes'>;
type FileMatches = GrepResult['matches'][number];
type LineMatch = FileMatches['line_matches'][number];

/** What a grep engine is asked to do (already validated). */
export interface GrepQuery {
  pattern: string;
  caseSensitive: boolean;
  useRegex: boolean;
  fileExtensions: readonly string[];
  excludeDirs: readonly string[];
  contextLines: number;
  maxMatches: number;
  timeoutMs: number;
}

export interface GrepEngine {
  readonly name: 'ripgrep' | 'git-grep';
  search(dir: string, query: GrepQuery): Promise<GrepResult>;
}

/** Long lines (minified code) are cut to this many characters; ranges past the cut are dropped. */
export const MAX_LINE_CHARS = 1_000;

/**
 * Builds the `grep_repository` result from an engine's stream of matching and
 * context lines, keeping at most `maxMatches` matching lines in memory. Ranges
 * are `[start, length]` in UTF-16 code units of the line (JavaScript string
 * indices), converted from the engines' byte offsets.
 */
export class MatchCollector {
  private readonly files: FileMatches[] = [];
  private current: FileMatches | undefined;
  /** Context lines seen in the current file, for the next match's `context_before`. */
  private recentContext: Array<{ n: number; text: string }> = [];
  private matchedLines = 0;
  truncated = false;

  constructor(private readonly query: GrepQuery) {}

  /** False once the cap is reached: the engine should stop. */
  get wantsMore(): boolean {
    return !this.truncated;
  }

  get count(): number {
    return this.matchedLines;
  }

  match(path: string, lineNumber: number, rawLine: Buffer | string, byteRanges: Array<[number, number]>): void {
    if (this.matchedLines >= this.query.maxMatches) {
      this.truncated = true;
      return;
    }
    const file = this.fileFor(path);
    const line = trimEol(typeof rawLine === 'string' ? rawLine : rawLine.toString('utf8'));
    const bytes = typeof rawLine === 'string' ? Buffer.from(rawLine, 'utf8') : rawLine;
    const entry: LineMatch = { line_number: lineNumber, line: cut(line), ranges: toCharRanges(bytes, byteRanges) };
    if (this.query.contextLines > 0) {
      entry.context_before = this.recentContext
        .filter((c) => c.n >= lineNumber - this.query.contextLines && c.n < lineNumber)
        .map((c) => c.text);
      entry.context_after = [];
    }
    file.line_matches.push(entry);
    this.matchedLines++;
  }

  context(path: string, lineNumber: number, rawLine: Buffer | string): void {
    if (this.query.contextLines === 0) return;
    const file = this.fileFor(path);
    const text = cut(trimEol(typeof rawLine === 'string' ? rawLine : rawLine.toString('utf8')));
    for (const m of file.line_matches) {
      if (lineNumber > m.line_number && lineNumber <= m.line_number + this.query.contextLines) m.context_after!.push(text);
    }
    this.recentContext.push({ n: lineNumber, text });
    if (this.recentContext.length > this.query.contextLines) this.recentContext.shift();
  }

  result(stats: { filesSearched: number | undefined; elapsedMs: number }): GrepResult {
    return {
      matches: this.files,
      stats: {
        // When the search stopped early the engine's own count is missing: report the files seen so far.
        files_searched: stats.filesSearched ?? this.files.length,
        total_matches: this.matchedLines,
        files_with_matches: this.files.length,
        execution_time_ms: Math.round(stats.elapsedMs * 100) / 100,
      },
      truncated: this.truncated,
    };
  }

  private fileFor(path: string): FileMatches {
    const clean = path.startsWith('./') ? path.slice(2) : path;
    if (this.current?.path !== clean) {
      this.current = this.files.find((f) => f.path === clean) ?? { path: clean, line_matches: [] };
      if (!this.files.includes(this.current)) this.files.push(this.current);
      this.recentContext = [];
    }
    return this.current;
  }
}

function trimEol(line: string): string {
  return line.endsWith('\r\n') ? line.slice(0, -2) : line.endsWith('\n') ? line.slice(0, -1) : line;
}

function cut(line: string): string {
  return line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line;
}

/** Byte offsets → character offsets; identical for ASCII lines, which is most code. */
function toCharRanges(bytes: Buffer, byteRanges: Array<[number, number]>): Array<[number, number]> {
  const ascii = isAscii(bytes);
  const chars = (offset: number) => (ascii ? offset : bytes.subarray(0, offset).toString('utf8').length);
  const ranges: Array<[number, number]> = [];
  for (const [start, end] of byteRanges) {
    const s = chars(start);
    if (s < MAX_LINE_CHARS) ranges.push([s, Math.min(chars(end), MAX_LINE_CHARS) - s]);
  }
  return ranges;
}

function isAscii(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! > 0x7f) return false;
  return true;
}
