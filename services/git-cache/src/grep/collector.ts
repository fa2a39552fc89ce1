import type { GrepRepository } from '@sextant/contracts';

export type GrepResult = Omit<GrepRepository.Response, 'ref'>;
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
  /** Size budget of the answer (JSON bytes of its matches): it must fit in one bus message. */
  maxResultBytes: number;
  timeoutMs: number;
}

export interface GrepEngine {
  readonly name: 'ripgrep' | 'git-grep';
  search(dir: string, query: GrepQuery): Promise<GrepResult>;
}

/** GREP_MAX_RESULT_BYTES's default: room under NATS's default 1 MiB message for the rest of the reply. */
export const DEFAULT_MAX_RESULT_BYTES = 768 * 1024;

/** Long lines (minified code) are cut to this many characters; ranges past the cut are dropped. */
const MAX_LINE_CHARS = 1_000;

/**
 * Bytes of a line that are ever looked at: enough for MAX_LINE_CHARS UTF-16
 * units of any UTF-8 text (at least one unit per 3 bytes). The rest of a long
 * line is never decoded, so a 5 MB minified line costs no more than a short one.
 */
export const MAX_LINE_BYTES = MAX_LINE_CHARS * 4;

/**
 * Builds the `grep_repository` result from an engine's stream of matching and
 * context lines, keeping at most `maxMatches` matching lines in memory. Ranges
 * are `[start, length]` in UTF-16 code units of the line (JavaScript string
 * indices), converted from the engines' byte offsets. Every step is linear in
 * the (cut) line, whatever the number of matches on it.
 */
export class MatchCollector {
  private readonly files: FileMatches[] = [];
  private readonly byPath = new Map<string, FileMatches>();
  private current: FileMatches | undefined;
  /** Context lines seen in the current file, for the next match's `context_before`. */
  private recentContext: Array<{ n: number; text: string }> = [];
  private matchedLines = 0;
  /** JSON bytes of what was collected so far, against `maxResultBytes`. */
  private bytes = 0;
  private cutForSize = false;
  /** Matching lines the engine reported in a form that could not be read (see `skipUnreadable`). */
  private unreadable = 0;
  truncated = false;

  constructor(private readonly query: GrepQuery) {}

  /** False once the cap is reached: the engine should stop. */
  get wantsMore(): boolean {
    return !this.truncated;
  }

  get count(): number {
    return this.matchedLines;
  }

  /** `byteRanges` are [start, end) byte offsets into `rawLine`, in ascending order. */
  match(path: string, lineNumber: number, rawLine: Buffer, byteRanges: Array<[number, number]>): void {
    if (this.matchedLines >= this.query.maxMatches) {
      this.truncated = true;
      return;
    }
    const head = rawLine.subarray(0, MAX_LINE_BYTES);
    const text = lineText(head);
    const entry: LineMatch = { line_number: lineNumber, line: text, ranges: toCharRanges(head, byteRanges) };
    const file = this.fileFor(path);
    const n = this.query.contextLines;
    if (n > 0) {
      entry.context_before = this.recentContext.filter((c) => c.n >= lineNumber - n && c.n < lineNumber).map((c) => c.text);
      entry.context_after = [];
    }
    const pathBytes = file.line_matches.length === 0 ? Buffer.byteLength(file.path) + 40 : 0;
    if (!this.fits(Buffer.byteLength(JSON.stringify(entry)) + pathBytes + this.contextCost(text))) return;
    // A matching line is also a neighbouring line of the matches around it (as git grep and `grep -C` show it).
    this.asContext(file, lineNumber, text);
    file.line_matches.push(entry);
    this.matchedLines++;
  }

  context(path: string, lineNumber: number, rawLine: Buffer): void {
    if (this.query.contextLines === 0) return;
    const file = this.fileFor(path);
    const text = lineText(rawLine.subarray(0, MAX_LINE_BYTES));
    if (!this.fits(this.contextCost(text))) return;
    this.asContext(file, lineNumber, text);
  }

  /** Bytes a line may add as context: it can be copied into up to `contextLines` neighbours (before and after). */
  private contextCost(text: string): number {
    return this.query.contextLines === 0 ? 0 : Buffer.byteLength(JSON.stringify(text)) * this.query.contextLines;
  }

  /** Records line `lineNumber` as a neighbour: after-context of the matches above it, before-context of those to come. */
  private asContext(file: FileMatches, lineNumber: number, text: string): void {
    // Matches arrive in line order: only the last few can be within reach of this line.
    for (let i = file.line_matches.length - 1; i >= 0; i--) {
      const m = file.line_matches[i];
      if (m.line_number < lineNumber - this.query.contextLines) break;
      if (lineNumber > m.line_number) m.context_after!.push(text);
    }
    this.recentContext.push({ n: lineNumber, text });
    if (this.recentContext.length > this.query.contextLines) this.recentContext.shift();
  }

  /** Counts `bytes` against the size budget; once past it, collection stops as if max_matches were reached. */
  private fits(bytes: number): boolean {
    if (this.bytes + bytes > this.query.maxResultBytes) {
      this.truncated = true;
      this.cutForSize = true;
      return false;
    }
    this.bytes += bytes;
    return true;
  }

  /** A matching line whose engine output could not be read: counted, and reported in `notes` rather than lost silently. */
  skipUnreadable(): void {
    this.unreadable++;
  }

  result(stats: { filesSearched: number | undefined; elapsedMs: number }): GrepResult {
    const notes = this.notes();
    // A file whose context arrived but whose match did not fit the budget has nothing to show.
    const matches = this.files.filter((file) => file.line_matches.length > 0);
    return {
      matches,
      stats: {
        // When the search stopped early the engine's own count is missing: report the files seen so far.
        files_searched: stats.filesSearched ?? matches.length,
        total_matches: this.matchedLines,
        files_with_matches: matches.length,
        execution_time_ms: Math.round(stats.elapsedMs * 100) / 100,
      },
      truncated: this.truncated,
      ...(notes.length > 0 ? { notes } : {}),
    };
  }

  private notes(): string[] {
    const notes: string[] = [];
    if (this.cutForSize) {
      notes.push(
        `The answer was cut at ${this.matchedLines} matching lines to stay under ${this.query.maxResultBytes} bytes (GREP_MAX_RESULT_BYTES); narrow the pattern, file_extensions or exclude_dirs for the rest.`,
      );
    }
    if (this.unreadable > 0) notes.push(`${this.unreadable} matching line(s) could not be read from the engine's output and were skipped.`);
    return notes;
  }

  private fileFor(path: string): FileMatches {
    const name = clean(path);
    if (this.current?.path !== name) {
      let file = this.byPath.get(name);
      if (!file) {
        file = { path: name, line_matches: [] };
        this.byPath.set(name, file);
        this.files.push(file);
      }
      this.current = file;
      this.recentContext = [];
    }
    return this.current;
  }
}

function clean(path: string): string {
  return path.startsWith('./') ? path.slice(2) : path;
}

function lineText(head: Buffer): string {
  const line = head.toString('utf8');
  const withoutLf = line.endsWith('\n') ? line.slice(0, -1) : line;
  const trimmed = withoutLf.endsWith('\r') ? withoutLf.slice(0, -1) : withoutLf;
  return trimmed.length > MAX_LINE_CHARS ? trimmed.slice(0, MAX_LINE_CHARS) : trimmed;
}

/** Byte ranges → [start, length] in UTF-16 units, for the ranges that start within the cut line. */
function toCharRanges(head: Buffer, byteRanges: Array<[number, number]>): Array<[number, number]> {
  const units = isAscii(head) ? undefined : utf16Offsets(head);
  const chars = (offset: number) => (units ? units[Math.min(offset, head.length)] : Math.min(offset, head.length));
  const ranges: Array<[number, number]> = [];
  for (const [start, end] of byteRanges) {
    const s = chars(start);
    if (start >= head.length || s >= MAX_LINE_CHARS) break;
    ranges.push([s, Math.min(chars(end), MAX_LINE_CHARS) - s]);
  }
  return ranges;
}

/** For each byte offset of UTF-8 `bytes`, the UTF-16 units before it (lead bytes count; 4-byte sequences count two). */
function utf16Offsets(bytes: Buffer): Uint32Array {
  const units = new Uint32Array(bytes.length + 1);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    units[i + 1] = units[i] + ((b & 0xc0) === 0x80 ? 0 : b >= 0xf0 ? 2 : 1);
  }
  return units;
}

function isAscii(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] > 0x7f) return false;
  return true;
}
