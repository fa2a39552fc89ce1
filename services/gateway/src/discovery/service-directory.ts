import { Inject, Injectable, Logger } from '@nestjs/common';
import { HEALTH_SUBJECTS, ServiceHealth, TOOLS, type ServiceName, type ServiceReachability } from '@sextant/contracts';
import { BUS_CLIENT, BusRequestError, type BusClient } from '@sextant/messaging';
import { GATEWAY_CONFIG } from '../tokens.js';
import type { GatewayConfig } from '../config.js';

export interface Probe {
  reachability: ServiceReachability;
  health?: ServiceHealth;
}

/**
 * The services this installation runs (`SEXTANT_SERVICES`) and how they are
 * doing, from their health replies. The tool list follows the configuration,
 * not which replies arrived, so it is the same whenever a client asks; a
 * service that answers without a subject its tools need (another version) is
 * reported once in the log.
 */
@Injectable()
export class ServiceDirectory {
  private readonly logger = new Logger('ServiceDirectory');
  private readonly checked = new Set<ServiceName>();

  constructor(
    @Inject(BUS_CLIENT) private readonly bus: BusClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  get services(): readonly ServiceName[] {
    return this.config.services;
  }

  /** Probes every service of the installation once (the health endpoint uses this). */
  async probeAll(): Promise<Partial<Record<ServiceName, Probe>>> {
    const probes = await Promise.all(this.config.services.map(async (name) => [name, await this.probe(name)] as const));
    return Object.fromEntries(probes);
  }

  private async probe(name: ServiceName): Promise<Probe> {
    const started = performance.now();
    try {
      const reply = await this.bus.request(HEALTH_SUBJECTS[name], {}, { timeoutMs: this.config.healthTimeoutMs });
      const health = ServiceHealth.parse(reply);
      this.check(name, health);
      return {
        health,
        reachability: {
          status: 'up',
          version: health.version,
          latency_ms: Math.round((performance.now() - started) * 100) / 100,
          service_status: health.status,
        },
      };
    } catch (error) {
      const message = error instanceof BusRequestError ? error.error.message : 'invalid health reply';
      return { reachability: { status: 'down', error: message } };
    }
  }

  /** Warns once per service when it does not handle a subject that one of its tools needs. */
  private check(name: ServiceName, health: ServiceHealth): void {
    if (this.checked.has(name)) return;
    this.checked.add(name);
    const announced = new Set(health.subjects);
    const missing = TOOLS.filter((t) => t.service === name && t.subject && !announced.has(t.subject)).map((t) => t.name);
    if (missing.length > 0) {
      this.logger.warn(`${name} ${health.version} does not handle ${missing.join(', ')}; calls to them will fail (version mismatch?)`);
    }
  }
}
