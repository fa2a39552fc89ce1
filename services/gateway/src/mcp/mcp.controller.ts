import { All, Controller, Post, Req, Res } from '@nestjs/common';
import { context, extractTraceContext } from '@sextant/telemetry';
import type { Request, Response } from 'express';
import { jsonRpcError } from '../http/json-rpc-error.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { StatelessHttpTransport } from './stateless-http-transport.js';

const MCP_PATHS = ['/mcp', '/'];

/** MCP over Streamable HTTP, stateless: a fresh server and transport per POST, JSON responses. */
@Controller()
export class McpController {
  constructor(private readonly factory: McpServerFactory) {}

  @Post(MCP_PATHS)
  async handle(@Req() req: Request, @Res() res: Response): Promise<void> {
    const server = this.factory.create();
    const transport = new StatelessHttpTransport(res);
    res.on('close', () => void server.close());
    await server.connect(transport);
    // A client may send its own W3C traceparent; the call then joins the client's trace.
    const parent = extractTraceContext({ get: (name) => req.header(name), set: () => undefined });
    context.with(parent, () => transport.handle(req, req.body));
  }

  /** No SSE stream and no sessions in stateless mode: GET and DELETE are not allowed. */
  @All(MCP_PATHS)
  methodNotAllowed(@Res() res: Response): void {
    res.setHeader('Allow', 'POST');
    jsonRpcError(res, 405, -32000, 'Method not allowed: send MCP JSON-RPC messages with POST.');
  }
}
