import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { freePort } from './processes.js';

/** `nats-server` on PATH (or in the sbin directories Debian installs it to); the test fails without it, never skips. */
function natsServerBinary(): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/usr/local/bin'];
  for (const dir of dirs) {
    const candidate = join(dir, 'nats-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  throw new Error('nats-server is not installed (Debian package nats-server): the NATS restart tests need their own server to restart');
}

/**
 * A private NATS server on a free port, for tests that stop and restart NATS
 * itself (the shared one at 4222 belongs to everyone). Restarting keeps the port.
 */
export class NatsServer {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly extraArgs: readonly string[],
  ) {}

  /** `extraArgs`: more nats-server options, e.g. `['--user', 'u', '--pass', 'p']` for a server that requires them. */
  static async start(extraArgs: readonly string[] = []): Promise<NatsServer> {
    const server = new NatsServer(await freePort(), extraArgs);
    await server.up();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    this.child = spawn(natsServerBinary(), ['-a', '127.0.0.1', '-p', String(this.port), ...this.extraArgs], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    while (!(await accepts(this.port))) {
      if (Date.now() > deadline) throw new Error(`nats-server did not listen on ${this.port} within 10 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Stops it hard (as a crash or a pod eviction would): clients see their connection drop. */
  async down(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
