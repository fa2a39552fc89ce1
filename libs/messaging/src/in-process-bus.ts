import { NatsContext, Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { busError, servicePrincipal, type Principal } from '@sextant/contracts';
import { busFailures, injectTraceContext } from '@sextant/telemetry';
import { serviceOf, type BusClient, type RequestOptions } from './bus-client.js';
import { currentPrincipal, inRequestScope } from '@sextant/work';
import { BusRequestError, oversizedReply, replyError } from './errors.js';
import type { ReplyPacket } from './packets.js';
import { traceServer } from './tracing-hooks.js';

/** JSON round trip: what crosses the bus is data, exactly as over NATS. */
function roundTrip<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

const EMBEDDED = servicePrincipal('embedded');

/** NATS's default `max_payload`: embedded mode refuses the same replies a default NATS would. */
const DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

/**
 * The bus of embedded mode: a Nest transport strategy (services register
 * their `@MessagePattern` handlers on it) that is also the `BusClient` the
 * gateway calls. Same semantics as NATS: payloads and replies are
 * JSON-serialized, requests time out, errors travel as data, headers carry
 * the trace context, and the same processing hooks run.
 */
export class InProcessBus extends Server implements CustomTransportStrategy, BusClient {
  override transportId = Symbol('in-process');
  private listening = false;

  /** `identity`: who requests are for when no caller is in scope (default: the one-process mode itself). */
  constructor(private readonly options: { timeoutMs: number; maxPayloadBytes?: number; identity?: Principal }) {
    super();
    traceServer(this, 'embedded');
  }

  listen(callback: () => void): void {
    this.listening = true;
    callback();
  }

  async close(): Promise<void> {
    this.listening = false;
  }

  on(): void {}

  unwrap<T>(): T {
    return this as unknown as T;
  }

  isConnected(): boolean {
    return this.listening;
  }

  request<T>(subject: string, data: unknown, options: RequestOptions = {}): Promise<T> {
    // Subjects are plain strings, so the handler map is keyed by them (getHandlerByPattern would try JSON.parse first).
    const handler = this.listening ? this.messageHandlers.get(subject) : undefined;
    if (!handler) {
      busFailures.inc({ subject, reason: 'no_responders' });
      return Promise.reject(
        new BusRequestError(busError('unavailable', `The ${serviceOf(subject)} service is not running (nothing answers ${subject}).`)),
      );
    }
    const timeout = options.timeoutMs ?? this.options.timeoutMs;
    const hdrs = natsHeaders();
    for (const [key, value] of Object.entries(options.headers ?? {})) hdrs.set(key, value);
    injectTraceContext(hdrs);
    const ctx = new NatsContext([subject, hdrs]);
    const payload = roundTrip(data);

    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const timer = setTimeout(
        () =>
          settle(() => {
            busFailures.inc({ subject, reason: 'timeout' });
            reject(
              new BusRequestError(
                busError('timeout', `The ${serviceOf(subject)} service did not answer within ${timeout} ms.`, { timeout_ms: timeout }),
              ),
            );
          }),
        timeout,
      );
      const respond = (packet: ReplyPacket) => {
        const json = JSON.stringify(packet);
        const tooLarge = oversizedReply(subject, json, this.options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES);
        const reply: ReplyPacket = tooLarge ? { err: tooLarge } : (JSON.parse(json) as ReplyPacket);
        if (reply.err !== undefined && reply.err !== null) settle(() => reject(new BusRequestError(replyError(reply.err, subject))));
        else if ('response' in reply || reply.isDisposed) settle(() => resolve(reply.response as T));
      };
      // As over NATS: the handler's work is interactive and stops when this request's timeout passes.
      // No seal in process (nothing outside it reaches this bus): the caller's principal goes straight into the handler's scope.
      const principal = currentPrincipal() ?? this.options.identity ?? EMBEDDED;
      inRequestScope(
        timeout,
        () => this.handleRequest(ctx, async () => this.transformToObservable(await handler(payload, ctx)), respond),
        principal,
      );
    });
  }
}
