/** A scored key, as the local index's lists hold them (a chunk's key; a document's number in the postings). */
export interface Scored<K = bigint> {
  key: K;
  score: number;
}

/**
 * The best `k` scored keys of lists offered one after another (one repository's after another's), without holding
 * them all: a search over a thousand repositories offered 50 of each, 50,000 objects to sort for 50 kept. The answer
 * is what sorting every list offered together would give, best first, ties in the order offered. `floor` is the score
 * a key must beat to be kept: a repository's own search can leave out what scores no more.
 */
export class TopK<K = bigint> {
  /** The kept ones, the worst at the root: lowest score first, and among equal scores the last offered. */
  private readonly heap: Array<Scored<K> & { seq: number }> = [];
  private offered = 0;

  constructor(private readonly k: number) {}

  /** The score a key must beat to be kept: -Infinity until k are held. */
  get floor(): number {
    return this.heap.length < this.k ? -Infinity : this.heap[0].score;
  }

  offer(key: K, score: number): void {
    if (this.k <= 0) return;
    const entry = { key, score, seq: this.offered++ };
    const heap = this.heap;
    if (heap.length < this.k) {
      heap.push(entry);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!worse(heap[i], heap[parent])) break;
        [heap[i], heap[parent]] = [heap[parent], heap[i]];
        i = parent;
      }
      return;
    }
    if (score <= heap[0].score) return;
    heap[0] = entry;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l], heap[m])) m = l;
      if (r < heap.length && worse(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  }

  offerAll(list: readonly Scored<K>[]): void {
    for (const { key, score } of list) this.offer(key, score);
  }

  /** The kept ones, best first (ties in the order offered). */
  sorted(): Scored<K>[] {
    return [...this.heap].sort((a, b) => b.score - a.score || a.seq - b.seq).map(({ key, score }) => ({ key, score }));
  }
}

function worse(a: { score: number; seq: number }, b: { score: number; seq: number }): boolean {
  return a.score < b.score || (a.score === b.score && a.seq > b.seq);
}
