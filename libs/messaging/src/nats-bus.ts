import { Logger } from '@nestjs/common';
import { ServerNats, type NatsContext } from '@nestjs/microservices';
import { readFileSync } from 'node:fs';
import {
  connect,
  createInbox,
  credsAuthenticator,
  errors as natsErrors,
  headers as natsHeaders,
  type ConnectionOptions,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription,
  type SubscriptionOptions,
} from '@nats-io/transport-node';
import { baseSubject, busError, queueGroup, shardSubject, type BusError, type Principal, type ServiceName } from '@sextant/contracts';
import {
  busFailures,
  injectTraceContext,
  markSpanError,
  requestsInFlight,
  SpanKind,
  spansExported,
  context,
  trace,
  tracer,
} from '@sextant/telemetry';
import { serviceOf, type BusClient, type RequestOptions } from './bus-client.js';
import { BusRequestError, oversizedReply, replyError } from './errors.js';
import { PRINCIPAL_HEADER, PRINCIPAL_SIGNATURE_HEADER, type PrincipalSeal } from './principal-seal.js';
import { currentPrincipal, inRequestScope } from '@sextant/work';
import { ActiveRequests, HEARTBEAT_MS_HEADER, HEARTBEAT_TO_HEADER, PendingRequests, TIMEOUT_MS_HEADER } from './liveness.js';
import { nextPacketId, type ReplyPacket, type RequestPacket } from './packets.js';
import { PublishBatch } from './publish-batch.js';
import { traceServer } from './tracing-hooks.js';

export interface NatsBusOptions {
  /** NATS server URL(s), comma-separated. */
  servers: string;
  /** Prepended to every subject (`staging` → `staging.projects.get.v1`): several installations can share one NATS. */
  prefix?: string;
  /** Default per-request timeout. */
  timeoutMs: number;
  /** Connection name shown by `nats server report connections`. */
  name: string;
  /**
   * Heartbeat interval asked of services while they work on a request; a
   * request silent for 2.5 intervals is failed as `unavailable` (its service
   * died). 0 turns heartbeats off: a dead service is then noticed at the timeout.
   */
  heartbeatMs?: number;
  auth?: NatsAuth;
  /** Signs who each request is for (principal-seal.ts). */
  seal: PrincipalSeal;
  /** Who requests are for when no caller is in scope: this process itself. */
  identity: Principal;
}

const DEFAULT_HEARTBEAT_MS = 1_000;

/** A request waiting on the reply inbox. */
interface Waiter {
  /** The subject it was published on (prefix included). */
  subject: string;
  timer: NodeJS.Timeout;
  resolve(msg: Msg): void;
  reject(error: unknown): void;
}

/**
 * Reconnect for ever: a gateway must outlive NATS restarts. `noAsyncTraces`:
 * nats.js otherwise builds an Error (stack capture) for every request, in
 * case it fails — measurable per call; our errors carry their own context.
 */
const CONNECTION_DEFAULTS = { maxReconnectAttempts: -1, reconnectTimeWait: 500, noAsyncTraces: true } as const;

/** NATS credentials and TLS trust (NATS_USER/NATS_PASSWORD, NATS_TOKEN, NATS_CREDS, NATS_TLS_CA). */
export interface NatsAuth {
  user?: string;
  password?: string;
  token?: string;
  /** Path of a `.creds` file (JWT and nkey seed), as `nsc` writes it. */
  credsFile?: string;
  /** Path of a PEM file of the CA that signed the NATS server's certificate (TLS is then required). */
  tlsCaFile?: string;
}

/** The connection options of `auth` (a creds file is read once, here). */
function authOptions(auth: NatsAuth = {}): Partial<ConnectionOptions> {
  return {
    ...(auth.user ? { user: auth.user, pass: auth.password } : {}),
    ...(auth.token ? { token: auth.token } : {}),
    ...(auth.credsFile ? { authenticator: credsAuthenticator(readFileSync(auth.credsFile)) } : {}),
    ...(auth.tlsCaFile ? { tls: { caFile: auth.tlsCaFile } } : {}),
  };
}

function serverList(servers: string): string[] {
  return servers
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Request/reply over NATS using one shared reply subscription (muxed, as
 * `nc.request` is, without its per-request cost: see `send`), in Nest's packet
 * format so `ServerNats` answers it.
 * Compared with Nest's `ClientNats` (one subscription per request and no
 * "no responders" signal) it reports a stopped service at once as
 * `unavailable` instead of waiting for the timeout. Requests in flight are
 * failed as `unavailable` at once when the connection to NATS drops, and
 * within 2.5 heartbeats when the service working on them dies (see
 * liveness.ts). See docs/adr/0003 and 0012.
 */
export class NatsBusClient implements BusClient {
  private readonly logger = new Logger('NatsBus');
  private nc: NatsConnection | undefined;
  private connected = false;
  private closed = false;
  private readonly connecting: Promise<void>;
  private readonly heartbeatMs: number;
  private readonly pending: PendingRequests<BusError>;
  /** Subject prefix of this client's heartbeat inbox (`<inbox>.<request key>`). */
  private heartbeatInbox: string | undefined;
  /** Subject prefix of this client's reply inbox (`<inbox>.<request key>`), and the requests waiting there by key. */
  private replyInbox = '';
  private readonly replies = new Map<string, Waiter>();
  private nextKey = 0;
  /** Requests of one turn of the event loop: the turn's first sent at once, the rest in one write at its end. */
  private readonly outgoing = new PublishBatch();

  constructor(private readonly options: NatsBusOptions) {
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.pending = new PendingRequests(this.heartbeatMs, (silentMs) =>
      busError(
        'unavailable',
        `The service stopped answering (nothing heard from it for ${Math.round(silentMs)} ms): it probably stopped or crashed; try again.`,
      ),
    );
    this.connecting = this.connect();
  }

  /**
   * Whether the first connection is up, once it is or, if given, `withinMs` has passed (without a bound it may never
   * resolve, if NATS never comes).
   */
  async whenConnected(withinMs?: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const bound = withinMs === undefined ? [] : [new Promise((resolve) => (timer = setTimeout(resolve, withinMs)))];
    try {
      await Promise.race([this.connecting, ...bound]);
    } finally {
      clearTimeout(timer);
    }
    return this.connected;
  }

  isConnected(): boolean {
    return this.connected;
  }

  /**
   * Keeps trying until the first connection is up (the library then handles
   * reconnects itself). Our own loop, rather than `waitOnFirstConnect`, so that
   * `close()` can stop it: a client whose NATS never came must not keep the
   * process alive.
   */
  private async connect(): Promise<void> {
    let nc: NatsConnection | undefined;
    let warned = false;
    while (!nc) {
      if (this.closed) return;
      try {
        nc = await connect({
          servers: serverList(this.options.servers),
          name: this.options.name,
          ...CONNECTION_DEFAULTS,
          ...authOptions(this.options.auth),
        });
      } catch (error) {
        if (!warned) this.logger.warn(`NATS at ${this.options.servers} is not reachable yet (${String(error)}); retrying`);
        warned = true;
        await new Promise((r) => setTimeout(r, CONNECTION_DEFAULTS.reconnectTimeWait));
      }
    }
    if (this.closed) {
      await nc.close();
      return;
    }
    this.nc = nc;
    this.replyInbox = createInbox();
    nc.subscribe(`${this.replyInbox}.*`, { callback: (error, msg) => this.replied(error, msg) });
    if (this.heartbeatMs > 0) {
      const inbox = createInbox();
      this.heartbeatInbox = inbox;
      nc.subscribe(`${inbox}.*`, { callback: (_error, msg) => this.pending.heard(msg.subject.slice(inbox.length + 1)) });
    }
    this.connected = true;
    this.logger.log(`connected to NATS ${nc.getServer()}`);
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'disconnect') {
          this.connected = false;
          this.logger.warn('disconnected from NATS; reconnecting');
          // Replies to what is in flight are lost with the connection: say so now, not at the timeout.
          this.pending.failAll(
            busError(
              'unavailable',
              'The connection to the message bus (NATS) was lost while the request was in flight; try again shortly.',
            ),
          );
        } else if (status.type === 'error' && status.error instanceof natsErrors.PermissionViolationError) {
          // A publish NATS refuses (a permission): its requests fail now, not at their timeout (as nc.request did).
          const refused = status.error;
          if (refused.operation === 'publish')
            for (const [key, waiter] of [...this.replies]) if (waiter.subject === refused.subject) this.settle(key, refused);
        } else if (status.type === 'reconnect') {
          this.connected = true;
          this.logger.log('reconnected to NATS');
        }
      }
    })();
  }

  async request<T>(subject: string, data: unknown, options: RequestOptions = {}): Promise<T> {
    const nc = this.nc;
    if (!nc || !this.connected) {
      busFailures.inc({ subject, reason: 'disconnected' });
      throw new BusRequestError(
        // Its address is the deployment's, not the caller's business (the logs name it).
        busError('unavailable', 'The message bus (NATS) is not reachable; try again shortly.'),
      );
    }
    const timeout = options.timeoutMs ?? this.options.timeoutMs;
    // Not exported, the span would be seen by no one: the request then carries the active context as it is.
    const span = spansExported()
      ? tracer.startSpan(`${subject} send`, {
          kind: SpanKind.CLIENT,
          attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject },
        })
      : undefined;
    const hdrs = natsHeaders();
    for (const [key, value] of Object.entries(options.headers ?? {})) hdrs.set(key, value);
    injectTraceContext(hdrs, span ? trace.setSpan(context.active(), span) : context.active());
    hdrs.set(TIMEOUT_MS_HEADER, String(timeout));
    // For the caller this work is for (a tool call, or the request a service is answering), else this process.
    const sealed = this.options.seal.seal(currentPrincipal() ?? this.options.identity, baseSubject(subject), timeout);
    for (const [name, value] of Object.entries(sealed)) hdrs.set(name, value);
    const key = (this.nextKey++).toString(36);
    if (this.heartbeatInbox) {
      hdrs.set(HEARTBEAT_TO_HEADER, `${this.heartbeatInbox}.${key}`);
      hdrs.set(HEARTBEAT_MS_HEADER, String(this.heartbeatMs));
    }
    const packet: RequestPacket = { pattern: subject, data, id: nextPacketId() };
    try {
      const msg = await new Promise<Msg>((resolve, reject) => {
        this.pending.add(key, (error) => reject(new BusRequestError(error)));
        this.send(nc, subject, JSON.stringify(packet), hdrs, key, timeout, resolve, reject);
      });
      const reply = msg.json<ReplyPacket>();
      if (reply.err !== undefined && reply.err !== null) throw new BusRequestError(replyError(reply.err, subject));
      return reply.response as T;
    } catch (error) {
      const failure = error instanceof BusRequestError ? error : new BusRequestError(this.transportError(error, subject, timeout));
      markSpanError(span, failure.error.code, failure.error.message);
      throw failure;
    } finally {
      this.pending.delete(key);
      this.forget(key);
      span?.end();
    }
  }

  /**
   * Publishes a request whose reply comes to this client's reply inbox (`<inbox>.<key>`), one shared subscription
   * for all requests, as nats.js's muxed `request` does, and settles `resolve`/`reject` with the reply, the server's
   * "no responders" status, a timeout, or a refusal of the publish. Not `nc.request`: its request object builds an
   * Error (a stack capture) for every request it resolves, and races two promises and a timer of its own.
   */
  private send(
    nc: NatsConnection,
    subject: string,
    payload: string,
    headers: MsgHdrs,
    key: string,
    timeoutMs: number,
    resolve: (msg: Msg) => void,
    reject: (error: unknown) => void,
  ): void {
    const wire = withPrefix(this.options.prefix, subject);
    const timer = setTimeout(() => {
      this.forget(key);
      reject(new natsErrors.TimeoutError());
    }, timeoutMs);
    this.replies.set(key, { subject: wire, timer, resolve, reject });
    this.outgoing.add(() => {
      // Failed or timed out before its turn ended (a disconnect, close()): not sent, or it would run for no one.
      if (!this.replies.has(key)) return;
      try {
        nc.publish(wire, payload, { reply: `${this.replyInbox}.${key}`, headers });
      } catch (error) {
        this.forget(key);
        reject(error);
      }
    });
  }

  /** A message on the reply inbox: the reply to one request, or the server saying nothing subscribes to its subject. */
  private replied(error: Error | null, msg: Msg): void {
    if (error) {
      // The reply inbox itself is refused (a NATS permission): no request of this client can be answered.
      for (const key of [...this.replies.keys()]) this.settle(key, error);
      return;
    }
    const key = msg.subject.slice(this.replyInbox.length + 1);
    const waiter = this.replies.get(key);
    if (!waiter) return; // late: the request timed out or failed already
    if (msg.data.length === 0 && msg.headers?.code === 503) return this.settle(key, new natsErrors.NoRespondersError(waiter.subject));
    this.forget(key);
    waiter.resolve(msg);
  }

  /** Fails request `key` with `error` (if still waiting). */
  private settle(key: string, error: Error): void {
    const waiter = this.replies.get(key);
    if (!waiter) return;
    this.forget(key);
    waiter.reject(error);
  }

  private forget(key: string): void {
    const waiter = this.replies.get(key);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.replies.delete(key);
  }

  private transportError(error: unknown, subject: string, timeout: number): BusError {
    const service = serviceOf(subject);
    const noResponders =
      error instanceof natsErrors.NoRespondersError || (error instanceof natsErrors.RequestError && error.isNoResponders());
    if (noResponders) {
      busFailures.inc({ subject, reason: 'no_responders' });
      return busError('unavailable', `The ${service} service is not running (nothing answers ${subject}); try again shortly.`);
    }
    const timedOut =
      error instanceof natsErrors.TimeoutError ||
      (error instanceof natsErrors.RequestError && error.cause instanceof natsErrors.TimeoutError);
    if (timedOut && this.connected) {
      busFailures.inc({ subject, reason: 'timeout' });
      return busError('timeout', `The ${service} service did not answer within ${timeout} ms.`, { timeout_ms: timeout });
    }
    busFailures.inc({ subject, reason: 'disconnected' });
    return busError('unavailable', `The message bus could not deliver the request to ${service}; try again shortly.`);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.connected = false;
    this.pending.failAll(busError('unavailable', 'The gateway is shutting down; try again shortly.'));
    await this.nc?.drain().catch(() => this.nc?.close());
  }
}

function withPrefix(prefix: string | undefined, subject: string): string {
  return prefix ? `${prefix}.${subject}` : subject;
}

export interface NatsServerOptions {
  servers: string;
  service: ServiceName;
  /** Same as `NatsBusOptions.prefix`; gateway and services must agree. */
  prefix?: string;
  /** How long `close()` waits for the requests in hand to be answered. */
  gracePeriodMs?: number;
  auth?: NatsAuth;
  /** This process's shard of a sharded service (SEXTANT_SHARD of SEXTANT_SHARDS); see contracts' shards.ts. */
  shard?: { index: number; count: number };
  /** Opens the principal of each request; one without a valid one is refused before its handler runs. */
  seal: PrincipalSeal;
}

const DEFAULT_GRACE_PERIOD_MS = 10_000;

/**
 * Nest's `ServerNats`, with these changes: subjects may carry an
 * installation prefix while handlers stay keyed by the plain subject; a
 * handler is looked up without first trying `JSON.parse` on the subject (Nest
 * does so for object patterns; ours are strings, and the thrown SyntaxError
 * cost a stack capture on every message); a reply larger than the server's
 * `max_payload` becomes an error reply instead of a failed publish that would
 * leave the caller waiting for its timeout; requests are tracked, with
 * heartbeats to callers that ask for them (liveness.ts); and `close()` stops
 * taking requests, answers those it holds (up to a grace period), then drains
 * the connection so the last replies are flushed.
 */
export class SextantServerNats extends ServerNats {
  /** Also the service's `sextant_requests_in_flight`. */
  private readonly active = new ActiveRequests((n) => requestsInFlight.set({ component: this.service }, n));
  /** Replies of one turn of the event loop: the turn's first sent at once, the rest in one write at its end. */
  private readonly replies = new PublishBatch();

  constructor(
    options: ConstructorParameters<typeof ServerNats>[0] & { queue: string },
    private readonly service: ServiceName,
    private readonly prefix: string | undefined,
    private readonly gracePeriodMs: number,
    private readonly shard: { index: number; count: number } | undefined,
    private readonly seal: PrincipalSeal,
    private readonly queue = options.queue,
  ) {
    super(options);
  }

  override getRouteFromPattern(pattern: string): string {
    return pattern.startsWith('{') ? super.getRouteFromPattern(pattern) : this.normalizePattern(pattern);
  }

  override async handleMessage(channel: string, natsMsg: Msg): Promise<unknown> {
    const opened = this.seal.open(natsMsg.headers?.get(PRINCIPAL_HEADER), natsMsg.headers?.get(PRINCIPAL_SIGNATURE_HEADER), channel);
    if ('refused' in opened) return this.refuse(channel, natsMsg, opened.refused);
    try {
      // Interactive work for the caller's principal, stopped when the caller's deadline passes (request-scope.ts).
      const deadlineMs = Number(natsMsg.headers?.get(TIMEOUT_MS_HEADER)) || undefined;
      return await inRequestScope(deadlineMs, () => super.handleMessage(channel, natsMsg), opened.principal);
    } catch (error) {
      this.active.end(natsMsg);
      throw error;
    }
  }

  /** A request without a valid principal: answered `forbidden` (when it asks for an answer), its handler never run. */
  private refuse(subject: string, natsMsg: Msg, why: string): void {
    this.logger.warn(`refused a request on ${subject}: ${why}`);
    if (!natsMsg.reply) return;
    let id: string | undefined;
    try {
      id = natsMsg.json<{ id?: string }>().id;
    } catch {
      // not even a packet: the reply has no id
    }
    const err = busError('forbidden', `The ${this.service} service refused the request: ${why}.`);
    natsMsg.respond(JSON.stringify({ id, err, isDisposed: true }));
  }

  override getPublisher(natsMsg: Msg, id: string, _ctx: NatsContext): (response: Record<string, unknown>) => void {
    if (!natsMsg.reply) return () => undefined;
    this.track(natsMsg);
    return (response) => {
      let outgoing = this.serializer.serialize({ ...response, id }) as { data: string; headers?: Msg['headers'] };
      const limit = this.connection()?.info?.max_payload;
      const subject = this.prefix ? natsMsg.subject.slice(this.prefix.length + 1) : natsMsg.subject;
      const tooLarge = oversizedReply(subject, outgoing.data, limit);
      if (tooLarge) outgoing = this.serializer.serialize({ id, err: tooLarge }) as typeof outgoing;
      this.replies.add(() => {
        try {
          natsMsg.respond(outgoing.data, { headers: outgoing.headers });
        } finally {
          // Still in hand until its reply is out: close() waits for it before draining the connection.
          if (response.isDisposed) this.active.end(natsMsg);
        }
      });
    };
  }

  /** Counts the request as active; beats to the caller's heartbeat inbox if it named one. */
  private track(natsMsg: Msg): void {
    const to = natsMsg.headers?.get(HEARTBEAT_TO_HEADER) ?? '';
    const intervalMs = Number(natsMsg.headers?.get(HEARTBEAT_MS_HEADER));
    const deadlineMs = Number(natsMsg.headers?.get(TIMEOUT_MS_HEADER)) || undefined;
    const nc = this.connection();
    // Only inboxes: a caller must not make a service publish on another service's subjects.
    const beats = nc && to.startsWith('_INBOX.') && intervalMs > 0;
    const send = () => {
      try {
        nc!.publish(to);
      } catch {
        // closed or invalid subject: the caller notices the silence
      }
    };
    this.active.begin(natsMsg, beats ? { send, intervalMs } : undefined, deadlineMs);
  }

  /**
   * Every subject in the service's queue group; a shard also takes its own
   * subjects (`<subject>.s<index>`) in the queue group of that shard, so a call
   * routed to the shard reaches one of its replicas and no other shard.
   */
  override bindEvents(client: NatsConnection): void {
    for (const channel of this.messageHandlers.keys()) {
      const callback = this.getMessageHandler(channel).bind(this) as NonNullable<SubscriptionOptions['callback']>;
      this.subscriptionList().push(client.subscribe(withPrefix(this.prefix, channel), { queue: this.queue, callback }));
      if (this.shard) {
        const subject = withPrefix(this.prefix, shardSubject(channel, this.shard.index));
        this.subscriptionList().push(client.subscribe(subject, { queue: `${this.queue}.s${this.shard.index}`, callback }));
      }
    }
  }

  override async close(): Promise<void> {
    const nc = this.connection();
    if (!nc) return;
    // No new requests (other replicas, if any, get them); those already delivered are still handled.
    await Promise.all(this.subscriptionList().map((sub) => sub.drain().catch(() => undefined)));
    this.logger.log(`no new requests; answering the ${this.active.size} in hand (for up to ${this.gracePeriodMs} ms)`);
    if (!(await this.active.idle(this.gracePeriodMs))) {
      this.logger.warn(`${this.active.size} request(s) still unanswered after ${this.gracePeriodMs} ms; closing anyway`);
    }
    // Replies queued in this turn first (the grace period may have ended with some), then drain: flushes and closes.
    this.replies.flush();
    await nc.drain().catch(() => nc.close());
    this.statusEventEmitter.removeAllListeners();
    (this as unknown as { natsClient: NatsConnection | null }).natsClient = null;
  }

  /** Whether NATS answers a round trip (a ping) within `timeoutMs`; undefined when it does, else why not. */
  async unreachable(timeoutMs: number): Promise<string | undefined> {
    const nc = this.connection();
    if (!nc || nc.isClosed()) return 'not connected to NATS';
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`NATS did not answer a ping within ${timeoutMs} ms`), timeoutMs);
    });
    try {
      return await Promise.race([nc.flush().then(() => undefined), late]);
    } catch (error) {
      return `NATS ping failed: ${(error as Error).message}`;
    } finally {
      clearTimeout(timer);
    }
  }

  // `natsClient` and `subscriptions` are private in the typings of ServerNats.
  private connection(): NatsConnection | null | undefined {
    return (this as unknown as { natsClient?: NatsConnection | null }).natsClient;
  }

  private subscriptionList(): Subscription[] {
    return (this as unknown as { subscriptions: Subscription[] }).subscriptions;
  }
}

/**
 * The transport strategy of a service process: Nest's `ServerNats`, its
 * replicas sharing one queue group, every message traced.
 */
export function natsServer({ servers, service, prefix, gracePeriodMs, shard, auth, seal }: NatsServerOptions): SextantServerNats {
  const options = {
    servers: serverList(servers),
    queue: queueGroup(service),
    name: `sextant-${service}`,
    // Start in any order: a service started before NATS waits for it, as the gateway does.
    waitOnFirstConnect: true,
    ...CONNECTION_DEFAULTS,
    ...authOptions(auth),
  };
  const server = new SextantServerNats(options, service, prefix, gracePeriodMs ?? DEFAULT_GRACE_PERIOD_MS, shard, seal);
  traceServer(server, service, prefix);
  return server;
}
