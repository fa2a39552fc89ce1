import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Logger } from '@nestjs/common';
import type usearchModule from 'usearch';
import { idf, Postings, type FileMatches, type TermCounts, type WeightedTerm } from '../lexical/postings.js';
import { TopK } from './top-k.js';

// usearch's ESM build cannot find its native prebuild on Node 20 (it looks for `__dirname`, walks to `/` and
// recurses forever); its CommonJS build resolves the prebuild next to itself, so we load that one.
const usearch = createRequire(import.meta.url)('usearch') as typeof usearchModule;

/** What the index of one repository must agree with: its chunks in Postgres (count and sum of their keys). */
interface KeyTally {
  count: number;
  sum: bigint;
}

/** A chunk as the local index holds it: its key, dense vector, path and term counts. */
export interface IndexedChunk {
  key: bigint;
  vector: Float32Array;
  path: string;
  terms: TermCounts;
}

/** Where an index that does not agree with Postgres is rebuilt from: the repository's chunks, page by page. */
export interface ChunkSource {
  tally(repositoryId: string): Promise<KeyTally>;
  /** Chunks with keys above `after`, ascending; at most `limit`. */
  page(repositoryId: string, after: bigint, limit: number): Promise<IndexedChunk[]>;
}

export interface LocalIndexOptions {
  /** The collection's directory: per repository, `<repository>.usearch` (vectors), `.postings` (terms) and `.json` (tally). */
  dir: string;
  dimension: number;
  source: ChunkSource;
  /**
   * Chunks held in memory at most, over every repository's index (VECTOR_LOCAL_CHUNKS_MAX): past it, the least
   * recently used indexes are saved and closed, and opened again from their files when a search or write needs them.
   * Unbounded when left out.
   */
  maxChunks?: number;
}

/** HNSW parameters: 16 links per node, 128 candidates while adding, 512 while searching (bench/search: recall@10 0.87 at 64, 0.94 at 256, 0.96 at 512 on 170k chunks). */
const CONNECTIVITY = 16;
const EXPANSION_ADD = 128;
const EXPANSION_SEARCH = 512;
const REBUILD_PAGE = 5_000;
/** While writes go on, indexes are saved at most this long after the first unsaved change (a crash costs a rebuild, not data). */
const SAVE_AT_MOST_MS = 30_000;
/** Changes are saved to disk this long after the last one (and at close). */
const SAVE_DELAY_MS = 2_000;

interface RepositoryIndex {
  index: InstanceType<typeof usearch.Index>;
  postings: Postings;
  tally: KeyTally;
  dirty: boolean;
}

/**
 * Search indexes in this process, per repository and collection: an HNSW
 * index of the dense vectors (USearch, cosine) and an inverted index of the
 * terms for BM25 (`Postings`), in memory and saved to the data directory.
 * The ranking a search merges across repositories weighs terms by the
 * whole scope's document frequencies.
 * Postgres stays the record — every chunk row holds its key and vector —
 * and each index file carries the tally (count, sum of keys) of the rows it
 * holds: keys only grow, so a file that missed a change after a crash no
 * longer matches and is rebuilt from Postgres when opened. Writes for a
 * repository are serialized (`write`), so the row change and the index
 * change happen in one order. One writer: the process that holds the data
 * directory's lock (ADRs 0021, 0022).
 */
export class LocalIndex {
  private readonly log = new Logger('LocalIndex');
  private readonly indexes = new Map<string, Promise<RepositoryIndex>>();
  /** The indexes in memory, least recently used first (a use moves one to the end). */
  private readonly loaded = new Map<string, RepositoryIndex>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private saveTimer: NodeJS.Timeout | undefined;
  private unsavedSince: number | undefined;

  constructor(private readonly options: LocalIndexOptions) {
    mkdirSync(options.dir, { recursive: true });
  }

  /**
   * Changes the repository's rows with `change` (a Postgres transaction that
   * returns the keys it removed and added) and then its index, after every
   * earlier write of the repository.
   */
  async write(repositoryId: string, change: () => Promise<{ removed: readonly bigint[]; added: readonly IndexedChunk[] }>): Promise<void> {
    // Opened first, so that a load never sees half a change.
    await this.open(repositoryId);
    await this.exclusive(repositoryId, async () => {
      const { removed, added } = await change();
      // Closed since it was opened (least recently used): its files lack this change, so its tally no longer matches
      // Postgres and the next open rebuilds it from there.
      const entry = this.loaded.get(repositoryId);
      if (!entry) return;
      if (removed.length > 0) {
        const keys = BigUint64Array.from(removed);
        const present = entry.index.contains(keys) as boolean[];
        entry.index.remove(keys);
        removed.forEach((key, i) => {
          entry.postings.remove(key);
          if (present[i]) {
            entry.tally.count--;
            entry.tally.sum -= key;
          }
        });
      }
      this.add(entry, added);
      entry.dirty = true;
    });
    this.scheduleSave();
    this.trim(repositoryId);
  }

  /** The nearest keys to `vector` in each repository's index, merged: best first, at most `k`. */
  async nearest(repositoryIds: readonly string[], vector: Float32Array, k: number): Promise<Array<{ key: bigint; score: number }>> {
    const top = new TopK(k);
    for (const id of repositoryIds) {
      const entry = await this.open(id);
      const size = entry.index.size();
      if (size === 0) continue;
      // One query is one task: on one thread. Left to choose (0), USearch hands it to a pool, 15 µs a call more
      // (bench/org: 15 ms of a search over 1,000 repositories).
      const { keys, distances } = entry.index.search(vector, Math.min(k, size), 1);
      for (let i = 0; i < keys.length; i++) {
        const score = 1 - distances[i];
        if (score > top.floor) top.offer(keys[i], score);
      }
    }
    return top.sorted();
  }

  /**
   * The best chunks for the query's words by BM25 across these
   * repositories: each word weighted by its inverse document frequency over
   * all of them (words none holds are dropped; at most `maxTerms`, the
   * rarest), each repository's best `k` merged. Over repositories not all in
   * memory, in two passes that each open one index at a time (the counts,
   * then each repository's best), so that memory stays under `maxChunks`.
   */
  async lexical(
    repositoryIds: readonly string[],
    words: readonly string[],
    k: number,
    pathPrefix: string | null,
    maxTerms: number,
  ): Promise<Array<{ key: bigint; score: number }>> {
    const weigh = (n: number, df: readonly number[]): WeightedTerm[] =>
      words
        .map((term, t) => ({ term, df: df[t] }))
        .filter((t) => t.df > 0)
        .sort((a, b) => a.df - b.df)
        .slice(0, maxTerms)
        .map((t) => ({ term: t.term, idf: idf(Math.max(n, t.df), t.df) }));
    if (this.inMemory(repositoryIds)) {
      const entries = await Promise.all(repositoryIds.map((id) => this.open(id)));
      const n = entries.reduce((sum, e) => sum + e.postings.size, 0);
      const query = weigh(
        n,
        words.map((term) => entries.reduce((sum, e) => sum + e.postings.df(term), 0)),
      );
      if (query.length === 0) return [];
      const top = new TopK(k);
      for (const e of entries) top.offerAll(e.postings.top(query, k, pathPrefix, top.floor));
      return top.sorted();
    }
    let n = 0;
    const df = words.map(() => 0);
    for (const id of repositoryIds) {
      const { postings } = await this.open(id);
      n += postings.size;
      words.forEach((term, t) => (df[t] += postings.df(term)));
    }
    const query = weigh(n, df);
    if (query.length === 0) return [];
    const top = new TopK(k);
    for (const id of repositoryIds) {
      const { postings } = await this.open(id);
      top.offerAll(postings.top(query, k, pathPrefix, top.floor));
    }
    return top.sorted();
  }

  /**
   * The best files for the query's words by BM25 over whole files (a file's chunks' term counts summed) across these
   * repositories, each as its best chunk: words weighted by their inverse file frequency over all of them (at most
   * `maxTerms`, the rarest), each repository's best `k` merged. The file-level list of hybrid search (ADR 0049). Over
   * repositories not all in memory, in two passes that each open one index at a time, as `lexical`.
   */
  async files(
    repositoryIds: readonly string[],
    words: readonly string[],
    k: number,
    pathPrefix: string | null,
    maxTerms: number,
  ): Promise<Array<{ key: bigint; score: number }>> {
    const together = this.inMemory(repositoryIds);
    const entries = together ? await Promise.all(repositoryIds.map((id) => this.open(id))) : [];
    const kept = together ? entries.map((e) => e.postings.fileMatches(words, pathPrefix)) : [];
    let files = 0;
    let length = 0;
    const df = words.map(() => 0);
    const count = (f: FileMatches) => {
      files += f.files;
      length += f.length;
      f.terms.forEach((term, t) => (df[t] += term.files));
    };
    if (together) kept.forEach(count);
    else for (const id of repositoryIds) count((await this.open(id)).postings.fileMatches(words, pathPrefix));
    if (files === 0) return [];
    const average = length / files;
    const used = words
      .map((_, t) => t)
      .filter((t) => df[t] > 0)
      .sort((a, b) => df[a] - df[b])
      .slice(0, maxTerms);
    if (used.length === 0) return [];
    const idfs = words.map((_, t) => (used.includes(t) ? idf(files, df[t]) : 0));
    const top = new TopK(k);
    if (together) entries.forEach((e, i) => top.offerAll(e.postings.topFiles(kept[i], idfs, average, k, top.floor)));
    else {
      for (const id of repositoryIds) {
        // Matched again with the index as it is now: the first pass's view of it may predate a write, or a reload.
        const { postings } = await this.open(id);
        top.offerAll(postings.topFiles(postings.fileMatches(words, pathPrefix), idfs, average, k, top.floor));
      }
    }
    return top.sorted();
  }

  /** Whether every one of these repositories' indexes is in memory (a search over them then opens none). */
  private inMemory(repositoryIds: readonly string[]): boolean {
    return repositoryIds.every((id) => this.loaded.has(id));
  }

  /** Vectors the repository's index holds. */
  async size(repositoryId: string): Promise<number> {
    return (await this.open(repositoryId)).index.size();
  }

  /** Forgets repositories: their indexes and files. */
  async drop(repositoryIds: readonly string[]): Promise<void> {
    for (const id of repositoryIds) {
      await this.exclusive(id, async () => {
        this.indexes.delete(id);
        this.loaded.delete(id);
        rmSync(this.file(id), { force: true });
        rmSync(this.postingsFile(id), { force: true });
        rmSync(this.tallyFile(id), { force: true });
      });
    }
  }

  /** Opens (loads or rebuilds) the indexes of these repositories ahead of the first search, as many as `maxChunks` holds. */
  async warm(repositoryIds: readonly string[]): Promise<void> {
    for (const id of repositoryIds) {
      if (this.chunksInMemory() >= (this.options.maxChunks ?? Infinity)) return;
      await this.open(id);
    }
  }

  /** Chunks the indexes in memory hold. */
  chunksInMemory(): number {
    let chunks = 0;
    for (const entry of this.loaded.values()) chunks += entry.tally.count;
    return chunks;
  }

  /** Repositories whose indexes are in memory. */
  repositoriesInMemory(): number {
    return this.loaded.size;
  }

  /** Saves what changed (closed indexes' saves included); then stops the timer. */
  async close(): Promise<void> {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    await this.save();
    await Promise.all(this.queues.values());
  }

  /** Saves every changed index (its files then its tally, each written aside and renamed into place). */
  async save(): Promise<void> {
    for (const [id, entry] of [...this.loaded]) {
      if (!entry.dirty) continue;
      await this.exclusive(id, () => this.saveEntry(id, entry));
    }
  }

  /** Writes one index's files (inside `exclusive`). */
  private async saveEntry(id: string, entry: RepositoryIndex): Promise<void> {
    if (!entry.dirty) return;
    entry.dirty = false;
    entry.index.save(`${this.file(id)}.tmp`);
    // Written part by part from the index's own arrays (no copy); no write changes them meanwhile (`exclusive`).
    const file = await open(`${this.postingsFile(id)}.tmp`, 'w');
    try {
      for (const part of entry.postings.parts()) {
        for (let done = 0; done < part.byteLength;) done += (await file.write(part, done)).bytesWritten;
      }
    } finally {
      await file.close();
    }
    renameSync(`${this.file(id)}.tmp`, this.file(id));
    renameSync(`${this.postingsFile(id)}.tmp`, this.postingsFile(id));
    writeFileSync(`${this.tallyFile(id)}.tmp`, JSON.stringify({ count: entry.tally.count, sum: String(entry.tally.sum) }));
    renameSync(`${this.tallyFile(id)}.tmp`, this.tallyFile(id));
  }

  /**
   * Closes the least recently used indexes while those in memory hold more than `maxChunks` chunks (never `keep`,
   * the one just used): each is forgotten at once and saved if it changed, after every earlier write of its
   * repository. A search still running over one keeps it until it ends; the memory goes with the last reference.
   */
  private trim(keep: string): void {
    const max = this.options.maxChunks;
    if (max === undefined) return;
    let chunks = this.chunksInMemory();
    for (const [id, entry] of this.loaded) {
      if (chunks <= max) return;
      if (id === keep) continue;
      chunks -= entry.tally.count;
      // Gone at once: an open from now on loads it again, after this save (its files then hold every change so far).
      this.loaded.delete(id);
      this.indexes.delete(id);
      void this.exclusive(id, () => this.saveEntry(id, entry)).catch((error: Error) =>
        this.log.warn(`could not save the search index of repository ${id} before closing it (${error.message})`),
      );
    }
  }

  /** Saves once writes pause for SAVE_DELAY_MS, and at least every SAVE_AT_MOST_MS while they go on. */
  private scheduleSave(): void {
    const now = Date.now();
    this.unsavedSince ??= now;
    clearTimeout(this.saveTimer);
    const delay = Math.min(SAVE_DELAY_MS, Math.max(0, this.unsavedSince + SAVE_AT_MOST_MS - now));
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.unsavedSince = undefined;
      this.save().catch((error: Error) => this.log.warn(`could not save search indexes (${error.message}); will try again`));
    }, delay);
    this.saveTimer.unref();
  }

  /** Runs `work` after every earlier write (or load) of the repository. */
  private exclusive<T>(repositoryId: string, work: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(repositoryId) ?? Promise.resolve()).then(work, work);
    const tail = run.catch(() => undefined);
    this.queues.set(repositoryId, tail);
    void tail.then(() => {
      if (this.queues.get(repositoryId) === tail) this.queues.delete(repositoryId);
    });
    return run;
  }

  /** The repository's index: loaded, or rebuilt from Postgres, once (between writes, so no change is missed or applied twice). */
  private open(repositoryId: string): Promise<RepositoryIndex> {
    let pending = this.indexes.get(repositoryId);
    const entry = this.loaded.get(repositoryId);
    if (pending && entry) {
      // Most recently used.
      this.loaded.delete(repositoryId);
      this.loaded.set(repositoryId, entry);
      return pending;
    }
    if (!pending) {
      pending = this.exclusive(repositoryId, async () => {
        const loaded = await this.load(repositoryId);
        this.loaded.set(repositoryId, loaded);
        this.trim(repositoryId);
        return loaded;
      }).catch((error) => {
        this.indexes.delete(repositoryId);
        throw error;
      });
      this.indexes.set(repositoryId, pending);
    }
    return pending;
  }

  private async load(repositoryId: string): Promise<RepositoryIndex> {
    const index = this.create();
    const expected = await this.options.source.tally(repositoryId);
    const file = this.file(repositoryId);
    if (existsSync(file) && existsSync(this.postingsFile(repositoryId)) && existsSync(this.tallyFile(repositoryId))) {
      try {
        const saved = JSON.parse(readFileSync(this.tallyFile(repositoryId), 'utf8')) as { count: number; sum: string };
        if (saved.count === expected.count && BigInt(saved.sum) === expected.sum) {
          index.load(file);
          const postings = Postings.deserialize(readFileSync(this.postingsFile(repositoryId)));
          if (index.size() === expected.count && postings.size === expected.count) {
            return { index, postings, tally: expected, dirty: false };
          }
        }
      } catch (error) {
        this.log.warn(`search index files of repository ${repositoryId} are unreadable (${(error as Error).message})`);
      }
    }
    const entry: RepositoryIndex = { index, postings: new Postings(), tally: { count: 0, sum: 0n }, dirty: existsSync(file) };
    if (expected.count === 0) return entry;
    this.log.warn(`search index of repository ${repositoryId} does not match its ${expected.count} chunks: rebuilding it from Postgres`);
    for (let after = -1n; ;) {
      const rows = await this.options.source.page(repositoryId, after, REBUILD_PAGE);
      if (rows.length === 0) break;
      this.add(entry, rows);
      after = rows.at(-1)!.key;
    }
    entry.dirty = true;
    return entry;
  }

  private add(entry: RepositoryIndex, added: readonly IndexedChunk[]): void {
    if (added.length === 0) return;
    const matrix = new Float32Array(added.length * this.options.dimension);
    added.forEach((a, i) => matrix.set(a.vector, i * this.options.dimension));
    entry.index.add(BigUint64Array.from(added.map((a) => a.key)), matrix, 0);
    for (const a of added) {
      entry.postings.add(a.key, a.path, a.terms);
      entry.tally.count++;
      entry.tally.sum += a.key;
    }
  }

  private create(): InstanceType<typeof usearch.Index> {
    return new usearch.Index({
      dimensions: this.options.dimension,
      metric: usearch.MetricKind.Cos,
      quantization: usearch.ScalarKind.F16,
      connectivity: CONNECTIVITY,
      expansion_add: EXPANSION_ADD,
      expansion_search: EXPANSION_SEARCH,
      multi: false,
    });
  }

  private file(repositoryId: string): string {
    return join(this.options.dir, `${encodeURIComponent(repositoryId)}.usearch`);
  }

  private postingsFile(repositoryId: string): string {
    return join(this.options.dir, `${encodeURIComponent(repositoryId)}.postings`);
  }

  private tallyFile(repositoryId: string): string {
    return join(this.options.dir, `${encodeURIComponent(repositoryId)}.json`);
  }
}
