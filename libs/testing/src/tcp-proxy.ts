import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy for fault injection between a service and a real dependency
 * (Postgres, NATS): cut every connection and refuse new ones, stall (hold
 * every byte), or drop a connection the moment the client sends bytes
 * containing a marker (e.g. the text of one SQL statement, to kill a
 * transaction half-way).
 */
export class FaultProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private refusing = false;
  private stalled = false;
  private readonly held: Array<() => void> = [];
  private marker: Buffer | undefined;
  private accepted: () => void = () => undefined;
  port = 0;
  /** Resolves when the proxy accepts its first connection (the moment a client first reaches for the dependency). */
  readonly firstConnection = new Promise<void>((resolve) => (this.accepted = resolve));

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(port = 0): Promise<number> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this.port;
  }

  /** Close every open connection and refuse new ones until `restore()`. */
  cut(): void {
    this.refusing = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  /** Stop forwarding (connections stay open, bytes wait) until `restore()`: a dependency that hangs. */
  stall(): void {
    this.stalled = true;
  }

  /** Back to normal: accept connections, forward everything held. */
  restore(): void {
    this.refusing = false;
    this.stalled = false;
    for (const release of this.held.splice(0)) release();
  }

  /** Drop the connection that next sends bytes containing `marker` (before they reach the target). */
  dropOn(marker: string | undefined): void {
    this.marker = marker === undefined ? undefined : Buffer.from(marker);
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    if (this.refusing) {
      client.destroy();
      return;
    }
    this.accepted();
    const upstream = connect(this.targetPort, this.targetHost);
    this.sockets.add(client);
    this.sockets.add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      if (this.marker && chunk.includes(this.marker)) {
        this.marker = undefined;
        close();
        return;
      }
      if (this.stalled) this.held.push(() => upstream.write(chunk));
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (this.stalled) this.held.push(() => client.write(chunk));
      else client.write(chunk);
    });
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  }
}
