/**
 * ripgrep's `--json` messages, read with bounded memory. A normal message is
 * parsed whole. A message longer than the buffered-line limit — a match in a
 * multi-megabyte minified line, whose JSON repeats the line and lists every
 * submatch — is read in passing: its start gives the path and the first
 * bytes of the line, a scan for the end of the line's JSON string finds the
 * line number and the first submatches just after it, and the rest is dropped.
 */
import type { LineSink } from './lines.js';

/** A matching or context line as the collector wants it. */
export interface RgLine {
  type: 'match' | 'context';
  path: Buffer;
  lineNumber: number;
  /** The line, or (for a long one) at least its first `LINE_KEEP_BYTES` bytes. */
  line: Buffer;
  /** [start, end) byte offsets of submatches (for a long line, those near its start). */
  ranges: Array<[number, number]>;
}

export type RgEvent = RgLine | { type: 'summary'; searches: number | undefined } | { type: 'other' };

interface RgText {
  text?: string;
  bytes?: string;
}

interface RgMessage {
  type: string;
  data: {
    path?: RgText;
    lines?: RgText;
    line_number?: number;
    submatches?: Array<{ start: number; end: number }>;
    stats?: { searches: number };
  };
}

function decode(value: RgText | undefined): Buffer {
  if (!value) return Buffer.alloc(0);
  return value.text !== undefined ? Buffer.from(value.text, 'utf8') : Buffer.from(value.bytes ?? '', 'base64');
}

/** One complete message. */
export function parseMessage(raw: Buffer): RgEvent {
  const message = JSON.parse(raw.toString('utf8')) as RgMessage;
  if (message.type === 'match' || message.type === 'context') {
    return {
      type: message.type,
      path: decode(message.data.path),
      lineNumber: message.data.line_number ?? 0,
      line: decode(message.data.lines),
      ranges: (message.data.submatches ?? []).map((m) => [m.start, m.end]),
    };
  }
  if (message.type === 'summary') return { type: 'summary', searches: message.data.stats?.searches };
  return { type: 'other' };
}

/** Raw JSON kept from a long line's text: escaped, it still holds the 4,000 bytes the collector reads. */
const TEXT_KEEP = 64 * 1024;
/** Bytes kept after the text: line number and the submatches of the first thousand characters. */
const AFTER_KEEP = 256 * 1024;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const START = /^\{"type":"(match|context)","data":\{"path":(\{"(?:text|bytes)":"(?:[^"\\]|\\.)*"\}),"lines":\{"(text|bytes)":"/;

/**
 * The sink for a message too long to buffer. `done` gets the line, or
 * `undefined` when the message is not a match/context line (or not one this
 * reader understands: the caller reports it rather than guessing).
 */
export function longMessage(start: Buffer, done: (line: RgLine | undefined) => void): LineSink {
  const opening = START.exec(start.toString('latin1', 0, Math.min(start.length, 8192)));
  if (!opening) {
    return { push: () => undefined, end: () => done(undefined) };
  }
  const textStart = opening[0].length;
  const text: Buffer[] = [];
  let textLength = 0;
  let after: Buffer[] | undefined;
  let afterLength = 0;
  let backslashes = 0; // backslashes just before the next byte to scan, carried across pieces

  const keep = (into: Buffer[], piece: Buffer, room: number): number => {
    if (room <= 0 || piece.length === 0) return 0;
    const kept = Buffer.from(piece.subarray(0, room));
    into.push(kept);
    return kept.length;
  };

  /** Looks for the quote that ends the line's JSON string; returns its index in `piece`, or -1. */
  const scan = (piece: Buffer, from: number): number => {
    let at = from;
    for (;;) {
      const quote = piece.indexOf(QUOTE, at);
      const end = quote === -1 ? piece.length : quote;
      let run = 0;
      while (end - run - 1 >= at && piece[end - run - 1] === BACKSLASH) run++;
      if (end - run === at) run += backslashes;
      if (quote === -1) {
        backslashes = run;
        return -1;
      }
      backslashes = 0;
      if (run % 2 === 0) return quote;
      at = quote + 1;
    }
  };

  /** Text bytes go to `text` until its closing quote, what follows to `after`; both capped. */
  const feed = (piece: Buffer, from: number) => {
    if (after) {
      afterLength += keep(after, piece.subarray(from), AFTER_KEEP - afterLength);
      return;
    }
    const quote = scan(piece, from);
    textLength += keep(text, piece.subarray(from, quote === -1 ? piece.length : quote), TEXT_KEEP - textLength);
    if (quote === -1) return;
    after = [];
    afterLength += keep(after, piece.subarray(quote + 1), AFTER_KEEP);
  };

  feed(start, textStart);
  return {
    push: (piece) => feed(piece, 0),
    end: () => {
      const tail = after ? Buffer.concat(after, afterLength).toString('latin1') : '';
      const lineNumber = /^\},"line_number":(\d+)/.exec(tail);
      if (!lineNumber) return done(undefined);
      const ranges: Array<[number, number]> = [];
      for (const m of tail.matchAll(/"start":(\d+),"end":(\d+)\}/g)) ranges.push([Number(m[1]), Number(m[2])]);
      done({
        type: opening[1] as 'match' | 'context',
        path: decode(JSON.parse(Buffer.from(opening[2], 'latin1').toString('utf8')) as RgText),
        lineNumber: Number(lineNumber[1]),
        line: (opening[3] === 'bytes' ? base64Prefix : jsonStringPrefix)(Buffer.concat(text, textLength)),
        ranges,
      });
    },
  };
}

/** The bytes of the start of a JSON string's content, cut anywhere (a dangling escape is dropped). */
function jsonStringPrefix(raw: Buffer): Buffer {
  const source = raw.toString('utf8').replace(/(?<!\\)((?:\\\\)*)\\(?:u[0-9a-fA-F]{0,3})?$/, '$1');
  return Buffer.from(JSON.parse(`"${source}"`) as string, 'utf8');
}

function base64Prefix(raw: Buffer): Buffer {
  const source = raw.toString('latin1');
  return Buffer.from(source.slice(0, source.length - (source.length % 4)), 'base64');
}
