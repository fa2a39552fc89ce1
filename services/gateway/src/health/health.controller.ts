import { All, Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { jsonRpcError } from '../http/json-rpc-error.js';
import { HealthService } from './health.service.js';

@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  /** Readiness of the whole system; 503 when any part is in error. */
  @Get('/health')
  async report(@Res() res: Response): Promise<void> {
    const report = await this.health.report();
    res.status(report.status === 'error' ? 503 : 200).json(report);
  }

  /** Liveness of the gateway process alone (for Kubernetes probes). */
  @Get('/livez')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @All(['/health', '/livez'])
  methodNotAllowed(@Res() res: Response): void {
    res.setHeader('Allow', 'GET');
    jsonRpcError(res, 405, -32000, 'Method not allowed: use GET.');
  }
}
