import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, request } from 'node:http';
import { repoPath } from './paths.js';

export interface ToolCall<T = Record<string, unknown>> {
  isError: boolean;
  /** `structuredContent`, checked to equal the JSON in `content[0].text`. */
  body: T & { metadata: { execution_time_ms: number; request_id: string; trace_id: string } };
}

export interface ErrorBody {
  error: string;
  message: string;
  details?: { fields?: Record<string, string> } & Record<string, unknown>;
}

/** An MCP client over Streamable HTTP, the way Claude Code or Cursor connect. */
export async function httpClient(url: string, options: { bearer?: string } = {}): Promise<Client> {
  const client = new Client({ name: 'sextant-tests', version: '1.0.0' });
  const requestInit = options.bearer ? { headers: { authorization: `Bearer ${options.bearer}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  return client;
}

/** An MCP client that spawns `node <script> --stdio` and speaks over its stdin/stdout. */
export async function stdioClient(script: string, env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [repoPath(script), '--stdio'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stderr: 'pipe',
    cwd: repoPath('.'),
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'sextant-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/**
 * Calls a tool and returns its structured result. Fails loudly if the text
 * copy differs from `structuredContent` (the catalog requires both).
 */
export async function callTool<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolCall<T>> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text: string }>;
  const structured = result.structuredContent as ToolCall<T>['body'];
  if (!structured || content?.[0]?.type !== 'text' || JSON.stringify(JSON.parse(content[0].text)) !== JSON.stringify(structured)) {
    throw new Error(`tool ${name} did not return the same JSON as structuredContent and text: ${JSON.stringify(result)}`);
  }
  return { isError: result.isError === true, body: structured };
}

/** Calls one tool and returns `{isError, body}` (the structured content). */
export type ToolCaller = <T = Record<string, unknown>>(name: string, args: Record<string, unknown>) => Promise<ToolCall<T>>;

/** A `ToolCaller` over an MCP SDK client. */
export function sdkCaller(client: Client): ToolCaller {
  return (name, args) => callTool(client, name, args);
}

/**
 * The least a client can do: one keep-alive HTTP POST of a `tools/call`
 * JSON-RPC message per call, no SDK. Benchmarks use it to charge the server,
 * not a client library, for the time a call takes.
 */
export function leanCaller(url: string): ToolCaller & { close(): void } {
  const agent = new Agent({ keepAlive: true });
  const target = new URL(url);
  let id = 0;
  const call = <T>(name: string, args: Record<string, unknown>) =>
    new Promise<ToolCall<T>>((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } });
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('error', reject);
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            try {
              const reply = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
                result?: { isError?: boolean; structuredContent: ToolCall<T>['body'] };
                error?: unknown;
              };
              if (!reply.result) return reject(new Error(`tools/call ${name} failed: ${JSON.stringify(reply.error)}`));
              resolve({ isError: reply.result.isError === true, body: reply.result.structuredContent });
            } catch (error) {
              reject(error);
            }
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return Object.assign(call, { close: () => agent.destroy() });
}

/** Raw JSON-RPC over HTTP, for what the SDK client would refuse to send (malformed bodies, wrong methods). */
export async function postRaw(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any; headers: Headers }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json, headers: response.headers };
}
