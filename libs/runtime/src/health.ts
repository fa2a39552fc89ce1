import { Controller, Global, Inject, Injectable, Module, Optional, type DynamicModule, type Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { APP_FILTER, HttpAdapterHost } from '@nestjs/core';
import { BUS_CLIENT, BusExceptionFilter, type BusClient, type ErrorClassifier } from '@sextant/messaging';
import { hostname } from 'node:os';
import { HEALTH_SUBJECTS, type ServiceHealth, type ServiceName } from '@sextant/contracts';
import { SEXTANT_VERSION } from './version.js';

/** One dependency a service checks for its health reply (database, cache directory, …). */
export interface HealthProbe {
  readonly name: string;
  check(): Promise<{ status: 'up' | 'down'; error?: string }>;
}

/** What a service adds to its health reply beyond its checks (the workspace registry: its workspaces). */
export interface HealthDetails {
  details(): Promise<Pick<ServiceHealth, 'workspaces' | 'interrupted_recovery_report'> & { status?: ServiceHealth['status'] }>;
}

/** Token of a service's `HealthDetails`, optional. */
export const HEALTH_DETAILS = Symbol('HEALTH_DETAILS');

/** The transport strategy the process listens with (ServerNats, or the in-process bus). */
export const MESSAGE_SERVER = Symbol('MESSAGE_SERVER');

interface HandlerRegistry {
  getHandlers(): Map<string, unknown>;
}

const PROBE_TIMEOUT_MS = 2_000;
const started = Date.now();

/**
 * Builds a service's health reply. The subjects it lists are read from the
 * handlers actually registered, so the gateway exposes exactly the tools a
 * running service implements.
 */
@Injectable()
export class HealthReporter {
  constructor(@Inject(MESSAGE_SERVER) private readonly server: HandlerRegistry) {}

  async report(service: ServiceName, probes: readonly HealthProbe[] = [], extra?: HealthDetails | null): Promise<ServiceHealth> {
    const results = await Promise.all(probes.map((probe) => withTimeout(probe)));
    const checks = Object.fromEntries(results);
    const healthy = results.every(([, result]) => result.status === 'up');
    const { status, ...details } = healthy && extra ? await extra.details().catch(() => ({ status: undefined })) : { status: undefined };
    return {
      ...details,
      service,
      version: SEXTANT_VERSION,
      instance: `${hostname()}:${process.pid}`,
      status: healthy ? (status ?? 'ready') : 'error',
      uptime_seconds: Math.floor((Date.now() - started) / 1000),
      subjects: [...this.server.getHandlers().keys()].filter(
        (subject) => subject.startsWith(`${service}.`) && subject !== HEALTH_SUBJECTS[service],
      ),
      checks,
    };
  }
}

async function withTimeout(probe: HealthProbe): Promise<[string, { status: 'up' | 'down'; error?: string }]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ status: 'down'; error: string }>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'down', error: `no answer within ${PROBE_TIMEOUT_MS} ms` }), PROBE_TIMEOUT_MS);
  });
  try {
    const result = await Promise.race([probe.check().catch((e: Error) => ({ status: 'down' as const, error: e.message })), timeout]);
    return [probe.name, result];
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Registered once per process: gives every service module the transport,
 * the bus client it asks other services with (`BUS_CLIENT`) and the health
 * reporter, and makes every handler failure leave as a `BusError`.
 */
@Global()
@Module({})
export class ServiceRuntimeModule {
  static forRoot(server: HandlerRegistry, client: BusClient, classifiers: readonly ErrorClassifier[] = []): DynamicModule {
    return {
      module: ServiceRuntimeModule,
      providers: [
        { provide: MESSAGE_SERVER, useValue: server },
        { provide: BUS_CLIENT, useValue: client },
        HealthReporter,
        {
          provide: APP_FILTER,
          inject: [HttpAdapterHost],
          useFactory: (host: HttpAdapterHost) => new BusExceptionFilter(classifiers, host.httpAdapter),
        },
      ],
      exports: [MESSAGE_SERVER, BUS_CLIENT, HealthReporter],
    };
  }
}

/** Token of the `HealthProbe[]` a service module provides (its database, its cache directory, …). */
export const HEALTH_PROBES = Symbol('HEALTH_PROBES');

/** The controller answering `<service>.health.v1`, running the service's `HEALTH_PROBES`. */
export function createHealthController(service: ServiceName): Type {
  @Controller()
  class ServiceHealthController {
    constructor(
      private readonly reporter: HealthReporter,
      @Optional() @Inject(HEALTH_PROBES) private readonly probes: HealthProbe[] | null,
      @Optional() @Inject(HEALTH_DETAILS) private readonly details: HealthDetails | null,
    ) {}

    @MessagePattern(HEALTH_SUBJECTS[service])
    health(): Promise<ServiceHealth> {
      return this.reporter.report(service, this.probes ?? [], this.details);
    }
  }
  return ServiceHealthController;
}
