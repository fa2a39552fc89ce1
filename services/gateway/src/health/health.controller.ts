import { All, Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BUS_CLIENT, type BusClient } from '@sextant/messaging';
import { withPrincipal } from '@sextant/work';
import { renderMetrics } from '@sextant/telemetry';
import { Authenticator } from '../auth/authenticator.js';
import { authenticateRequest } from '../auth/protected-resource.js';
import type { GatewayConfig } from '../config.js';
import { jsonRpcError } from '../http/json-rpc-error.js';
import { GATEWAY_CONFIG } from '../tokens.js';
import { McpEndpoint } from '../mcp/mcp-endpoint.js';
import { healthHttpStatus, HealthService } from './health.service.js';

@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthService,
    private readonly endpoint: McpEndpoint,
    @Inject(BUS_CLIENT) private readonly bus: BusClient,
    private readonly auth: Authenticator,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /**
   * Readiness of the whole system; 503 when a service is down or in error (a
   * repository whose indexing failed is reported in the body only). It names
   * workspaces, so callers authenticate as for MCP (probes use /livez and /readyz).
   */
  @Get('/health')
  async report(@Req() req: Request, @Res() res: Response): Promise<void> {
    const principal = await authenticateRequest(this.auth, this.config, req, res);
    if (!principal) return;
    // For the caller: its workspaces only.
    const report = await withPrincipal(principal, () => this.health.report());
    res.status(healthHttpStatus(report)).json(report);
  }

  /** Liveness of the gateway process alone (for Kubernetes probes). */
  @Get('/livez')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * Readiness of this gateway to take MCP calls (Kubernetes readiness probe):
   * 503 while it is not connected to the bus (NATS) or is shutting down.
   */
  @Get('/readyz')
  ready(@Res() res: Response): void {
    res.setHeader('cache-control', 'no-store');
    if (this.endpoint.draining) res.status(503).json({ status: 'not_ready', reason: 'shutting down' });
    else if (!this.bus.isConnected()) res.status(503).json({ status: 'not_ready', reason: 'not connected to NATS' });
    else res.status(200).json({ status: 'ready' });
  }

  /** Prometheus metrics of this process (in the one-process mode, of every service). */
  @Get('/metrics')
  async metrics(@Res() res: Response): Promise<void> {
    const { contentType, body } = await renderMetrics();
    res.setHeader('cache-control', 'no-store');
    res.type(contentType).send(body);
  }

  @All(['/health', '/livez', '/readyz', '/metrics'])
  methodNotAllowed(@Res() res: Response): void {
    res.setHeader('Allow', 'GET');
    jsonRpcError(res, 405, -32000, 'Method not allowed: use GET.');
  }
}
