import { createHash } from 'node:crypto';

/**
 * Repository affinity (docs/adr/0027): a sharded service runs N shards, and
 * every call about one repository goes to the same shard, so that shard
 * alone clones it. The caller picks the shard from the repository string; the
 * shard's processes (its replicas) share one NATS queue group on the
 * shard's subjects.
 */

/**
 * The repository string a call names, reduced so that the spellings of one
 * repository meet: `github:o/r`, `git@github.com:o/r.git` and
 * `https://GitHub.com/o/r/` all give `github.com/o/r` (the lexical part of
 * the repository's identity, ADR 0044; it only routes, so it may lower-case
 * every name and cannot resolve local paths). Anything that is not a
 * URL (a registered repository's id or name) is its own key. Pure: the
 * service still parses and authorizes the string itself.
 */
export function repositoryShardKey(raw: string): string {
  const input = raw.trim();
  const short = /^(?:github:|git@github\.com:)([^/]+)\/([^/]+?)(?:\.git)?\/?$/i.exec(input);
  if (short) return `github.com/${short[1]}/${short[2]}`.toLowerCase();
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return input;
  }
  const path = url.pathname
    .split('/')
    .filter(Boolean)
    .join('/')
    .replace(/\.git$/, '');
  // The default ports of https and http are dropped by URL itself; git's is not (a non-special scheme).
  const host = url.protocol === 'git:' ? url.host.replace(/:9418$/, '') : url.host;
  return `${url.protocol === 'file:' ? 'file:' : host}/${path}`.toLowerCase();
}

/**
 * Jump consistent hash (Lamping and Veach, 2014) of a key onto `shards`
 * buckets: uniform, and going from N to N+1 shards moves only 1/(N+1) of
 * the keys (those that move all go to the new shard), which fits
 * StatefulSet ordinals that are added and removed at the end.
 */
export function shardOf(key: string, shards: number): number {
  if (!Number.isInteger(shards) || shards < 1) throw new RangeError(`shards must be a positive integer, got ${shards}`);
  let k = createHash('sha256').update(key).digest().readBigUInt64BE(0);
  let b = -1;
  let j = 0;
  while (j < shards) {
    b = j;
    k = (k * 2862933555777941757n + 1n) & 0xffffffffffffffffn;
    j = Math.floor((b + 1) * (2 ** 31 / (Number(k >> 33n) + 1)));
  }
  return b;
}

/** The subject shard `index` of a sharded service listens on for `subject` (besides `subject` itself). */
export function shardSubject(subject: string, index: number): string {
  return `${subject}.s${index}`;
}

/** The subject a shard subject stands for (`git-cache.grep.v1.s2` → `git-cache.grep.v1`); other subjects as they are. */
export function baseSubject(subject: string): string {
  return subject.replace(/\.s\d+$/, '');
}
