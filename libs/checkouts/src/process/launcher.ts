import { fork, type ChildProcess } from 'node:child_process';
import { Logger } from '@nestjs/common';
import type { ExitStatus, OutputHandlers, RunningChild, SpawnRequest, Spawner } from './spawner.js';

export type LauncherRequest = ({ op: 'spawn' } & SpawnRequest & { id: number }) | { op: 'kill'; id: number };
export type LauncherReply =
  | { id: number; stdout: Buffer }
  | { id: number; stderr: Buffer }
  | { id: number; exit: ExitStatus }
  | { id: number; error: string; code?: string };

interface Pending {
  output: OutputHandlers;
  resolve(status: ExitStatus): void;
  reject(error: Error): void;
}

/**
 * Spawns children through a small helper process instead of from this one.
 *
 * `child_process.spawn` forks the calling process, and fork() copies its page
 * tables: measured here, a spawn costs 1.5 ms from a fresh Node process and
 * 10–20 ms from one holding 500 MB (embedded mode, with PGlite in process).
 * Every grep_repository is one spawn of ripgrep, so that cost was most of the
 * service's overhead over bare ripgrep. The launcher stays small, so its
 * spawns stay cheap; output comes back over IPC as binary chunks, in order.
 *
 * The launcher starts on first use and again after it dies (children it was
 * running then report an error); it exits by itself when this process does.
 * It ignores SIGINT: Ctrl-C in a terminal reaches the whole process group,
 * and this process, stopping on it, closes the launcher in its own time.
 */
export class LauncherSpawner implements Spawner {
  private readonly log = new Logger('Launcher');
  private child: ChildProcess | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  spawn(request: SpawnRequest, output: OutputHandlers): RunningChild {
    if (this.closed) return { kill: () => undefined, exit: Promise.reject(new Error('the launcher is closed (shutting down)')) };
    const id = this.nextId++;
    const exit = new Promise<ExitStatus>((resolve, reject) => this.pending.set(id, { output, resolve, reject }));
    const launcher = this.launcher();
    launcher.send({
      op: 'spawn',
      id,
      command: request.command,
      args: [...request.args],
      cwd: request.cwd,
      env: request.env,
    } satisfies LauncherRequest);
    return {
      kill: () => {
        if (this.pending.has(id) && launcher.connected) launcher.send({ op: 'kill', id } satisfies LauncherRequest);
      },
      exit,
    };
  }

  /** Stops the launcher and what it runs; later spawns fail. */
  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Disconnected already (it is exiting, say on a signal): its 'exit' is on the way; disconnecting again would
    // emit ERR_IPC_DISCONNECTED.
    if (child.connected) child.disconnect();
    await exited;
  }

  private launcher(): ChildProcess {
    if (this.child?.connected) return this.child;
    const child = fork(new URL('./launcher-main.js', import.meta.url), [], {
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      execArgv: [],
    });
    child.on('message', (reply: LauncherReply) => this.onReply(reply));
    // A channel that closed under a send or a disconnect (the launcher is exiting): its 'exit' reports the children
    // it ran as failed; the error itself is no news, and unhandled it would end this process.
    child.on('error', (error) => this.log.debug(`launcher channel: ${error.message}`));
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      if (this.pending.size === 0) return;
      this.log.warn(`launcher exited (${signal ?? code}) with ${this.pending.size} children running; they are reported as failed`);
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(new Error('the launcher process exited while the command ran'));
      }
    });
    this.child = child;
    return child;
  }

  private onReply(reply: LauncherReply): void {
    const p = this.pending.get(reply.id);
    if (!p) return;
    if ('stdout' in reply) p.output.stdout(Buffer.from(reply.stdout.buffer, reply.stdout.byteOffset, reply.stdout.byteLength));
    else if ('stderr' in reply) p.output.stderr?.(Buffer.from(reply.stderr.buffer, reply.stderr.byteOffset, reply.stderr.byteLength));
    else {
      this.pending.delete(reply.id);
      if ('exit' in reply) p.resolve(reply.exit);
      else p.reject(Object.assign(new Error(reply.error), { code: reply.code }));
    }
  }
}
