import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { GatewayConfig } from '../config.js';
import { hostOrOriginRefusal } from '../http/http-setup.js';
import { jsonRpcError } from '../http/json-rpc-error.js';
import { GATEWAY_CONFIG } from '../tokens.js';
import { Authenticator } from './authenticator.js';
import { baseUrl, METADATA_PATH, protectedResourceMetadata } from './protected-resource.js';

/** Serves the protected resource metadata, unauthenticated (clients read it to learn how to authenticate). */
@Controller()
export class ProtectedResourceController {
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly auth: Authenticator,
  ) {}

  @Get([METADATA_PATH, `${METADATA_PATH}/mcp`])
  metadata(@Req() req: Request, @Res() res: Response): void {
    const refusal = hostOrOriginRefusal(req.headers, this.config);
    if (refusal) return jsonRpcError(res, 403, -32000, refusal);
    if (!this.auth.enabled) return void res.status(404).json({ error: 'not_found', message: 'Authentication is off on this gateway.' });
    res.setHeader('cache-control', 'public, max-age=3600');
    res.status(200).json(protectedResourceMetadata(baseUrl(this.config, req), this.auth.issuer));
  }
}
