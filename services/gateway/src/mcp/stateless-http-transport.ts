import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isInitializeRequest,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { ServerResponse } from 'node:http';
import { jsonRpcError, writeJson } from '../http/json-rpc-error.js';

/** Most messages one POST may carry as a JSON-RPC batch. */
const MAX_BATCH = 100;

/**
 * Streamable HTTP, stateless, JSON responses — one instance per POST.
 *
 * It does what the SDK's `StreamableHTTPServerTransport` does in this mode
 * (Accept/Content-Type/protocol-version checks, batches, 202 for
 * notification-only posts, one JSON body with every response) but works on
 * Express's request and parsed body directly instead of converting to Web
 * `Request`/`Response` objects and back, which was a third of the gateway's
 * time per call (measured in bench/gateway; see docs/adr/0005). There are no
 * sessions: GET and DELETE answer 405. A POST whose request asks for progress
 * (`_meta.progressToken`) is answered as an SSE stream that carries the
 * progress notifications and then the response; any other POST gets one JSON body.
 */
export class StatelessHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly pending = new Set<RequestId>();
  private readonly responses: JSONRPCMessage[] = [];
  private batch = false;
  private closed = false;
  /** Answer as an SSE stream (some request asked for progress). */
  private stream = false;

  constructor(private readonly res: ServerResponse) {}

  async start(): Promise<void> {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  /** Hands the messages of a POST (headers already checked by McpEndpoint) to the server; the reply is written when every request is answered. */
  handle(body: unknown): void {
    this.batch = Array.isArray(body);
    const raw = this.batch ? (body as unknown[]) : [body];
    if (raw.length === 0 || raw.length > MAX_BATCH) {
      return jsonRpcError(this.res, 400, -32600, `Invalid Request: a batch holds 1 to ${MAX_BATCH} messages.`);
    }
    const messages: JSONRPCMessage[] = [];
    for (const item of raw) {
      const parsed = JSONRPCMessageSchema.safeParse(item);
      if (!parsed.success) return jsonRpcError(this.res, 400, -32600, 'Invalid Request: not a JSON-RPC 2.0 message.');
      messages.push(parsed.data);
    }
    if (messages.some(isInitializeRequest) && messages.length > 1) {
      return jsonRpcError(this.res, 400, -32600, 'Invalid Request: initialize must be sent alone.');
    }
    for (const message of messages) if (isJSONRPCRequest(message)) this.pending.add(message.id);
    this.stream = messages.some((m) => isJSONRPCRequest(m) && m.params?._meta?.progressToken !== undefined);
    if (this.pending.size === 0) {
      this.res.writeHead(202);
      this.res.end();
    }
    for (const message of messages) this.onmessage?.(message);
  }

  /** Collects responses; notifications have no stream to travel on in JSON mode and are dropped, as in the SDK. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.stream) return this.sendEvent(message);
    const id = (message as { id?: RequestId }).id;
    if (id === undefined || isJSONRPCRequest(message) || !this.pending.delete(id)) return;
    this.responses.push(message);
    if (this.pending.size > 0 || this.res.headersSent || this.closed) return;
    writeJson(this.res, 200, this.batch ? this.responses : this.responses[0]);
  }

  /** SSE mode: every message is an event as it comes; the stream ends with the last response. */
  private sendEvent(message: JSONRPCMessage): void {
    if (this.closed || this.res.writableEnded) return;
    const id = (message as { id?: RequestId }).id;
    const isResponse = id !== undefined && !isJSONRPCRequest(message);
    if (isResponse && !this.pending.delete(id)) return;
    if (!this.res.headersSent) {
      this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    }
    this.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    if (isResponse && this.pending.size === 0) this.res.end();
  }
}
