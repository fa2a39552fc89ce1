import { closeSync, mkdirSync, openSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { StartupError } from './config.js';

/** `SEXTANT_DATA_DIR`, read by embedded mode, git-cache and the indexing services; see `dataDir`. */
export const DataDirEnv = z.object({
  SEXTANT_DATA_DIR: z.string().min(1).optional().meta({
    description: 'data directory: PGlite files, the clone cache, persistent clones',
    default: '`$XDG_DATA_HOME/sextant`, else `~/.local/share/sextant` (per user, not per working directory)',
    details:
      "embedded mode takes it whole, and workspace-registry, symbol-indexer and vector-search their persistent clones (`checkouts`, `symbol-checkouts`, `vector-checkouts`), one process at a time: a second is told who holds them. git-cache's clones carry a per-process seed and may share it.",
  }),
});

/**
 * The data directory: `SEXTANT_DATA_DIR` (made absolute) when set, else a
 * per-user location — `$XDG_DATA_HOME/sextant`, else `~/.local/share/sextant`
 * — never the working directory: an editor that starts Sextant over stdio in
 * each project it opens must not leave a database and a clone cache in each.
 */
export function dataDir(configured: string | undefined, env: NodeJS.ProcessEnv): string {
  if (configured) return resolve(configured);
  const xdg = env.XDG_DATA_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.local', 'share');
  return join(base, 'sextant');
}

/** Who holds a data directory, as its lock file says. */
interface LockHolder {
  pid: number;
  started_at?: string;
  command?: string;
  /** The host (a container's hostname) it ran on: a pid means something only there. */
  host?: string;
  /** The MCP endpoint of a holder serving HTTP. */
  url?: string;
}

export interface DataDirLock {
  /** Adds what a second process should be told (the MCP URL once it is known). */
  describe(details: { url: string }): void;
  release(): void;
}

const LOCK_FILE = 'sextant.lock';

/** Lock files this process holds (real paths): a lock naming this process's pid and host that is not one of them is an earlier run's. */
const held = new Set<string>();

/**
 * One process at a time per data directory: PGlite's files take one writer,
 * and two clone caches would evict each other's clones. The lock file names
 * the holder; a lock left by a dead process is taken over. So is a lock that
 * names this process's own pid and host without this process having taken it:
 * a restarted container keeps its hostname and starts its process under the
 * same pid, on the same volume. (Another container running at the same time
 * has another hostname, and is refused as before.) A live holder is reported
 * in one line: which process, where it serves, what to do.
 */
export function lockDataDir(dir: string): DataDirLock {
  mkdirSync(dir, { recursive: true });
  const file = join(realpathSync(dir), LOCK_FILE);
  const self: LockHolder = {
    pid: process.pid,
    started_at: new Date().toISOString(),
    command: process.argv.slice(1).join(' '),
    host: hostname(),
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeFileSync(fd, JSON.stringify(self));
      closeSync(fd);
      held.add(file);
      return {
        describe: (details) => writeFileSync(file, JSON.stringify({ ...self, ...details })),
        release: () => {
          held.delete(file);
          rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new StartupError(
          `Could not lock the data directory ${dir} (${(error as Error).message}); set SEXTANT_DATA_DIR to a directory this user may write.`,
        );
      }
      const holder = readHolder(file);
      const earlierRun = holder?.pid === process.pid && holder.host === self.host && !held.has(file);
      if (holder && !earlierRun && processAlive(holder.pid)) throw inUse(dir, holder);
      rmSync(file, { force: true });
    }
  }
  throw new StartupError(`Could not lock the data directory ${dir}; set SEXTANT_DATA_DIR to another directory.`);
}

function inUse(dir: string, holder: LockHolder): StartupError {
  const about = [
    `pid ${holder.pid}`,
    holder.url ? `serving MCP at ${holder.url}` : holder.command && `"${holder.command}"`,
    holder.started_at && `started ${holder.started_at}`,
  ]
    .filter(Boolean)
    .join(', ');
  const instead = holder.url ? `point your MCP client at ${holder.url}` : 'stop that process';
  return new StartupError(
    `The data directory ${dir} is in use by another Sextant process (${about}). ` +
      `To go on: ${instead}, or set SEXTANT_DATA_DIR to another directory for this one.`,
  );
}

/** The holder named by a lock file: JSON, or a bare pid (older versions); undefined when unreadable. */
function readHolder(file: string): LockHolder | undefined {
  let holder: Partial<LockHolder>;
  try {
    const text = readFileSync(file, 'utf8').trim();
    holder = /^\d+$/.test(text) ? { pid: Number(text) } : (JSON.parse(text) as Partial<LockHolder>);
  } catch {
    return undefined;
  }
  return Number.isInteger(holder.pid) && holder.pid! > 0 ? (holder as LockHolder) : undefined;
}

/** Whether a process with this pid exists (and may be ours to signal or not). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
