import { Inject, Injectable, Logger } from '@nestjs/common';
import { HEALTH_SUBJECTS, SERVICE_NAMES, ServiceHealth, type ServiceName, type ServiceReachability } from '@sextant/contracts';
import { BUS_CLIENT, BusRequestError, type BusClient } from '@sextant/messaging';
import { GATEWAY_CONFIG } from '../tokens.js';
import type { GatewayConfig } from '../config.js';

export interface Probe {
  reachability: ServiceReachability;
  health?: ServiceHealth;
}

/** How often services that never answered are probed again (at most), when tools are listed. */
const REDISCOVER_AFTER_MS = 5_000;

/**
 * Knows which services run and which subjects they handle, from their
 * health replies. A tool is exposed when a service has announced its subject;
 * once announced it stays exposed (calls report `unavailable` if the service
 * goes away, which is more useful to a client than a vanishing tool).
 */
@Injectable()
export class ServiceDirectory {
  private readonly logger = new Logger('ServiceDirectory');
  private readonly subjects = new Set<string>();
  private readonly discovered = new Set<ServiceName>();
  private lastAttempt = 0;
  private inFlight: Promise<unknown> | undefined;

  constructor(
    @Inject(BUS_CLIENT) private readonly bus: BusClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** Probes every service once (the health endpoint uses this). */
  async probeAll(): Promise<Record<ServiceName, Probe>> {
    const probes = await Promise.all(SERVICE_NAMES.map(async (name) => [name, await this.probe(name)] as const));
    return Object.fromEntries(probes) as Record<ServiceName, Probe>;
  }

  /** Probes services not yet discovered, unless that was tried less than 5 s ago. */
  async refresh(): Promise<void> {
    if (this.discovered.size === SERVICE_NAMES.length) return;
    if (this.inFlight) {
      await this.inFlight;
      return;
    }
    if (Date.now() - this.lastAttempt < REDISCOVER_AFTER_MS) return;
    this.lastAttempt = Date.now();
    const missing = SERVICE_NAMES.filter((name) => !this.discovered.has(name));
    this.inFlight = Promise.all(missing.map((name) => this.probe(name))).finally(() => {
      this.inFlight = undefined;
    });
    await this.inFlight;
  }

  handles(subject: string): boolean {
    return this.subjects.has(subject);
  }

  isDiscovered(service: string): boolean {
    return this.discovered.has(service as ServiceName);
  }

  private async probe(name: ServiceName): Promise<Probe> {
    const started = performance.now();
    try {
      const reply = await this.bus.request(HEALTH_SUBJECTS[name], {}, { timeoutMs: this.config.healthTimeoutMs });
      const health = ServiceHealth.parse(reply);
      this.learn(name, health);
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

  private learn(name: ServiceName, health: ServiceHealth): void {
    if (!this.discovered.has(name)) this.logger.log(`discovered ${name} ${health.version} (${health.subjects.length} subjects)`);
    this.discovered.add(name);
    for (const subject of health.subjects) this.subjects.add(subject);
  }
}
