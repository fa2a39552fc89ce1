import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { hostname } from 'node:os';
import { Logger } from '@nestjs/common';
import { ServiceError } from '@sextant/work';
import { cloneCacheEvents, observeCloneCache } from '@sextant/telemetry';
import { explainGitFailure } from '../git/git-errors.js';
import { GitError, type GitRunner } from '../git/git-runner.js';
import { closestNames, parseLsRemote } from '../git/refs.js';
import type { RepositoryLocator } from '../repository/locator.js';
import { directorySize } from './directory-size.js';
import { ReadWriteLock } from './rw-lock.js';

export interface CloneCacheOptions {
  root: string;
  /** Total size cap of this process's clones; least-recently-used clones go first. */
  maxBytes: number;
  /** A branch checkout older than this is fetched again before use (tags never are). */
  refreshAfterMs: number;
  /** Clones unused for this long are deleted. */
  evictAfterMs: number;
  cloneTimeoutMs: number;
  git: GitRunner;
  /** Injectable clock, so tests can age a clone without waiting. */
  now?: () => number;
  /** Injectable seed (tests); by default a random one per process. Ignored when `persistent`. */
  seed?: string;
  /**
   * The policy. Off (git-cache, ADR 0009): names carry a per-process seed and
   * clones are deleted at shutdown. On (indexing services): stable names,
   * clones kept at shutdown and taken up again after a restart, so an
   * incremental sync does not clone again (ADR 0027).
   */
  persistent?: boolean;
  /** The cache's label in the `sextant_clone_cache_*` metrics; default `checkouts` when persistent, else `clones`. */
  metricLabel?: string;
}

/** What a persistent clone records about itself (`.git/sextant-checkout.json`), to be taken up after a restart. */
interface CheckoutRecord {
  requested: string | null;
  ref: string;
  kind: 'branch' | 'tag';
  commit: string;
  fetchedAt: number;
  /** The clone's size when recorded, so a start takes up every clone without walking its files (older records: walked). */
  sizeBytes?: number;
}

const RECORD = 'sextant-checkout.json';

/** What a caller gets to read: a checkout that does not move while it holds it. */
export interface Checkout {
  dir: string;
  /** Branch or tag actually checked out. */
  ref: string;
  commit: string;
}

interface Entry {
  key: string;
  dir: string;
  /** Unknown for a clone taken up at start until its first use. */
  locator: RepositoryLocator | undefined;
  /** The ref callers asked for (`undefined`: the default branch) — "a different ref" is judged against it. */
  requested: string | undefined;
  ref: string;
  kind: 'branch' | 'tag';
  commit: string;
  fetchedAt: number;
  lastUsedAt: number;
  touchedAt: number;
  sizeBytes: number;
  readonly lock: ReadWriteLock;
  present: boolean;
}

/** An entry whose repository is known: one a caller is using. */
type Located = Entry & { locator: RepositoryLocator };

export interface CloneCacheStats {
  entries: number;
  bytes: number;
  clones: number;
  refreshes: number;
  /** Persistent clones of an earlier process taken up again. */
  takenUp: number;
  evictions: number;
  /** Checkouts used as they were, without a clone or fetch. */
  hits: number;
}

const DIR_PREFIX = 'mcp_';
const TMP_PREFIX = '.tmp-';

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ: 100 on every Linux Node runs on). */
const USER_HZ = 100;

/**
 * When the process `pid` started (ms since the epoch), from `/proc`: `gone` when no process has that pid (none, or a
 * thread of another process has it as its id), `unknown` without `/proc`.
 */
function processStart(pid: number): number | 'gone' | 'unknown' {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' && existsSync('/proc/self/status') ? 'gone' : 'unknown';
  }
  if (/^Tgid:\s*(\d+)/m.exec(status)?.[1] !== String(pid)) return 'gone';
  try {
    // Field 22 of stat, counted after the command (which may hold spaces and parentheses): ticks since boot.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const boot = Number(/^btime\s+(\d+)/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    return Number.isFinite(ticks) && Number.isFinite(boot) && boot > 0 ? boot * 1000 + (ticks * 1000) / USER_HZ : 'unknown';
  } catch {
    return 'unknown';
  }
}
const TOUCH_INTERVAL_MS = 60_000;

/**
 * The clone cache (policy in tools.md, "Clone cache policy"): one shallow
 * clone per repository, shared by concurrent callers, refreshed when stale or
 * when another ref is asked, evicted by age and by total size, removed at
 * shutdown (or, `persistent`, kept and taken up again at the next start).
 * New clones are written to a temporary directory and renamed into place, so
 * a failed or interrupted clone never leaves a directory that a later request
 * would reuse.
 */
export class CloneCache {
  private readonly log = new Logger('CloneCache');
  private readonly entries = new Map<string, Entry>();
  private readonly seed: string;
  /**
   * Marks this process's temporary clones: `<host>.<pid>.<random>`, so that a start can tell a leftover of a
   * process that is gone (same host, that pid no longer runs or is now another process) from a clone in
   * progress of a live one sharing the volume.
   */
  private readonly tmpTag = `${hostname().replace(/[^A-Za-z0-9-]/g, '_')}.${process.pid}.${randomBytes(6).toString('hex')}`;
  private readonly now: () => number;
  private readonly counters = { hits: 0, clones: 0, refreshes: 0, evictions: 0, takenUp: 0 };
  /** The cache's label in the `sextant_clone_cache_*` series. */
  private readonly metricLabel: string;
  private unobserve: () => void = () => undefined;

  constructor(private readonly options: CloneCacheOptions) {
    this.seed = options.persistent ? '' : (options.seed ?? randomBytes(8).toString('hex'));
    this.now = options.now ?? Date.now;
    this.metricLabel = options.metricLabel ?? (options.persistent ? 'checkouts' : 'clones');
  }

  /**
   * Creates the root and removes what dead processes left: temporary clones
   * of a process of this host that is gone (whatever their age; those of
   * another host sharing the volume after an hour), and clones unused past
   * the age limit. A persistent cache takes up every
   * clone an earlier process left (a clone without its record, cut off by a
   * crash, is removed), so they count in the size cap from the start, and
   * evicts the least recently used of them while the total is over it.
   */
  async start(): Promise<void> {
    await mkdir(this.options.root, { recursive: true });
    this.unobserve = observeCloneCache({ cache: this.metricLabel, stats: () => this.stats() });
    const cutoff = this.now() - this.options.evictAfterMs;
    const kept: Entry[] = [];
    const names = await readdir(this.options.root);
    // Leftovers first, before this process runs git: a git it starts could take the pid a dead owner had (in a
    // container, pids start over), and that owner would look alive.
    for (const name of names.filter((n) => n.startsWith(TMP_PREFIX) && !n.startsWith(`${TMP_PREFIX}${this.tmpTag}`))) {
      const path = join(this.options.root, name);
      const info = await stat(path).catch(() => undefined);
      // A crash leftover goes whatever its age; one of another host's process, past an hour.
      if (info && (this.ownerGone(name.slice(TMP_PREFIX.length), info.mtimeMs) || info.mtimeMs < this.now() - 3_600_000)) {
        await rm(path, { recursive: true, force: true });
        this.log.log(`removed ${name}, a clone left unfinished by a process that is gone`);
      }
    }
    for (const name of names) {
      const path = join(this.options.root, name);
      if (name.startsWith(DIR_PREFIX)) {
        const info = await stat(path).catch(() => undefined);
        if (!info) continue;
        if (info.mtimeMs < cutoff) await rm(path, { recursive: true, force: true });
        else if (this.options.persistent) {
          const entry = this.newEntry(path, undefined, info.mtimeMs);
          if (await this.takeUp(entry)) kept.push(entry);
        }
      }
    }
    for (const entry of kept) this.entries.set(entry.key, entry);
    const before = this.stats();
    if (before.bytes > this.options.maxBytes) {
      await this.evictIdle(undefined, () => this.stats().bytes > this.options.maxBytes);
      this.log.log(
        `took up ${before.entries} clones (${mib(before.bytes)}), over the cap of ${mib(this.options.maxBytes)}: ` +
          `evicted ${before.entries - this.entries.size}`,
      );
    }
  }

  /**
   * Whether the process a temporary clone's tag names ran on this host and runs no more. Where `/proc` tells, a pid
   * that is now a thread of another process (a container's pids and thread ids start over, and a restarted Node has
   * a dozen threads) or a process started after the clone was last written (`modifiedMs`) is not its owner.
   */
  private ownerGone(tag: string, modifiedMs: number): boolean {
    const [host, pid, random] = tag.split('.');
    if (host !== this.tmpTag.split('.')[0] || !/^\d+$/.test(pid ?? '') || !random) return false;
    if (Number(pid) === process.pid) return true; // this pid, another tag: an earlier process (a restarted container)
    const started = processStart(Number(pid));
    if (started === 'gone') return true;
    // A start read from /proc is at most a second early (the boot time is in whole seconds); a second more for the
    // clock's adjustments since boot.
    if (started !== 'unknown') return started > modifiedMs + 1_000;
    try {
      process.kill(Number(pid), 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }

  /** Deletes this process's clones (shutdown); persistent clones stay, once no one reads them. */
  async stop(): Promise<void> {
    this.unobserve();
    const entries = [...this.entries.values()];
    this.entries.clear();
    const persistent = this.options.persistent === true;
    await Promise.all(entries.map((e) => e.lock.write(async () => (persistent ? undefined : rm(e.dir, { recursive: true, force: true })))));
  }

  private count(event: keyof typeof this.counters): void {
    this.counters[event]++;
    cloneCacheEvents.inc({ cache: this.metricLabel, event });
  }

  stats(): CloneCacheStats {
    let bytes = 0;
    for (const e of this.entries.values()) bytes += e.sizeBytes;
    return { entries: this.entries.size, bytes, ...this.counters };
  }

  /**
   * The directory a repository's clone lives in: `mcp_<scheme>_<identity>_<hash(scheme + identity + seed)>`,
   * so every spelling of one repository shares one clone (ADR 0044). One per transport: what was fetched over
   * plaintext `git://` or `http://` (which anyone on the path can tamper with) never answers an `https://` request.
   */
  directoryFor(locator: RepositoryLocator): string {
    const normalized = `${locator.scheme}_${locator.identity}`.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100);
    const hash = createHash('sha256').update(`${locator.scheme}|${locator.identity}`).update(this.seed).digest('hex').slice(0, 16);
    return join(this.options.root, `${DIR_PREFIX}${normalized}_${hash}`);
  }

  /**
   * Runs `read` against an up-to-date checkout of `ref` (default branch when
   * undefined). Clone or refresh happens at most once per repository at a
   * time; concurrent callers wait for it and then read together. `current`:
   * a checkout already at this commit is up to date (an indexing job's
   * batches read the commit its Discovery pinned without fetching each time).
   */
  async withCheckout<T>(
    locator: RepositoryLocator,
    ref: string | undefined,
    read: (checkout: Checkout) => Promise<T>,
    options: { current?: string } = {},
  ): Promise<T> {
    this.evictAged();
    if (!this.needsWork(this.entryFor(locator), ref, options.current)) this.count('hits');
    for (;;) {
      // Looked up each round: a failed clone (its caller's deadline passed, say) drops its entry, and the next caller starts anew.
      const entry = this.entryFor(locator);
      if (this.needsWork(entry, ref, options.current)) {
        await entry.lock.write(async () => {
          if (this.entries.get(entry.key) !== entry) return; // dropped while we waited: the next round looks it up again
          if (!entry.present && this.options.persistent) await this.takeUp(entry);
          if (this.needsWork(entry, ref, options.current)) await this.prepare(entry, ref);
        });
      }
      const result = await entry.lock.read(async () => {
        // Another caller may have moved the checkout to another ref between our write and read.
        if (!entry.present || entry.requested !== ref) return { retry: true as const };
        this.markUsed(entry);
        return { retry: false as const, value: await read({ dir: entry.dir, ref: entry.ref, commit: entry.commit }) };
      });
      if (!result.retry) return result.value;
    }
  }

  /**
   * Runs `read` against the checkout of `ref` as it is, without cloning or
   * fetching (undefined when there is none): for reads that must not wait on
   * the network, such as a reference's snippet line.
   */
  async peek<T>(locator: RepositoryLocator, ref: string | undefined, read: (checkout: Checkout) => Promise<T>): Promise<T | undefined> {
    const entry = this.entryFor(locator);
    if (!entry.present && this.options.persistent) await entry.lock.write(() => this.takeUp(entry));
    return entry.lock.read(async () => {
      if (!entry.present || entry.requested !== ref) return undefined;
      this.markUsed(entry);
      return read({ dir: entry.dir, ref: entry.ref, commit: entry.commit });
    });
  }

  private entryFor(locator: RepositoryLocator): Located {
    const dir = this.directoryFor(locator);
    let entry = this.entries.get(dir);
    if (!entry) {
      entry = this.newEntry(dir, locator, this.now());
      this.entries.set(dir, entry);
    }
    // A clone taken up at start learns its repository at its first use.
    entry.locator ??= locator;
    return entry as Located;
  }

  private newEntry(dir: string, locator: RepositoryLocator | undefined, lastUsedAt: number): Entry {
    return {
      key: dir,
      dir,
      locator,
      requested: undefined,
      ref: '',
      kind: 'branch',
      commit: '',
      fetchedAt: 0,
      lastUsedAt,
      touchedAt: 0,
      sizeBytes: 0,
      lock: new ReadWriteLock(),
      present: false,
    };
  }

  /**
   * A persistent clone left by an earlier process: its record makes it an
   * entry again; without one (unreadable) it is removed, to be cloned anew.
   * Whether it was taken up.
   */
  private async takeUp(entry: Entry): Promise<boolean> {
    let record: CheckoutRecord;
    try {
      record = JSON.parse(await readFile(join(entry.dir, '.git', RECORD), 'utf8')) as CheckoutRecord;
    } catch {
      await rm(entry.dir, { recursive: true, force: true });
      return false;
    }
    Object.assign(entry, {
      present: true,
      requested: record.requested ?? undefined,
      ref: record.ref,
      kind: record.kind,
      commit: record.commit,
      fetchedAt: record.fetchedAt,
      sizeBytes: record.sizeBytes ?? (await directorySize(entry.dir)),
    });
    this.count('takenUp');
    return true;
  }

  /** Writes the entry's record into its clone, for `takeUp` after a restart. */
  private async record(entry: Entry): Promise<void> {
    const record: CheckoutRecord = {
      requested: entry.requested ?? null,
      ref: entry.ref,
      kind: entry.kind,
      commit: entry.commit,
      fetchedAt: entry.fetchedAt,
      sizeBytes: entry.sizeBytes,
    };
    await writeFile(join(entry.dir, '.git', RECORD), JSON.stringify(record));
  }

  private needsWork(entry: Entry, ref: string | undefined, current?: string): boolean {
    if (!entry.present) return true;
    if (entry.requested !== ref) return true;
    if (entry.kind === 'tag') return false; // a tag does not move: never pulled again
    if (current !== undefined && entry.commit === current) return false;
    return this.now() - entry.fetchedAt >= this.options.refreshAfterMs;
  }

  private async prepare(entry: Located, ref: string | undefined): Promise<void> {
    try {
      await this.withDiskRetry(entry, () => (entry.present ? this.refresh(entry, ref) : this.clone(entry, ref)));
      await this.record(entry);
    } catch (error) {
      if (!entry.present) this.entries.delete(entry.key);
      throw error;
    }
    await this.evictOverCap(entry);
  }

  /** Disk full: evict every idle clone and retry once, then fail with a clear message. */
  private async withDiskRetry(entry: Located, work: () => Promise<void>): Promise<void> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof GitError) || error.kind !== 'disk_full') throw error;
      this.log.warn(`disk full while preparing ${entry.locator.display}; evicting idle clones and retrying once`);
      await this.evictIdle(entry, () => true);
    }
    try {
      return await work();
    } catch (error) {
      if (error instanceof GitError && error.kind === 'disk_full') {
        throw ServiceError.of(
          'unavailable',
          `The clone cache has no disk space left for ${entry.locator.display}, even after evicting idle clones. ` +
            'Free space under GIT_CACHE_DIR or lower GIT_CACHE_MAX_BYTES.',
        );
      }
      throw error;
    }
  }

  private async clone(entry: Located, ref: string | undefined): Promise<void> {
    const tmp = join(this.options.root, `${TMP_PREFIX}${this.tmpTag}-${randomBytes(6).toString('hex')}`);
    await mkdir(this.options.root, { recursive: true });
    try {
      await this.withRef(entry.locator, ref, (target) =>
        this.options.git.run(
          ['clone', '--depth=1', '--single-branch', '--no-tags', ...(target ? ['--branch', target] : []), '--', entry.locator.url, tmp],
          { timeoutMs: this.options.cloneTimeoutMs },
        ),
      );
      const head = await readHead(tmp);
      await rename(tmp, entry.dir);
      Object.assign(entry, {
        present: true,
        requested: ref,
        ref: head.branch ?? ref ?? 'HEAD',
        kind: head.branch ? 'branch' : 'tag',
        commit: head.commit ?? (await this.revParse(entry.dir)),
        fetchedAt: this.now(),
        sizeBytes: await directorySize(entry.dir),
      });
      this.count('clones');
    } catch (error) {
      await rm(tmp, { recursive: true, force: true });
      throw explainGitFailure(error, { locator: entry.locator, ref, operation: 'clone', timeoutMs: this.options.cloneTimeoutMs });
    }
  }

  /**
   * Brings the checkout to the remote's ref. The same branch, unchanged on the
   * remote (the usual case), costs one `ls-remote` — a ref advertisement, no
   * pack negotiation; otherwise fetch the ref (shallow) and move the checkout.
   */
  private async refresh(entry: Located, ref: string | undefined): Promise<void> {
    if (entry.requested === ref && (await this.remoteTip(entry, ref)) === entry.commit) {
      entry.fetchedAt = this.now();
      this.count('refreshes');
      return;
    }
    try {
      await this.withRef(entry.locator, ref, (target) =>
        this.options.git.run(['fetch', '--depth=1', '--no-tags', 'origin', target ?? 'HEAD'], {
          cwd: entry.dir,
          timeoutMs: this.options.cloneTimeoutMs,
        }),
      );
      const fetched = await readFetchHead(entry.dir);
      if (fetched.commit !== entry.commit) {
        await this.options.git.run(['checkout', '-q', '-f', '--detach', fetched.commit], { cwd: entry.dir });
        entry.commit = fetched.commit;
        entry.sizeBytes = await directorySize(entry.dir);
      }
      Object.assign(entry, {
        requested: ref,
        // `fetch origin HEAD` does not name the branch: ask the remote which one its HEAD is.
        ref: fetched.name ?? ref ?? (await this.defaultBranch(entry)),
        kind: fetched.kind ?? (ref === undefined ? 'branch' : entry.kind),
        fetchedAt: this.now(),
      });
      this.count('refreshes');
    } catch (error) {
      throw explainGitFailure(error, { locator: entry.locator, ref, operation: 'refresh', timeoutMs: this.options.cloneTimeoutMs });
    }
  }

  /** The commit the remote's branch (its HEAD when `ref` is undefined) points at, or undefined when that cannot be told. */
  private async defaultBranch(entry: Located): Promise<string> {
    const listed = await this.options.git
      .run(['ls-remote', '--symref', entry.locator.url, 'HEAD'], { timeoutMs: this.options.cloneTimeoutMs })
      .catch(() => '');
    return /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(listed)?.[1] ?? 'HEAD';
  }

  private async remoteTip(entry: Located, ref: string | undefined): Promise<string | undefined> {
    const pattern = ref === undefined ? 'HEAD' : `refs/heads/${ref}`;
    try {
      const listed = await this.options.git.run(['ls-remote', entry.locator.url, pattern], { timeoutMs: this.options.cloneTimeoutMs });
      const line = listed.split('\n').find((l) => l.endsWith(`\t${pattern}`));
      return line?.slice(0, 40);
    } catch {
      return undefined; // the fetch that follows reports the failure in its own words
    }
  }

  /**
   * Runs `attempt(ref)`. A ref that was named but does not exist is `not_found`
   * naming it and the closest branches and tags; there is no silent fallback
   * to another branch (only an omitted ref means the default branch).
   */
  private async withRef(locator: RepositoryLocator, ref: string | undefined, attempt: (ref: string | undefined) => Promise<unknown>) {
    try {
      await attempt(ref);
    } catch (error) {
      if (!(error instanceof GitError) || error.kind !== 'ref_not_found' || ref === undefined) throw error;
      throw await this.missingRef(locator, ref);
    }
  }

  private async missingRef(locator: RepositoryLocator, ref: string): Promise<ServiceError> {
    const listed = await this.options.git
      .run(['ls-remote', '--heads', '--tags', locator.url], { timeoutMs: this.options.cloneTimeoutMs })
      .then(parseLsRemote, () => ({ branches: [], tags: [] }));
    const branches = closestNames(ref, listed.branches);
    const tags = closestNames(ref, listed.tags, 3);
    const hints = [
      branches.length > 0 ? `closest branches: ${branches.join(', ')}` : '',
      tags.length > 0 ? `closest tags: ${tags.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    return ServiceError.of('not_found', `Ref "${ref}" was not found in ${locator.display}${hints ? ` (${hints})` : ''}.`, {
      fields: { ref_name: 'not found' },
      ref_name: ref,
      closest_branches: branches,
      closest_tags: tags,
    });
  }

  private async revParse(dir: string): Promise<string> {
    return (await this.options.git.run(['rev-parse', 'HEAD'], { cwd: dir })).trim();
  }

  private markUsed(entry: Entry): void {
    entry.lastUsedAt = this.now();
    // The directory's mtime tells other processes sharing the disk (and our next start) that it is in use.
    if (entry.lastUsedAt - entry.touchedAt > TOUCH_INTERVAL_MS) {
      entry.touchedAt = entry.lastUsedAt;
      const at = new Date(entry.lastUsedAt);
      utimes(entry.dir, at, at).catch(() => undefined);
    }
  }

  private evictAged(): void {
    const cutoff = this.now() - this.options.evictAfterMs;
    for (const entry of this.entries.values()) {
      if (entry.present && entry.lastUsedAt < cutoff && entry.lock.idle) void this.evict(entry);
    }
  }

  private async evictOverCap(current: Entry): Promise<void> {
    let total = this.stats().bytes;
    if (total <= this.options.maxBytes) return;
    await this.evictIdle(current, (entry) => {
      if (total <= this.options.maxBytes) return false;
      total -= entry.sizeBytes;
      return true;
    });
  }

  /** Evicts idle clones other than `current`, least recently used first, while `more(entry)` says so. */
  private async evictIdle(current: Entry | undefined, more: (entry: Entry) => boolean): Promise<void> {
    const candidates = [...this.entries.values()]
      .filter((e) => e !== current && e.present && e.lock.idle)
      .sort((a, b) => a.lastUsedAt - b.lastUsedAt);
    for (const entry of candidates) {
      if (!more(entry)) break;
      await this.evict(entry);
    }
  }

  private async evict(entry: Entry): Promise<void> {
    if (this.entries.get(entry.key) !== entry) return;
    this.entries.delete(entry.key);
    entry.present = false;
    this.count('evictions');
    this.log.log(`evicting ${entry.locator?.display ?? basename(entry.dir)} (${Math.round(entry.sizeBytes / 1024)} KiB)`);
    await entry.lock.write(() => rm(entry.dir, { recursive: true, force: true }));
  }
}

function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}

/** HEAD of a fresh clone: the branch it points at (absent for a tag) and, when cheap to read, the commit. */
async function readHead(dir: string): Promise<{ branch?: string; commit?: string }> {
  const head = (await readFile(join(dir, '.git', 'HEAD'), 'utf8')).trim();
  if (!head.startsWith('ref: ')) return { commit: head };
  const ref = head.slice(5);
  const commit = await readFile(join(dir, '.git', ref), 'utf8').then(
    (s) => s.trim(),
    () => undefined,
  );
  return { branch: ref.replace(/^refs\/heads\//, ''), commit };
}

/** FETCH_HEAD's first line: `<sha>\t\tbranch 'main' of <url>` or `tag 'v1' of …`. */
async function readFetchHead(dir: string): Promise<{ commit: string; name?: string; kind?: 'branch' | 'tag' }> {
  const line = (await readFile(join(dir, '.git', 'FETCH_HEAD'), 'utf8')).split('\n')[0] ?? '';
  const commit = line.slice(0, 40);
  const described = /\t(branch|tag) '([^']+)' of /.exec(line);
  return described ? { commit, kind: described[1] as 'branch' | 'tag', name: described[2] } : { commit };
}
