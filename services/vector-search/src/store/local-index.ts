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
  /**
   * Chunks the pack holds at most (VECTOR_LOCAL_PACK_CHUNKS; 0 or left out: no pack): one index of the small
   * repositories, which a search over many repositories reads instead of each one's own (ADR 0062).
   */
  packChunks?: number;
  /** How long writes must pause before a pack is built (PACK_QUIET_MS; shorter in tests). */
  packQuietMs?: number;
}

/** HNSW parameters: 16 links per node, 128 candidates while adding, 512 while searching (bench/search: recall@10 0.87 at 64, 0.94 at 256, 0.96 at 512 on 170k chunks). */
const CONNECTIVITY = 16;
const EXPANSION_ADD = 128;
const EXPANSION_SEARCH = 512;
/**
 * The pack's candidates while searching: its graph holds every small repository's chunks at once. On bench/org's 997
 * small repositories (83,079 chunks), the 50 nearest: recall 0.978 and 1.7 ms at 256, 0.984 and 4.2 ms at 512.
 */
const PACK_EXPANSION_SEARCH = 256;
const REBUILD_PAGE = 5_000;
/** While writes go on, indexes are saved at most this long after the first unsaved change (a crash costs a rebuild, not data). */
const SAVE_AT_MOST_MS = 30_000;
/** Changes are saved to disk this long after the last one (and at close). */
const SAVE_DELAY_MS = 2_000;

/** A search over at least this many repositories reads the pack (below it, their own indexes cost little). */
export const PACK_MIN_REPOSITORIES = 64;
/** A repository with more chunks than this keeps its own index only (a search over it alone is what it is for). */
export const PACK_REPOSITORY_CHUNKS = 2_000;
/** Writes pause this long before a pack is built: onboarding an organization does not rebuild it at every job. */
const PACK_QUIET_MS = 5_000;
/** A search rebuilds the pack once more than this many of its repositories are neither in it nor left out of it unchanged. */
const PACK_NEWCOMERS = 8;
/**
 * Chunks added to the pack's HNSW index at a time, the event loop served between (a build runs beside searches): 83,079
 * chunks took 21–25 s on 2 cores, so about 30 ms a batch.
 */
const PACK_BATCH = 100;
/** After a build thrown away (a repository in it written meanwhile), the next waits twice as long, up to this. */
const PACK_BACKOFF_MAX_MS = 300_000;

interface RepositoryIndex {
  index: InstanceType<typeof usearch.Index>;
  postings: Postings;
  tally: KeyTally;
  dirty: boolean;
}

/**
 * The pack: the chunks of many small repositories in one HNSW index and one postings index (each path prefixed with
 * its repository's number in the pack, so two repositories' `src/index.ts` stay two files). Read-only: a write to a
 * member discards it, and it is built again from Postgres once writes pause. A search reads it only when it covers
 * every member (an organization-wide search); the repositories it does not hold are read one by one beside it.
 */
interface Pack {
  index: InstanceType<typeof usearch.Index>;
  postings: Postings;
  members: ReadonlySet<string>;
  /**
   * Repositories it was built over and left out (more than PACK_REPOSITORY_CHUNKS chunks, none, or no room left), with
   * their count of writes then: one written to since may now belong in it.
   */
  left: ReadonlyMap<string, number>;
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
  private pack: Pack | undefined;
  /** Writes (and drops) per repository so far: a pack built meanwhile may lack one, and is not used. */
  private readonly writes = new Map<string, number>();
  private lastWrite = 0;
  /** The repositories the next pack is built over; its timer; the build running. */
  private packWanted: readonly string[] | undefined;
  private packTimer: NodeJS.Timeout | undefined;
  private packing: Promise<void> | undefined;
  /** How long writes must pause before the next build: longer after each build thrown away. */
  private packDelay: number;
  private closed = false;

  constructor(private readonly options: LocalIndexOptions) {
    mkdirSync(options.dir, { recursive: true });
    this.packDelay = options.packQuietMs ?? PACK_QUIET_MS;
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
      const { removed, added } = await change().finally(() => this.touch(repositoryId));
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
    const { pack, rest } = this.divide(repositoryIds);
    const top = new TopK(k);
    const offer = (index: InstanceType<typeof usearch.Index>) => {
      const size = index.size();
      if (size === 0) return;
      // One query is one task: on one thread. Left to choose (0), USearch hands it to a pool, 15 µs a call more
      // (bench/org: 15 ms of a search over 1,000 repositories).
      const { keys, distances } = index.search(vector, Math.min(k, size), 1);
      for (let i = 0; i < keys.length; i++) {
        const score = 1 - distances[i];
        if (score > top.floor) top.offer(keys[i], score);
      }
    };
    if (pack) offer(pack.index);
    for (const id of rest) offer((await this.open(id)).index);
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
    const { pack, rest } = this.divide(repositoryIds, pathPrefix);
    const held = await this.held(pack, rest);
    if (held) {
      const n = held.reduce((sum, p) => sum + p.size, 0);
      const query = weigh(
        n,
        words.map((term) => held.reduce((sum, p) => sum + p.df(term), 0)),
      );
      if (query.length === 0) return [];
      const top = new TopK(k);
      for (const p of held) top.offerAll(p.top(query, k, pathPrefix, top.floor));
      return top.sorted();
    }
    let n = 0;
    const df = words.map(() => 0);
    await this.eachPostings(pack, rest, (postings) => {
      n += postings.size;
      words.forEach((term, t) => (df[t] += postings.df(term)));
    });
    const query = weigh(n, df);
    if (query.length === 0) return [];
    const top = new TopK(k);
    await this.eachPostings(pack, rest, (postings) => top.offerAll(postings.top(query, k, pathPrefix, top.floor)));
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
    const { pack, rest } = this.divide(repositoryIds, pathPrefix);
    const held = await this.held(pack, rest);
    const kept = held ? held.map((p) => p.fileMatches(words, pathPrefix)) : [];
    let files = 0;
    let length = 0;
    const df = words.map(() => 0);
    const count = (f: FileMatches) => {
      files += f.files;
      length += f.length;
      f.terms.forEach((term, t) => (df[t] += term.files));
    };
    if (held) kept.forEach(count);
    else await this.eachPostings(pack, rest, (postings) => count(postings.fileMatches(words, pathPrefix)));
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
    if (held) held.forEach((p, i) => top.offerAll(p.topFiles(kept[i], idfs, average, k, top.floor)));
    else {
      // Matched again with each index as it is now: the first pass's view of it may predate a write, or a reload.
      await this.eachPostings(pack, rest, (postings) =>
        top.offerAll(postings.topFiles(postings.fileMatches(words, pathPrefix), idfs, average, k, top.floor)),
      );
    }
    return top.sorted();
  }

  /**
   * The postings of the pack and of these repositories when every one of their indexes is in memory (a search over
   * them then opens none and reads each once); undefined when some must be opened (then `eachPostings`, one at a time).
   */
  private async held(pack: Pack | undefined, repositoryIds: readonly string[]): Promise<Postings[] | undefined> {
    if (!repositoryIds.every((id) => this.loaded.has(id))) return undefined;
    const entries = await Promise.all(repositoryIds.map((id) => this.open(id)));
    return [...(pack ? [pack.postings] : []), ...entries.map((e) => e.postings)];
  }

  /** Visits the pack's postings and then each repository's, opening one index at a time. */
  private async eachPostings(pack: Pack | undefined, repositoryIds: readonly string[], visit: (postings: Postings) => void): Promise<void> {
    if (pack) visit(pack.postings);
    for (const id of repositoryIds) visit((await this.open(id)).postings);
  }

  /**
   * The pack, when a search over these repositories may read it (it holds only repositories among them, and the
   * search has no path prefix: the pack's paths carry their repository's number), and the repositories it does not
   * hold. Asks for a pack (built once writes pause) when there is none, or when too many of these are not in it.
   */
  private divide(repositoryIds: readonly string[], pathPrefix: string | null = null): { pack: Pack | undefined; rest: readonly string[] } {
    const none = { pack: undefined, rest: repositoryIds };
    if (!this.options.packChunks || repositoryIds.length < PACK_MIN_REPOSITORIES) return none;
    const pack = this.pack;
    if (!pack) {
      this.wantPack(repositoryIds);
      return none;
    }
    if (pathPrefix !== null) return none;
    const scope = new Set(repositoryIds);
    for (const id of pack.members) if (!scope.has(id)) return none;
    const rest = repositoryIds.filter((id) => !pack.members.has(id));
    if (rest.filter((id) => this.newcomer(pack, id)).length > PACK_NEWCOMERS) this.wantPack(repositoryIds);
    return { pack, rest };
  }

  /** Whether a repository the pack does not hold might belong in it: not looked at, or written to since it was left out. */
  private newcomer(pack: Pack, repositoryId: string): boolean {
    const writes = pack.left.get(repositoryId);
    return writes === undefined || writes !== (this.writes.get(repositoryId) ?? 0);
  }

  /** Repositories the pack holds (0 when there is none). */
  repositoriesPacked(): number {
    return this.pack?.members.size ?? 0;
  }

  /** Resolves once no pack build is waiting or running (tests, and a bench that waits for a settled process). */
  async packed(): Promise<void> {
    while (this.packTimer || this.packing) {
      if (this.packing) await this.packing;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** A write or drop of the repository: a pack holding it no longer says what it holds, and is built again. */
  private touch(repositoryId: string): void {
    this.writes.set(repositoryId, (this.writes.get(repositoryId) ?? 0) + 1);
    this.lastWrite = Date.now();
    const pack = this.pack;
    if (pack?.members.has(repositoryId)) {
      this.pack = undefined;
      this.wantPack([...pack.members, ...pack.left.keys()]);
    }
  }

  /**
   * Builds a pack over these repositories once writes have paused for PACK_QUIET_MS (one build at a time; after a
   * build thrown away, twice as long as before, up to PACK_BACKOFF_MAX_MS).
   */
  private wantPack(repositoryIds: readonly string[]): void {
    if (!this.options.packChunks || this.closed) return;
    this.packWanted = repositoryIds;
    if (this.packTimer || this.packing) return;
    const quiet = this.packDelay;
    this.packTimer = setTimeout(() => {
      this.packTimer = undefined;
      const ids = this.packWanted;
      if (!ids || this.closed) return;
      if (Date.now() - this.lastWrite < quiet) return this.wantPack(ids);
      this.packWanted = undefined;
      this.packing = this.buildPack(ids)
        .then((built) => {
          const base = this.options.packQuietMs ?? PACK_QUIET_MS;
          this.packDelay = built ? base : Math.min(PACK_BACKOFF_MAX_MS, this.packDelay * 2);
          // Asked for meanwhile (searches find no pack while one is built): needed only for repositories it did not look at.
          const pack = this.pack;
          if (pack && this.packWanted?.every((id) => pack.members.has(id) || !this.newcomer(pack, id))) this.packWanted = undefined;
        })
        .catch((error: Error) => this.log.warn(`could not pack the small repositories' search indexes (${error.message})`))
        .finally(() => {
          this.packing = undefined;
          if (this.packWanted) this.wantPack(this.packWanted);
        });
    }, quiet);
    this.packTimer.unref();
  }

  /**
   * Builds and installs a pack of these repositories' chunks read from Postgres: those with at most
   * PACK_REPOSITORY_CHUNKS chunks, while they fit in `packChunks`. Whether it was installed: not when a repository in
   * it was written to meanwhile (it might lack the change; checked after each repository, so the build stops early,
   * and asked for again) or the index closed.
   */
  private async buildPack(repositoryIds: readonly string[]): Promise<boolean> {
    const started = new Map(repositoryIds.map((id) => [id, this.writes.get(id) ?? 0]));
    const written = (id: string) => (this.writes.get(id) ?? 0) !== started.get(id);
    const max = this.options.packChunks ?? 0;
    const index = this.create(PACK_EXPANSION_SEARCH);
    const postings = new Postings();
    const members = new Set<string>();
    const left = new Map<string, number>();
    let chunks = 0;
    const batch: IndexedChunk[] = [];
    const flush = async () => {
      this.add({ index, postings, tally: { count: 0, sum: 0n }, dirty: false }, batch.splice(0, PACK_BATCH));
      // The HNSW insertions above held the thread: searches waiting meanwhile go first.
      await new Promise((resolve) => setImmediate(resolve));
    };
    const abandoned = () => this.closed || [...members].some(written);
    // Once each, whatever the list given holds.
    for (const id of new Set(repositoryIds)) {
      if (abandoned()) return this.abandon(repositoryIds);
      const { count } = await this.options.source.tally(id);
      if (count === 0 || count > PACK_REPOSITORY_CHUNKS || chunks + count > max) {
        left.set(id, started.get(id)!);
        continue;
      }
      const number = members.size;
      members.add(id);
      chunks += count;
      for (let after = -1n; ;) {
        const rows = await this.options.source.page(id, after, REBUILD_PAGE);
        if (rows.length === 0) break;
        for (const row of rows) batch.push({ ...row, path: `${number}/${row.path}` });
        after = rows.at(-1)!.key;
        while (batch.length >= PACK_BATCH) await flush();
      }
    }
    while (batch.length > 0) await flush();
    // Checked and installed in one step: a write after this discards the pack it finds.
    if (abandoned()) return this.abandon(repositoryIds);
    this.pack = { index, postings, members, left };
    this.log.log(`packed ${members.size} small repositories' search indexes (${chunks} chunks) into one`);
    return true;
  }

  /** A build stopped: asked for again (unless the index closed), after a longer pause. */
  private abandon(repositoryIds: readonly string[]): false {
    if (!this.closed) this.wantPack(repositoryIds);
    return false;
  }

  /** Vectors the repository's index holds. */
  async size(repositoryId: string): Promise<number> {
    return (await this.open(repositoryId)).index.size();
  }

  /** Forgets repositories: their indexes and files. */
  async drop(repositoryIds: readonly string[]): Promise<void> {
    for (const id of repositoryIds) {
      this.touch(id);
      this.packWanted = this.packWanted?.filter((wanted) => wanted !== id);
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
    if (repositoryIds.length >= PACK_MIN_REPOSITORIES) this.wantPack(repositoryIds);
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
    this.closed = true;
    clearTimeout(this.packTimer);
    this.packTimer = undefined;
    await this.packing;
    this.pack = undefined;
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

  private create(expansionSearch = EXPANSION_SEARCH): InstanceType<typeof usearch.Index> {
    return new usearch.Index({
      dimensions: this.options.dimension,
      metric: usearch.MetricKind.Cos,
      quantization: usearch.ScalarKind.F16,
      connectivity: CONNECTIVITY,
      expansion_add: EXPANSION_ADD,
      expansion_search: expansionSearch,
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
