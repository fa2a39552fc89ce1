import { All, Controller, Res } from '@nestjs/common';
import type { Response } from 'express';
import { jsonRpcError } from '../http/json-rpc-error.js';

/**
 * The MCP paths for every method but POST, which McpEndpoint serves ahead of
 * Express: there is no SSE stream and no session in stateless mode, so GET and
 * DELETE are not allowed.
 */
@Controller()
export class McpController {
  @All(['/mcp', '/'])
  methodNotAllowed(@Res() res: Response): void {
    res.setHeader('Allow', 'POST');
    jsonRpcError(res, 405, -32000, 'Method not allowed: send MCP JSON-RPC messages with POST.');
  }
}
