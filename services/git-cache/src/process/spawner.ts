import { spawn } from 'node:child_process';

/** A program to run: never through a shell, arguments as an array. */
export interface SpawnRequest {
  command: string;
  args: readonly string[];
  cwd?: string;
  /** The child's whole environment (nothing else is inherited); default: the spawning process's. */
  env?: NodeJS.ProcessEnv;
}

/** Where a child's output goes, chunk by chunk, in order, all of it before `exit` settles. */
export interface OutputHandlers {
  stdout(chunk: Buffer): void;
  stderr?(chunk: Buffer): void;
}

export interface ExitStatus {
  code: number | null;
  signal: string | null;
}

export interface RunningChild {
  /** SIGKILL; the output seen so far stays delivered, `exit` still settles. */
  kill(): void;
  /** Settles when the child has exited and its output was delivered; rejects if it could not start. */
  readonly exit: Promise<ExitStatus>;
}

/** Starts child processes (ripgrep, git). */
export interface Spawner {
  spawn(request: SpawnRequest, output: OutputHandlers): RunningChild;
  close(): Promise<void>;
}

/**
 * `child_process.spawn` from this process. Fine for a small process; a large
 * one pays for fork() copying its page tables on every spawn (see
 * LauncherSpawner), which is why the service does not use this one.
 */
export class DirectSpawner implements Spawner {
  spawn(request: SpawnRequest, output: OutputHandlers): RunningChild {
    const child = spawn(request.command, request.args, { cwd: request.cwd, env: request.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', output.stdout);
    child.stderr.on('data', (chunk: Buffer) => output.stderr?.(chunk));
    const exit = new Promise<ExitStatus>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => resolve({ code, signal }));
    });
    return { kill: () => void child.kill('SIGKILL'), exit };
  }

  async close(): Promise<void> {}
}

export interface RunOptions {
  timeoutMs: number;
  /** Output kept per stream; the rest is dropped (the result says so). */
  maxBytes?: number;
}

export interface RunResult extends ExitStatus {
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs a child to completion, collecting its output as text, killed past `timeoutMs`. */
export async function runToCompletion(spawner: Spawner, request: SpawnRequest, options: RunOptions): Promise<RunResult> {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let outBytes = 0;
  let errBytes = 0;
  const child = spawner.spawn(request, {
    stdout: (chunk) => {
      if (outBytes < maxBytes) out.push(chunk.subarray(0, maxBytes - outBytes));
      outBytes += chunk.length;
    },
    stderr: (chunk) => {
      if (errBytes < maxBytes) err.push(chunk.subarray(0, maxBytes - errBytes));
      errBytes += chunk.length;
    },
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill();
  }, options.timeoutMs);
  try {
    const status = await child.exit;
    return { ...status, timedOut, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
  } finally {
    clearTimeout(timer);
  }
}
