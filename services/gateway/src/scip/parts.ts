/**
 * Cuts a stream of chunks into parts of exactly `size` bytes (the last one shorter), holding less than one part and
 * one chunk at a time: what an upload sends as one bus message each (ADR 0056).
 */
export class Parts {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly size: number) {}

  /** Takes a chunk; returns the whole parts it completes, in order. */
  push(chunk: Buffer): Buffer[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes < this.size) return [];
    const whole = Buffer.concat(this.pending);
    const parts: Buffer[] = [];
    let at = 0;
    for (; whole.length - at >= this.size; at += this.size) parts.push(whole.subarray(at, at + this.size));
    this.pending = at < whole.length ? [whole.subarray(at)] : [];
    this.pendingBytes = whole.length - at;
    return parts;
  }

  /** What is left once the stream ended: the last part, or undefined. */
  rest(): Buffer | undefined {
    return this.pendingBytes > 0 ? Buffer.concat(this.pending) : undefined;
  }
}
