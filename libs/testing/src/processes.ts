import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { repoPath } from './paths.js';

export interface RunningProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Short name for reports: the script's package (`gateway`, `projects`, `sextant`) or file name. */
  readonly name: string;
  /** Everything the process wrote, stdout and stderr interleaved by line. */
  output(): string;
  /** Resolves with the first output line matching `pattern` (or rejects after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  exited: Promise<number | null>;
}

export interface StartOptions {
  env?: Record<string, string | undefined>;
  /** Resolve once a line matches; rejects if the process exits or `timeoutMs` passes first. */
  readyWhen?: RegExp;
  timeoutMs?: number;
  /** Pipe stdin (for stdio MCP clients spawning it themselves this is not needed). */
  cwd?: string;
  /** Options for node itself, before the script (`--expose-gc`, `--import <file>`). */
  nodeArgs?: string[];
  /** Run as this user and group (numeric; the test process must be root), without root's supplementary groups. */
  user?: { uid: number; gid: number };
  /** In a process group of its own, so that a test can signal the group as a terminal's Ctrl-C does (`kill(-pid)`). */
  processGroup?: boolean;
}

// Children die with the test process, even when it fails half-way: an orphaned service
// would stay subscribed on NATS and answer the next suite's requests.
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Starts `node <script>` from the repository (or an absolute path) with a clean, explicit environment. */
export async function startNode(script: string, args: string[] = [], options: StartOptions = {}): Promise<RunningProcess> {
  const env: Record<string, string> = {};
  // The heap bound is passed through so that a bench can be run at another setting (SEXTANT_HEAP_GROWTH_PERCENT=0 npm run bench:…).
  const inherited = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SEXTANT_HEAP_GROWTH_PERCENT: process.env.SEXTANT_HEAP_GROWTH_PERCENT,
    // Under the test runner every reply is checked against its contract (a test may say otherwise in its env);
    // benchmarks measure production's default (off) unless SEXTANT_CHECK_REPLIES says otherwise.
    SEXTANT_CHECK_REPLIES: process.env.SEXTANT_CHECK_REPLIES ?? (process.env.NODE_TEST_CONTEXT ? 'true' : undefined),
  };
  for (const [key, value] of Object.entries({ ...inherited, LOG_LEVEL: 'warn', ...options.env })) {
    if (value !== undefined) env[key] = value;
  }
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script.startsWith('/') ? script : repoPath(script), ...args], {
    env,
    cwd: options.cwd ?? repoPath('.'),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.processGroup === true,
    ...options.user,
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const lines: string[] = [];
  const waiters = new Set<{ pattern: RegExp; resolve: (m: RegExpMatchArray) => void }>();
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line) continue;
      lines.push(line);
      for (const waiter of waiters) {
        const match = line.match(waiter.pattern);
        if (match) {
          waiters.delete(waiter);
          waiter.resolve(match);
        }
      }
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const running: RunningProcess = {
    child,
    pid: child.pid!,
    name:
      script.match(/(?:services|apps)\/([^/]+)\//)?.[1] ??
      script
        .split('/')
        .pop()!
        .replace(/\.[cm]?js$/, ''),
    output: () => lines.join('\n'),
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      const seen = lines.map((l) => l.match(pattern)).find(Boolean);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = { pattern, resolve: (m: RegExpMatchArray) => (clearTimeout(timer), resolve(m)) };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${pattern} from ${script}; output:\n${running.output()}`));
        }, timeoutMs);
        waiters.add(waiter);
        void exited.then((code) => {
          if (!waiters.has(waiter)) return;
          waiters.delete(waiter);
          clearTimeout(timer);
          reject(new Error(`${script} exited (${code}) before printing ${pattern}; output:\n${running.output()}`));
        });
      });
    },
    async stop(graceMs = 5_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  if (options.readyWhen) {
    try {
      await running.waitFor(options.readyWhen, options.timeoutMs);
    } catch (error) {
      await running.stop(1_000);
      throw error;
    }
  }
  return running;
}

/** A TCP port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resident set size of a process in bytes (Linux `/proc`). */
export async function rssBytes(pid: number): Promise<number> {
  return (await memory(pid)).rss;
}

/** CPU time (user + system) a process has used so far, in milliseconds (Linux `/proc`). */
export async function cpuMs(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'; utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms (USER_HZ)
}

/** Resident memory of a process now (`VmRSS`) and at its peak so far (`VmHWM`), in bytes (Linux). */
export async function memory(pid: number): Promise<{ rss: number; peak: number }> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(status)?.[1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}
