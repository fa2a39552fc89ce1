import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { ActiveRequests } from '@sextant/messaging';
import { context, extractTraceContext } from '@sextant/telemetry';
import { Authenticator } from '../auth/authenticator.js';
import { authenticateRequest } from '../auth/protected-resource.js';
import type { GatewayConfig } from '../config.js';
import { ConnectionGuard, refuseBody } from '../http/connection-guard.js';
import { hostOrOriginRefusal } from '../http/http-setup.js';
import { jsonRpcError, writeJson } from '../http/json-rpc-error.js';
import { SCIP_PATH, ScipUploadEndpoint } from '../scip/scip-upload.endpoint.js';
import { GATEWAY_CONFIG } from '../tokens.js';
import { directToolCall, toolCallError, toolCallResponse } from './direct-tool-call.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { StatelessHttpTransport } from './stateless-http-transport.js';
import { ToolDispatcher } from './tool-dispatcher.js';

const MCP_PATHS = new Set(['/mcp', '/']);

/**
 * MCP over Streamable HTTP, stateless, JSON responses: `POST /mcp` and
 * `POST /`, served straight from `node:http` in front of Express (which keeps
 * every other route: health, 404s, 405s). Routing, body parsing and Nest's
 * request pipeline were about a seventh of the gateway's CPU per call for
 * work this handler does in a few lines. A single plain `tools/call` goes
 * straight to the dispatcher; every other POST gets a fresh SDK server and
 * transport (docs/adr/0011).
 */
@Injectable()
export class McpEndpoint {
  private readonly logger = new Logger('McpEndpoint');
  /** MCP POSTs being answered; shutdown waits for them. */
  private readonly active = new ActiveRequests();
  private stopping = false;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly factory: McpServerFactory,
    private readonly dispatcher: ToolDispatcher,
    private readonly auth: Authenticator,
    private readonly scip: ScipUploadEndpoint,
  ) {}

  /** Puts this endpoint in front of the HTTP server's existing request listener (Express). */
  install(server: Server): void {
    const others = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
    server.removeAllListeners('request');
    const guard = ConnectionGuard.of(server);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      guard?.request(req, res);
      if (req.method === 'POST' && MCP_PATHS.has(pathOf(req.url))) {
        if (this.stopping) {
          res.setHeader('connection', 'close');
          return jsonRpcError(res, 503, -32000, 'The gateway is shutting down; send the request again (another replica answers it).');
        }
        this.active.begin(res);
        res.once('close', () => this.active.end(res));
        this.handle(req, res, guard).catch((error: unknown) => {
          this.logger.error(`MCP request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal error; it was logged.');
        });
      } else if (req.method === 'POST' && pathOf(req.url) === SCIP_PATH && !this.stopping) {
        // A SCIP upload (ADR 0056): its body is streamed to symbol-indexer, not read here.
        this.active.begin(res);
        res.once('close', () => this.active.end(res));
        this.scip.handle(req, res, guard).catch((error: unknown) => {
          this.logger.error(`SCIP upload failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          if (!res.headersSent) writeJson(res, 500, { error: 'internal_error', message: 'Internal error; it was logged.' });
        });
      } else {
        // No route of Express reads a body: one sent is never read.
        refuseBody(req, res);
        for (const listener of others) listener(req, res);
      }
    });
  }

  /** True once `drain` began: readiness is false and new MCP POSTs are refused with 503. */
  get draining(): boolean {
    return this.stopping;
  }

  /**
   * Shutdown: refuses new MCP POSTs (503, `Connection: close`) and resolves
   * once the calls in hand are answered, or when `graceMs` passes first.
   */
  async drain(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.active.size > 0) this.logger.log(`answering the ${this.active.size} MCP request(s) in hand (for up to ${graceMs} ms)`);
    if (!(await this.active.idle(graceMs))) {
      this.logger.warn(`${this.active.size} MCP request(s) still unanswered after ${graceMs} ms; closing anyway`);
    }
  }

  /**
   * Everything that can refuse a request does so from its headers, before a
   * byte of its body is read (docs/adr/0045): the body of a caller that is
   * not authenticated is never read, and its connection closes after the answer.
   */
  private async handle(req: IncomingMessage, res: ServerResponse, guard: ConnectionGuard | undefined): Promise<void> {
    const refusal = hostOrOriginRefusal(req.headers, this.config);
    if (refusal) {
      refuseBody(req, res);
      return jsonRpcError(res, 403, -32000, refusal);
    }
    const principal = await authenticateRequest(this.auth, this.config, req, res);
    if (!principal) return;
    guard?.vouch(req.socket);
    // A caller may keep its query text out of the audit trail (the rest of the record is kept).
    const auditQuery = header(req, 'sextant-audit-query')?.toLowerCase() !== 'off';
    if (!acceptsPost(req, res)) return;
    const body = await readJson(req, res, this.config.maxBodyBytes, this.config.http.bodyTimeoutMs);
    if (body === NO_BODY) return;
    // A client may send its own W3C traceparent; the call then joins the client's trace.
    const parent = extractTraceContext({ get: (name) => header(req, name), set: () => undefined });
    const call = directToolCall(body);
    if (call) {
      const answer = await context.with(parent, () =>
        this.dispatcher.call(call.name, call.arguments, { principal, auditQuery }).then(
          (result) => toolCallResponse(call.id, result),
          (error: unknown) => toolCallError(call.id, error),
        ),
      );
      return writeJson(res, 200, answer);
    }
    const transport = new StatelessHttpTransport(res);
    const server = await this.factory.connect(transport, { stdio: false, principal, auditQuery });
    res.on('close', () => void server.close());
    context.with(parent, () => transport.handle(body));
  }
}

/**
 * The header checks of Streamable HTTP for a POST (Accept, Content-Type,
 * protocol version). On failure the error response is written and false returned.
 */
function acceptsPost(req: IncomingMessage, res: ServerResponse): boolean {
  // Refused from the headers: the body is not read, and the connection closes after the answer.
  const refuse = (status: number, message: string) => {
    refuseBody(req, res);
    jsonRpcError(res, status, -32000, message);
    return false;
  };
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return refuse(406, 'Not Acceptable: the client must accept both application/json and text/event-stream.');
  }
  const contentType = (req.headers['content-type'] ?? '').split(';', 1)[0].trim().toLowerCase();
  if (contentType !== 'application/json') {
    return refuse(415, 'Unsupported Media Type: Content-Type must be application/json.');
  }
  const version = req.headers['mcp-protocol-version'];
  if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return refuse(400, `Bad Request: unsupported protocol version ${version} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}).`);
  }
  return true;
}

const NO_BODY = Symbol('no body');

/**
 * Reads and parses a JSON body of at most `limit` bytes, which must be all in
 * within `timeoutMs` (a body sent a byte at a time holds a connection no
 * longer). On a failure the error response (413, 415, 400, 408) is written
 * and NO_BODY returned; a body refused before it is all in is not read
 * further, and the connection closes after the answer (ConnectionGuard).
 */
function readJson(req: IncomingMessage, res: ServerResponse, limit: number, timeoutMs: number): Promise<unknown> {
  const tooLarge = () =>
    jsonRpcError(res, 413, -32600, `Request body larger than ${limit} bytes (SEXTANT_MAX_BODY_BYTES).`, {
      error: 'invalid_input',
      limit_bytes: limit,
    });
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    refuseBody(req, res);
    jsonRpcError(res, 415, -32000, `Unsupported Content-Encoding "${encoding}": send the JSON body uncompressed.`);
    return Promise.resolve(NO_BODY);
  }
  if (Number(req.headers['content-length'] ?? 0) > limit) {
    refuseBody(req, res);
    tooLarge();
    return Promise.resolve(NO_BODY);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let refused = false;
    const deadline = setTimeout(() => {
      refused = true;
      refuseBody(req, res);
      jsonRpcError(res, 408, -32600, `The request body did not arrive within ${timeoutMs} ms (SEXTANT_HTTP_BODY_TIMEOUT_MS).`);
      resolve(NO_BODY);
    }, timeoutMs);
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      length += chunk.length;
      if (length > limit) {
        refused = true;
        clearTimeout(deadline);
        refuseBody(req, res);
        tooLarge();
        return resolve(NO_BODY);
      }
      chunks.push(chunk);
    });
    req.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    req.on('close', () => clearTimeout(deadline));
    req.on('end', () => {
      clearTimeout(deadline);
      if (refused) return;
      try {
        resolve(JSON.parse(Buffer.concat(chunks, length).toString('utf8')));
      } catch {
        jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON.');
        resolve(NO_BODY);
      }
    });
  });
}

function pathOf(url: string | undefined): string {
  const path = (url ?? '/').split('?', 1)[0];
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
