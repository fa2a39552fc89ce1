import type { Response } from 'express';

/** An HTTP error answered with a JSON-RPC error body (what MCP clients parse). */
export function jsonRpcError(res: Response, status: number, code: number, message: string, data?: Record<string, unknown>): void {
  res.status(status).json({ jsonrpc: '2.0', id: null, error: { code, message, ...(data ? { data } : {}) } });
}
