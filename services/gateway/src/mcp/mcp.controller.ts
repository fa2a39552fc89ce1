import { All, Controller, Post, Req, Res } from '@nestjs/common';
import { context, extractTraceContext } from '@sextant/telemetry';
import type { Request, Response } from 'express';
import { jsonRpcError } from '../http/json-rpc-error.js';
import { directToolCall, toolCallError, toolCallResponse } from './direct-tool-call.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { acceptsPost, StatelessHttpTransport } from './stateless-http-transport.js';
import { ToolDispatcher } from './tool-dispatcher.js';

const MCP_PATHS = ['/mcp', '/'];

/**
 * MCP over Streamable HTTP, stateless, JSON responses. A single plain
 * `tools/call` goes straight to the dispatcher; every other POST gets a fresh
 * SDK server and transport (see docs/adr/0010).
 */
@Controller()
export class McpController {
  constructor(
    private readonly factory: McpServerFactory,
    private readonly dispatcher: ToolDispatcher,
  ) {}

  @Post(MCP_PATHS)
  async handle(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!acceptsPost(req, res)) return;
    // A client may send its own W3C traceparent; the call then joins the client's trace.
    const parent = extractTraceContext({ get: (name) => req.header(name), set: () => undefined });
    const call = directToolCall(req.body);
    if (call) {
      const body = await context.with(parent, () =>
        this.dispatcher.call(call.name, call.arguments).then(
          (result) => toolCallResponse(call.id, result),
          (error: unknown) => toolCallError(call.id, error),
        ),
      );
      res.status(200).type('application/json').send(body);
      return;
    }
    const server = this.factory.create();
    const transport = new StatelessHttpTransport(res);
    res.on('close', () => void server.close());
    await server.connect(transport);
    context.with(parent, () => transport.handle(req.body));
  }

  /** No SSE stream and no sessions in stateless mode: GET and DELETE are not allowed. */
  @All(MCP_PATHS)
  methodNotAllowed(@Res() res: Response): void {
    res.setHeader('Allow', 'POST');
    jsonRpcError(res, 405, -32000, 'Method not allowed: send MCP JSON-RPC messages with POST.');
  }
}
