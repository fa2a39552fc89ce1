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
export const MAX_BATCH = 100;

/**
 * Streamable HTTP, stateless, JSON responses — one instance per POST.
 *
 * It does what the SDK's `StreamableHTTPServerTransport` does in this mode
 * (Accept/Content-Type/protocol-version checks, batches, 202 for
 * notification-only posts, one JSON body with every response) but works on
 * Express's request and parsed body directly instead of converting to Web
 * `Request`/`Response` objects and back, which was a third of the gateway's
 * time per call (measured in bench/gateway; see docs/adr/0005). There are no
 * sessions and no SSE streams: GET and DELETE answer 405.
 */
export class StatelessHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly pending = new Set<RequestId>();
  private readonly responses: JSONRPCMessage[] = [];
  private batch = false;
  private closed = false;

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
    if (this.pending.size === 0) {
      this.res.writeHead(202);
      this.res.end();
    }
    for (const message of messages) this.onmessage?.(message);
  }

  /** Collects responses; notifications have no stream to travel on in JSON mode and are dropped, as in the SDK. */
  async send(message: JSONRPCMessage): Promise<void> {
    const id = (message as { id?: RequestId }).id;
    if (id === undefined || isJSONRPCRequest(message) || !this.pending.delete(id)) return;
    this.responses.push(message);
    if (this.pending.size > 0 || this.res.headersSent || this.closed) return;
    writeJson(this.res, 200, this.batch ? this.responses : this.responses[0]!);
  }
}
