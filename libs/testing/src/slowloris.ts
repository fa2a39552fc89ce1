import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { repoPath } from './paths.js';

export interface SlowlorisOptions {
  /** The gateway's MCP URL; the sockets go to its host and port. */
  url: string;
  /** Sockets kept open at once (each reopened when the server closes it). */
  sockets?: number;
  /** Every socket stops, and the process ends, after this long. */
  durationMs?: number;
  /** The sockets are opened over this long. */
  rampMs?: number;
  /** One byte per socket this often. */
  byteEveryMs?: number;
  /** The Content-Length announced by the sockets that send whole headers. */
  contentLength?: number;
  /** Half of the sockets never finish their headers (a header line a byte at a time). */
  slowHeaders?: boolean;
  /** A socket the server closed is reopened after this long (to twice that). */
  reconnectMs?: number;
}

export interface SlowlorisReport {
  /** Connections made. */
  opened: number;
  /** Connections that failed or were closed before they were established. */
  refused: number;
  /** Responses received, by status. */
  answered: number;
  statuses: Record<string, number>;
  /** Established connections the server closed before the end. */
  closedByServer: number;
  /** Most connections open at once. */
  maxOpen: number;
}

export interface Slowloris {
  readonly pid: number;
  /** Resolves with the counts once the sockets stop (after `durationMs`). */
  done: Promise<SlowlorisReport>;
  kill(): void;
}

/**
 * A slowloris client on loopback, in a child process: `sockets` connections
 * that each send a POST's headers (announcing `contentLength` bytes of body)
 * or, for half of them with `slowHeaders`, headers that never end, then one
 * byte every `byteEveryMs`; a socket the server closes is reopened. It stops
 * by itself after `durationMs`.
 */
export function startSlowloris(options: SlowlorisOptions): Slowloris {
  const settings: Required<SlowlorisOptions> = {
    sockets: 1_100,
    durationMs: 10_000,
    rampMs: 1_000,
    byteEveryMs: 5_000,
    contentLength: 100_000,
    slowHeaders: true,
    reconnectMs: 500,
    ...options,
  };
  const child = spawn(process.execPath, [repoPath('libs/testing/dist/slowloris-worker.js'), JSON.stringify(settings)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const done = new Promise<SlowlorisReport>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      try {
        resolve(JSON.parse(out) as SlowlorisReport);
      } catch {
        reject(new Error(`the slowloris process ended (${code}) without its report: ${out}`));
      }
    });
  });
  // Killed before its end (a test failed): nobody waits for the report.
  done.catch(() => undefined);
  return { pid: child.pid!, done, kill: () => child.kill() };
}

/** One HTTP request on a connection of its own, as a probe makes it: its status and how many milliseconds it took. */
export function probe(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; ms: number }> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, ms: performance.now() - start }));
    });
    req.setTimeout(5_000, () => req.destroy(new Error(`no answer from ${url} in 5 s`)));
    req.on('error', reject);
    req.end(init.body);
  });
}
