import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode as RpcCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * The requests the gateway serves, by method, with the SDK's own schemas. A
 * Map: the method is the client's, and a plain object would answer
 * `constructor` or `__proto__` with what it inherits.
 */
const SCHEMAS = new Map<string, { safeParse(value: unknown): { success: boolean; error?: { issues: ZodIssueLike[] } } }>([
  ['initialize', InitializeRequestSchema],
  ['tools/call', CallToolRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['resources/list', ListResourcesRequestSchema],
  ['resources/read', ReadResourceRequestSchema],
  ['prompts/list', ListPromptsRequestSchema],
]);

interface ZodIssueLike {
  path: PropertyKey[];
  message: string;
}

/**
 * Why a request's params are invalid, on one line (`params.arguments:
 * expected record, received array`), or undefined when they are valid or the
 * method is not one the gateway checks. The SDK would answer these with
 * -32603 and a multi-line dump of the schema error.
 */
export function invalidParams(message: JSONRPCMessage): string | undefined {
  if (!isJSONRPCRequest(message)) return undefined;
  const schema = typeof message.method === 'string' ? SCHEMAS.get(message.method) : undefined;
  const result = schema?.safeParse({ method: message.method, params: message.params });
  if (!result || result.success) return undefined;
  const issue = result.error!.issues[0];
  const path = issue.path.map(String).join('.') || 'params';
  return `Invalid params for ${message.method}: ${path}: ${issue.message.replace(/^Invalid input: /, '')}.`;
}

/**
 * Makes a connected transport answer requests with invalid params with
 * JSON-RPC -32602 and a one-line message, before the SDK sees them.
 */
export function guardParams(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    const problem = invalidParams(message);
    if (problem === undefined) return deliver(message, extra);
    const id = (message as { id: string | number }).id;
    void transport.send({ jsonrpc: '2.0', id, error: { code: RpcCode.InvalidParams, message: problem } });
  };
}
