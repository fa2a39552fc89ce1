/**
 * An inverted index of one repository's chunks for BM25 ranking in this
 * process (the `local` store, ADR 0022): for each term, the chunks holding it
 * with the term's weighted frequency. Postings sit in a few compact segments
 * (CSR: sorted term numbers → offsets → entries), each at most half the size
 * of the one before, so an entry is copied a logarithmic number of times;
 * new chunks collect in a small tail that becomes a segment once it fills.
 * Removed chunks are skipped until they are a quarter of all, when every
 * segment is merged into one without them. An entry packs a chunk's number
 * and its term frequency into one integer (`doc << 8 | tf`).
 */
import { TopK } from '../store/top-k.js';

/** A term's weighted frequency in a chunk: body occurrences plus HEADER_WEIGHT × header (path, symbol) ones, at most 255. */
export type TermCounts = Map<string, number>;

/** A header occurrence (path words, the symbol's name) counts as this many body occurrences (BM25F-style field weight). */
export const HEADER_WEIGHT = 3;
/** BM25's term-frequency saturation and length normalization. */
export const K1 = 1.2;
export const B = 0.75;
const MAX_TF = 255;
/** Chunks per repository index: an entry keeps 24 bits for the chunk's number. */
const MAX_DOCS = 1 << 24;
/** The tail becomes a segment when it holds this many entries. */
const TAIL_MAX = 200_000;
/** Removed chunks are dropped by a full merge once they are this share of all (and at least DEAD_MIN). */
const DEAD_SHARE = 0.25;
const DEAD_MIN = 10_000;
const FORMAT = 2;

/**
 * The term counts of a `tsvector` text: ours (`'retry':1A,5D`) or Postgres's
 * output of it (`'retry':1A,5`, weight D unwritten). Positions without a
 * weight letter, or `D`, are body occurrences; A–C header ones.
 */
export function termCounts(tsvector: string): TermCounts {
  const counts: TermCounts = new Map();
  const n = tsvector.length;
  let i = 0;
  while (i < n) {
    while (i < n && tsvector[i] === ' ') i++;
    if (i >= n) break;
    let term = '';
    if (tsvector[i] === "'") {
      i++;
      while (i < n) {
        const c = tsvector[i];
        if (c === '\\' && i + 1 < n) {
          term += tsvector[i + 1];
          i += 2;
        } else if (c === "'") {
          if (tsvector[i + 1] === "'") {
            term += "'";
            i += 2;
          } else {
            i++;
            break;
          }
        } else {
          term += c;
          i++;
        }
      }
    } else {
      const end = tsvector.indexOf(' ', i);
      const stop = end < 0 ? n : end;
      const colon = tsvector.lastIndexOf(':', stop);
      term = tsvector.slice(i, colon > i ? colon : stop);
      i = colon > i ? colon : stop;
    }
    let tf = 0;
    if (tsvector[i] === ':') {
      i++;
      while (i < n && tsvector[i] !== ' ') {
        while (i < n && tsvector[i] >= '0' && tsvector[i] <= '9') i++;
        const weight = tsvector[i];
        if (weight === 'A' || weight === 'B' || weight === 'C') {
          tf += HEADER_WEIGHT;
          i++;
        } else {
          tf += 1;
          if (weight === 'D') i++;
        }
        if (tsvector[i] === ',') i++;
      }
    } else tf = 1;
    if (term) counts.set(term, Math.min(MAX_TF, (counts.get(term) ?? 0) + tf));
  }
  return counts;
}

/** A query term with its inverse document frequency over the whole scope searched. */
export interface WeightedTerm {
  term: string;
  idf: number;
}

/**
 * BM25's term weight without the idf: `tf` saturated, normalized by the
 * chunk's length against the average (the value a sparse vector holds for
 * a term, when the store applies the idf).
 */
export function saturated(tf: number, length: number, average: number): number {
  return ((K1 + 1) * tf) / (tf + K1 * (1 - B + (B * length) / average));
}

/** BM25's inverse document frequency of a term held by `df` of `n` chunks. */
export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** Compact postings: `terms` (ascending term numbers); entries of `terms[i]` are `entries[offsets[i]..offsets[i + 1]]`. */
interface Segment {
  terms: Int32Array;
  offsets: Uint32Array;
  entries: Uint32Array;
}

/** A file-level search's view of one index (`Postings.fileMatches`). */
export interface FileMatches {
  /** Per query term: its number here (undefined: no chunk holds it), and how many files hold it. */
  terms: Array<{ term: string; id: number | undefined; files: number }>;
  /** The path prefix's files, by path number (null: every file). */
  allowed: Uint8Array | null;
  /** Files present (among the path prefix's), and their lengths summed. */
  files: number;
  length: number;
  /** Each file's length (its chunks' summed), by path number. */
  fileLength: Float64Array;
}

export class Postings {
  // Chunks, by number: key (the row's identity), path, length (sum of its term frequencies), whether present.
  private keys = new Float64Array(1024);
  private pathOf = new Uint32Array(1024);
  private lengths = new Uint32Array(1024);
  private alive = new Uint8Array(1024);
  private docs = 0;
  private live = 0;
  /** Every file's length while no chunk comes or goes (a file-level search reads it each time). */
  private wholeFiles: { fileLength: Float64Array; files: number; length: number } | undefined;
  private liveLength = 0;
  private readonly docOfKey = new Map<number, number>();
  private paths: string[] = [];
  private pathIds = new Map<string, number>();
  // Terms, numbered in order of first sight.
  private termIds = new Map<string, number>();
  private termNames: string[] = [];
  // Segments, largest first; the tail: term number → entries added since the last segment was made.
  private segments: Segment[] = [];
  private tail = new Map<number, number[]>();
  private tailSize = 0;

  /** `tailMax`: entries the tail holds before it becomes a segment (TAIL_MAX; smaller in tests, to exercise merging). */
  constructor(private readonly tailMax = TAIL_MAX) {}

  /** Chunks present. */
  get size(): number {
    return this.live;
  }

  add(key: bigint, path: string, counts: TermCounts): void {
    const k = Number(key);
    if (this.docOfKey.has(k)) this.remove(key);
    if (this.docs >= MAX_DOCS) this.merge();
    if (this.docs >= MAX_DOCS) throw new Error(`a repository's lexical index holds at most ${MAX_DOCS} chunks`);
    if (this.docs === this.keys.length) this.grow(this.docs * 2);
    let pathId = this.pathIds.get(path);
    if (pathId === undefined) {
      pathId = this.paths.push(path) - 1;
      this.pathIds.set(path, pathId);
    }
    const doc = this.docs++;
    let length = 0;
    for (const [term, tf] of counts) {
      let id = this.termIds.get(term);
      if (id === undefined) {
        id = this.termNames.push(term) - 1;
        this.termIds.set(term, id);
      }
      const entry = doc * 256 + Math.min(tf, MAX_TF);
      const list = this.tail.get(id);
      if (list) list.push(entry);
      else this.tail.set(id, [entry]);
      length += tf;
    }
    this.tailSize += counts.size;
    this.keys[doc] = k;
    this.pathOf[doc] = pathId;
    this.lengths[doc] = length;
    this.alive[doc] = 1;
    this.docOfKey.set(k, doc);
    this.live++;
    this.wholeFiles = undefined;
    this.liveLength += length;
    if (this.tailSize >= this.tailMax) this.flush();
  }

  /** Whether the chunk was there. */
  remove(key: bigint): boolean {
    const k = Number(key);
    const doc = this.docOfKey.get(k);
    if (doc === undefined) return false;
    this.docOfKey.delete(k);
    this.alive[doc] = 0;
    this.live--;
    this.wholeFiles = undefined;
    this.liveLength -= this.lengths[doc];
    const dead = this.docs - this.live;
    if (dead >= DEAD_MIN && dead >= this.docs * DEAD_SHARE) this.merge();
    return true;
  }

  /** Chunks holding the term (removed ones still counted until the next full merge: a close estimate). */
  df(term: string): number {
    const id = this.termIds.get(term);
    if (id === undefined) return 0;
    let n = this.tail.get(id)?.length ?? 0;
    for (const segment of this.segments) {
      const i = find(segment.terms, id);
      if (i >= 0) n += segment.offsets[i + 1] - segment.offsets[i];
    }
    return n;
  }

  /**
   * The `k` best chunks by BM25 over `query` (idf given: it is the scope's,
   * not this repository's), among those whose path starts with `pathPrefix`;
   * only those scoring above `floor` (a search over many repositories: what the
   * others already beat).
   */
  top(query: readonly WeightedTerm[], k: number, pathPrefix: string | null, floor = 0): Array<{ key: bigint; score: number }> {
    if (this.live === 0 || k <= 0) return [];
    const allowed = pathPrefix === null ? null : Uint8Array.from(this.paths, (p) => (p.startsWith(pathPrefix) ? 1 : 0));
    const scores = new Float32Array(this.docs);
    const average = this.liveLength / this.live;
    const { alive, pathOf, lengths } = this;
    for (const { term, idf: w } of query) {
      const id = this.termIds.get(term);
      if (id === undefined) continue;
      const weight = w * (K1 + 1);
      this.each(id, (entry) => {
        const doc = entry >>> 8;
        if (!alive[doc] || (allowed !== null && !allowed[pathOf[doc]])) return;
        const tf = entry & 255;
        scores[doc] += (weight * tf) / (tf + K1 * (1 - B + (B * lengths[doc]) / average));
      });
    }
    return best(scores, k, floor).map(({ doc, score }) => ({ key: BigInt(this.keys[doc]), score }));
  }

  /**
   * For a file-level search (whole files as documents, their chunks' term counts summed): each term's live entries
   * among `pathPrefix`'s files and how many files hold it; the files present and their summed length.
   */
  fileMatches(terms: readonly string[], pathPrefix: string | null): FileMatches {
    const { alive, pathOf } = this;
    const allowed = pathPrefix === null ? null : Uint8Array.from(this.paths, (p) => (p.startsWith(pathPrefix) ? 1 : 0));
    const { fileLength, files, length } = (allowed === null ? this.wholeFiles : undefined) ?? this.fileLengths(allowed);
    if (allowed === null) this.wholeFiles = { fileLength, files, length };
    const seen = new Int32Array(this.paths.length).fill(-1);
    const matches = terms.map((term, t) => {
      const id = this.termIds.get(term);
      let holding = 0;
      if (id !== undefined) {
        this.each(id, (entry) => {
          const doc = entry >>> 8;
          if (!alive[doc] || (allowed !== null && !allowed[pathOf[doc]])) return;
          if (seen[pathOf[doc]] !== t) {
            seen[pathOf[doc]] = t;
            holding++;
          }
        });
      }
      return { term, id, files: holding };
    });
    return { terms: matches, allowed, files, length, fileLength };
  }

  /** Each file's length (its live chunks' summed), among the `allowed` paths (null: all); the files and their total. */
  private fileLengths(allowed: Uint8Array | null): { fileLength: Float64Array; files: number; length: number } {
    const { alive, pathOf, lengths } = this;
    const fileLength = new Float64Array(this.paths.length);
    for (let doc = 0; doc < this.docs; doc++) {
      if (alive[doc] && (allowed === null || allowed[pathOf[doc]])) fileLength[pathOf[doc]] += lengths[doc];
    }
    let files = 0;
    let length = 0;
    for (const l of fileLength) {
      if (l > 0) {
        files++;
        length += l;
      }
    }
    return { fileLength, files, length };
  }

  /**
   * The `k` best files by BM25 over whole files (`idfs` per term of `found`, the scope's; `average` its mean file
   * length), each as its best chunk's key (the chunk scoring highest on the same terms); only files scoring above
   * `floor`, as `top`.
   */
  topFiles(found: FileMatches, idfs: readonly number[], average: number, k: number, floor = 0): Array<{ key: bigint; score: number }> {
    if (k <= 0 || found.files === 0) return [];
    const { alive, pathOf, lengths } = this;
    const { allowed } = found;
    const scores = new Float32Array(this.paths.length);
    const chunkScores = new Float32Array(this.docs);
    const tf = new Float64Array(this.paths.length);
    const chunkAverage = this.liveLength / Math.max(1, this.live);
    const used = found.terms.flatMap(({ id }, t) => (id !== undefined && idfs[t] > 0 ? [{ id, w: idfs[t] * (K1 + 1) }] : []));
    for (const { id, w } of used) {
      const touched: number[] = [];
      this.each(id, (entry) => {
        const doc = entry >>> 8;
        const file = pathOf[doc];
        if (!alive[doc] || (allowed !== null && !allowed[file])) return;
        const n = entry & 255;
        if (tf[file] === 0) touched.push(file);
        tf[file] += n;
        chunkScores[doc] += (w * n) / (n + K1 * (1 - B + (B * lengths[doc]) / chunkAverage));
      });
      for (const file of touched) {
        scores[file] += (w * tf[file]) / (tf[file] + K1 * (1 - B + (B * found.fileLength[file]) / average));
        tf[file] = 0;
      }
    }
    const top = best(scores, k, floor);
    // Each top file's best chunk: -1 marks a top file not yet given one; other files stay -2.
    const bestDoc = new Int32Array(this.paths.length).fill(-2);
    for (const { doc: file } of top) bestDoc[file] = -1;
    for (const { id } of used) {
      this.each(id, (entry) => {
        const doc = entry >>> 8;
        const file = pathOf[doc];
        const held = bestDoc[file];
        if (held === -2 || !alive[doc] || chunkScores[doc] <= 0) return;
        if (held === -1 || chunkScores[doc] > chunkScores[held]) bestDoc[file] = doc;
      });
    }
    return top.map(({ doc: file, score }) => ({ key: BigInt(this.keys[bestDoc[file]]), score }));
  }

  /** Every entry of a term: in each segment, then in the tail. */
  private each(id: number, visit: (entry: number) => void): void {
    for (const { terms, offsets, entries } of this.segments) {
      const i = find(terms, id);
      if (i >= 0) for (let e = offsets[i], end = offsets[i + 1]; e < end; e++) visit(entries[e]);
    }
    for (const entry of this.tail.get(id) ?? []) visit(entry);
  }

  /** The tail becomes the newest segment; then the newest two merge while the newer is at least half the older. */
  private flush(): void {
    if (this.tailSize === 0) return;
    const ids = Int32Array.from(this.tail.keys()).sort();
    const offsets = new Uint32Array(ids.length + 1);
    const entries = new Uint32Array(this.tailSize);
    let at = 0;
    ids.forEach((id, i) => {
      offsets[i] = at;
      for (const entry of this.tail.get(id)!) entries[at++] = entry;
    });
    offsets[ids.length] = at;
    this.segments.push({ terms: ids, offsets, entries });
    this.tail = new Map();
    this.tailSize = 0;
    const s = this.segments;
    while (s.length >= 2 && s.at(-1)!.entries.length * 2 >= s.at(-2)!.entries.length) {
      const newer = s.pop()!;
      s.push(mergeSegments([s.pop()!, newer], this.alive));
    }
  }

  /** Merges everything into one segment without removed chunks, renumbering the rest (paths and terms too). */
  merge(): void {
    this.flush();
    const renumber = new Int32Array(this.docs).fill(-1);
    const paths: string[] = [];
    const pathIds = new Map<string, number>();
    let next = 0;
    for (let d = 0; d < this.docs; d++) {
      if (!this.alive[d]) continue;
      renumber[d] = next;
      const path = this.paths[this.pathOf[d]];
      let id = pathIds.get(path);
      if (id === undefined) {
        id = paths.push(path) - 1;
        pathIds.set(path, id);
      }
      // next ≤ d: each chunk moves down over one already read.
      this.keys[next] = this.keys[d]!;
      this.pathOf[next] = id;
      this.lengths[next] = this.lengths[d]!;
      this.alive[next] = 1;
      next++;
    }
    const merged = mergeSegments(
      this.segments,
      Uint8Array.from(renumber, (r) => (r >= 0 ? 1 : 0)),
      renumber,
    );
    this.alive.fill(0, next);
    // Terms no chunk holds any more are forgotten; the rest are renumbered in order.
    const termNames: string[] = [];
    const termIds = new Map<string, number>();
    const terms = new Int32Array(merged.terms.length);
    merged.terms.forEach((old, i) => {
      const name = this.termNames[old];
      terms[i] = termNames.push(name) - 1;
      termIds.set(name, terms[i]);
    });
    this.segments = merged.entries.length > 0 ? [{ ...merged, terms }] : [];
    this.termNames = termNames;
    this.termIds = termIds;
    this.paths = paths;
    this.pathIds = pathIds;
    this.docs = next;
    this.wholeFiles = undefined;
    this.docOfKey.clear();
    for (let d = 0; d < next; d++) this.docOfKey.set(this.keys[d], d);
  }

  /**
   * The index as parts of one file: a JSON header, then its arrays — the
   * chunks, then each segment as it is (the tail becomes one first). Not
   * merged, and not copied: the parts view the index's own arrays, valid
   * until its next change.
   */
  parts(): Uint8Array[] {
    this.flush();
    const header = Buffer.from(
      JSON.stringify({
        format: FORMAT,
        docs: this.docs,
        live: this.live,
        liveLength: this.liveLength,
        paths: this.paths,
        terms: this.termNames.join('\n'),
        segments: this.segments.map((segment) => ({ terms: segment.terms.length, entries: segment.entries.length })),
      }),
    );
    const n = this.docs;
    const arrays: ArrayBufferView[] = [
      this.keys.subarray(0, n),
      this.pathOf.subarray(0, n),
      this.lengths.subarray(0, n),
      this.alive.subarray(0, n),
    ];
    for (const segment of this.segments) arrays.push(segment.terms, segment.offsets, segment.entries);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length);
    return [length, header, ...arrays.map((a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength))];
  }

  /** The index as bytes (`parts`, joined). */
  serialize(): Buffer {
    return Buffer.concat(this.parts());
  }

  static deserialize(bytes: Buffer): Postings {
    const headerLength = bytes.readUInt32LE(0);
    const header = JSON.parse(bytes.subarray(4, 4 + headerLength).toString('utf8')) as {
      format: number;
      docs: number;
      live: number;
      liveLength: number;
      paths: string[];
      terms: string;
      segments: Array<{ terms: number; entries: number }>;
    };
    if (header.format !== FORMAT) throw new Error(`lexical index format ${header.format}, expected ${FORMAT}`);
    let at = 4 + headerLength;
    const take = <T>(make: (buffer: ArrayBuffer) => T, bytesPer: number, count: number): T => {
      const end = at + bytesPer * count;
      if (end > bytes.length) throw new Error('lexical index file is truncated');
      const copy = new Uint8Array(bytesPer * count);
      copy.set(bytes.subarray(at, end));
      at = end;
      return make(copy.buffer);
    };
    const p = new Postings();
    const docs = header.docs;
    p.grow(Math.max(1024, docs));
    p.keys.set(take((b) => new Float64Array(b), 8, docs));
    p.pathOf.set(take((b) => new Uint32Array(b), 4, docs));
    p.lengths.set(take((b) => new Uint32Array(b), 4, docs));
    p.alive.set(take((b) => new Uint8Array(b), 1, docs));
    p.segments = header.segments.map((segment) => ({
      terms: take((b) => new Int32Array(b), 4, segment.terms),
      offsets: take((b) => new Uint32Array(b), 4, segment.terms + 1),
      entries: take((b) => new Uint32Array(b), 4, segment.entries),
    }));
    if (at !== bytes.length) throw new Error('lexical index file has trailing bytes');
    p.termNames = header.terms === '' ? [] : header.terms.split('\n');
    p.termNames.forEach((term, t) => p.termIds.set(term, t));
    p.paths = header.paths;
    header.paths.forEach((path, id) => p.pathIds.set(path, id));
    for (let d = 0; d < docs; d++) if (p.alive[d]) p.docOfKey.set(p.keys[d], d);
    p.docs = docs;
    p.live = header.live;
    p.liveLength = header.liveLength;
    return p;
  }

  private grow(capacity: number): void {
    const keys = new Float64Array(capacity);
    keys.set(this.keys.subarray(0, this.docs));
    const pathOf = new Uint32Array(capacity);
    pathOf.set(this.pathOf.subarray(0, this.docs));
    const lengths = new Uint32Array(capacity);
    lengths.set(this.lengths.subarray(0, this.docs));
    const alive = new Uint8Array(capacity);
    alive.set(this.alive.subarray(0, this.docs));
    Object.assign(this, { keys, pathOf, lengths, alive });
  }
}

/** The index of `id` in ascending `terms`, or -1. */
function find(terms: Int32Array, id: number): number {
  let lo = 0;
  let hi = terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const t = terms[mid];
    if (t === id) return mid;
    if (t < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * One segment of several: per term (ascending), their entries in order, of
 * chunks `keep` marks; with `renumber`, chunk numbers mapped through it.
 * Terms left without entries are dropped.
 */
function mergeSegments(segments: readonly Segment[], keep: Uint8Array, renumber?: Int32Array): Segment {
  const ids = new Set<number>();
  for (const s of segments) for (const t of s.terms) ids.add(t);
  const sorted = Int32Array.from(ids).sort();
  const bound = segments.reduce((n, s) => n + s.entries.length, 0);
  const terms = new Int32Array(sorted.length);
  const offsets = new Uint32Array(sorted.length + 1);
  const entries = new Uint32Array(bound);
  // Each segment's terms are ascending too: walk them in step with `sorted`.
  const positions = new Int32Array(segments.length);
  let at = 0;
  let kept = 0;
  for (const id of sorted) {
    const start = at;
    segments.forEach((s, j) => {
      const p = positions[j];
      if (p >= s.terms.length || s.terms[p] !== id) return;
      positions[j] = p + 1;
      for (let e = s.offsets[p], end = s.offsets[p + 1]; e < end; e++) {
        const entry = s.entries[e];
        const doc = entry >>> 8;
        if (keep[doc]) entries[at++] = renumber ? renumber[doc] * 256 + (entry & 255) : entry;
      }
    });
    if (at > start) {
      terms[kept] = id;
      offsets[kept++] = start;
    }
  }
  offsets[kept] = at;
  return {
    terms: terms.slice(0, kept),
    offsets: offsets.slice(0, kept + 1),
    entries: at === bound ? entries : entries.slice(0, at),
  };
}

/** The `k` highest scores above `floor` and above 0, best first (ties in document order). */
function best(scores: Float32Array, k: number, floor: number): Array<{ doc: number; score: number }> {
  const least = Math.max(0, floor);
  const top = new TopK<number>(k);
  for (let doc = 0; doc < scores.length; doc++) {
    const score = scores[doc];
    if (score > least && score > top.floor) top.offer(doc, score);
  }
  return top.sorted().map(({ key, score }) => ({ doc: key, score }));
}
