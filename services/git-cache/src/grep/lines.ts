/**
 * Reading a grep engine's output line by line with bounded memory. A line of
 * output can be enormous (ripgrep's JSON for one match in a 5 MB minified
 * line, with every submatch, runs to tens of megabytes), so a line longer
 * than a limit is not buffered: from that point its bytes go to a sink that
 * keeps what it needs and drops the rest as it arrives.
 */

/** Receives the rest of an over-long line, piece by piece, then its end. */
export interface LineSink {
  push(piece: Buffer): void;
  end(): void;
}

/** Lines up to this many bytes are handed over whole; longer ones are streamed to a sink. */
const MAX_BUFFERED_LINE_BYTES = 2 ** 20;

/**
 * Returns a function to feed output chunks to: it calls `onLine` for each
 * `\n`-terminated line (without the `\n`) of at most `maxBytes`. For a longer
 * line, `onLong(start)` is called with the bytes received so far and returns
 * the sink that gets the rest of it.
 */
export function lineSplitter(
  onLine: (line: Buffer) => void,
  onLong: (start: Buffer) => LineSink,
  maxBytes = MAX_BUFFERED_LINE_BYTES,
): (chunk: Buffer) => void {
  let parts: Buffer[] = [];
  let length = 0;
  let sink: LineSink | undefined;
  return (chunk) => {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(10, from);
      const piece = chunk.subarray(from, newline === -1 ? chunk.length : newline);
      if (sink) {
        sink.push(piece);
      } else {
        parts.push(piece);
        length += piece.length;
        if (length > maxBytes) {
          sink = onLong(Buffer.concat(parts, length));
          parts = [];
          length = 0;
        }
      }
      if (newline === -1) break;
      if (sink) sink.end();
      else onLine(parts.length === 1 ? parts[0] : Buffer.concat(parts, length));
      parts = [];
      length = 0;
      sink = undefined;
      from = newline + 1;
    }
  };
}

/** A sink that keeps only the first `keep` bytes of a line and hands them over at its end. */
export function headOf(start: Buffer, keep: number, onEnd: (head: Buffer) => void): LineSink {
  let head = Buffer.from(start.subarray(0, keep));
  return {
    push(piece) {
      if (head.length < keep) head = Buffer.concat([head, piece.subarray(0, keep - head.length)]);
    },
    end: () => onEnd(head),
  };
}
