import type { ServerResponse } from 'node:http';

/** Writes `body` as a JSON response (works on Express's response too, which is a `ServerResponse`). */
export function writeJson(res: ServerResponse, status: number, body: string | object): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** An HTTP error answered with a JSON-RPC error body (what MCP clients parse). */
export function jsonRpcError(res: ServerResponse, status: number, code: number, message: string, data?: Record<string, unknown>): void {
  writeJson(res, status, { jsonrpc: '2.0', id: null, error: { code, message, ...(data ? { data } : {}) } });
}
