import { McpError, ErrorCode as RpcCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A POST holding exactly one plain `tools/call` request. */
export interface DirectToolCall {
  id: string | number;
  name: string;
  arguments: Record<string, unknown> | undefined;
}

const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);

/**
 * Recognizes the one message that is most of the traffic — a single
 * `tools/call` with a name and plain arguments — so the gateway can answer it
 * without building an SDK `Server` for the POST. Anything else (batches,
 * other methods, task-augmented or malformed calls) returns undefined and goes
 * through the SDK, which then also produces the protocol errors.
 */
export function directToolCall(body: unknown): DirectToolCall | undefined {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  const { id, params } = body;
  if (!((typeof id === 'string' && id.length > 0) || Number.isSafeInteger(id)) || !isObject(params)) return undefined;
  if (typeof params.name !== 'string' || Object.keys(params).some((k) => !PARAM_KEYS.has(k))) return undefined;
  if (params.arguments !== undefined && !isObject(params.arguments)) return undefined;
  if (params._meta !== undefined && !isObject(params._meta)) return undefined;
  // A call that asks for progress may stream notifications: the SDK path answers it (as SSE).
  if (params._meta?.progressToken !== undefined) return undefined;
  return { id: id as string | number, name: params.name, arguments: params.arguments };
}

/**
 * The JSON-RPC response for a `CallToolResult` whose `content[0].text` is
 * `structuredContent` serialized (the gateway's results always are): that
 * text is reused as the structured copy instead of serializing the body twice.
 */
export function toolCallResponse(id: string | number, result: CallToolResult): string {
  const text = (result.content[0] as { text: string }).text;
  const flag = result.isError ? ',"isError":true' : '';
  return `{"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}${flag}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/** The JSON-RPC error the SDK would send for an exception thrown by a handler. */
export function toolCallError(id: string | number, error: unknown): string {
  const code = error instanceof McpError ? error.code : RpcCode.InternalError;
  const message = error instanceof McpError ? error.message : 'Internal error';
  const data = error instanceof McpError && error.data !== undefined ? { data: error.data } : {};
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...data } });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
