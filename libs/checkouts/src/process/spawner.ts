import { callerGone, callerSignal, type WorkBudget } from '@sextant/work';

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

/** A child whose exit also says whether its time budget killed it. */
export interface BudgetedChild {
  kill(): void;
  /** Rejects with `callerGone()` when the caller of the request that started it stopped waiting (the child was killed). */
  readonly exit: Promise<ExitStatus & { timedOut: boolean }>;
}

/**
 * Spawns a child that is killed once it runs past `timeoutMs`, or once the
 * caller of the request it serves stops waiting (`callerSignal()`: its
 * deadline passed). With `budget`, it first waits for one of the budget's
 * slots (interactive lane first) and holds it until it exits; `timeoutMs`
 * counts from the spawn.
 */
export function spawnWithin(
  spawner: Spawner,
  request: SpawnRequest,
  output: OutputHandlers,
  timeoutMs: number,
  budget?: WorkBudget,
): BudgetedChild {
  const signal = callerSignal();
  let child: RunningChild | undefined;
  let killed = false;
  const exit = (async () => {
    const release = budget ? await budget.acquire(signal) : () => undefined;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const stop = () => child?.kill();
    try {
      if (signal?.aborted) throw callerGone();
      if (killed) return { code: null, signal: 'SIGKILL', timedOut };
      child = spawner.spawn(request, output);
      timer = setTimeout(() => {
        timedOut = true;
        child?.kill();
      }, timeoutMs);
      signal?.addEventListener('abort', stop, { once: true });
      const status = await child.exit;
      if (signal?.aborted && !timedOut) throw callerGone();
      return { ...status, timedOut };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      release();
    }
  })();
  return {
    kill: () => {
      killed = true;
      child?.kill();
    },
    exit,
  };
}

export interface RunOptions {
  timeoutMs: number;
  /** The process-wide budget the child runs under, if any (see `spawnWithin`). */
  budget?: WorkBudget;
  /** Output kept per stream; the rest is dropped (the result says so). */
  maxBytes?: number;
}

export interface RunResult extends ExitStatus {
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs a child to completion, collecting its output as text (each stream up to `maxBytes`), killed past `timeoutMs`. */
export async function runToCompletion(spawner: Spawner, request: SpawnRequest, options: RunOptions): Promise<RunResult> {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const stdout = capped(maxBytes);
  const stderr = capped(maxBytes);
  const status = await spawnWithin(
    spawner,
    request,
    { stdout: (chunk) => stdout.add(chunk), stderr: (chunk) => stderr.add(chunk) },
    options.timeoutMs,
    options.budget,
  ).exit;
  return { ...status, stdout: stdout.text(), stderr: stderr.text() };
}

/** Collects chunks up to `maxBytes`, dropping the rest. */
function capped(maxBytes: number): { add(chunk: Buffer): void; text(): string } {
  const chunks: Buffer[] = [];
  let bytes = 0;
  return {
    add: (chunk) => {
      if (bytes < maxBytes) chunks.push(chunk.subarray(0, maxBytes - bytes));
      bytes += chunk.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}
