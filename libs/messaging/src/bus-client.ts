/**
 * What the gateway (or any caller) uses to ask a service: one request, one
 * reply, or a `BusRequestError` carrying the error as data. Implemented over
 * NATS (distributed) and in process (embedded) with the same semantics:
 * JSON round trip, a per-request timeout, errors as `{code, message, details, retryable}`.
 */
export interface BusClient {
  request<T = unknown>(subject: string, data: unknown, options?: RequestOptions): Promise<T>;
  /** False while the transport cannot reach any service (NATS down). */
  isConnected(): boolean;
  close(): Promise<void>;
}

export interface RequestOptions {
  /** Overrides the client's default timeout for this request. */
  timeoutMs?: number;
  /** Extra headers (e.g. the request id); trace context is added automatically. */
  headers?: Record<string, string>;
}

/** The service a subject belongs to: its first token (`git-cache.grep.v1` → `git-cache`). */
export function serviceOf(subject: string): string {
  return subject.slice(0, subject.indexOf('.'));
}

/** Injection token of the `BusClient` in Nest modules. */
export const BUS_CLIENT = Symbol('BUS_CLIENT');

/** Header carrying the gateway's request id to the service (for logs). */
export const REQUEST_ID_HEADER = 'sextant-request-id';
