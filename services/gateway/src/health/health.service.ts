import { Injectable } from '@nestjs/common';
import type { HealthReport, ServerStatus } from '@sextant/contracts';
import { SEXTANT_VERSION } from '@sextant/runtime';
import { ServiceDirectory } from '../discovery/service-directory.js';

const PRIORITY: readonly ServerStatus[] = ['error', 'warming', 'indexing', 'ready'];
const started = Date.now();

/**
 * `GET /health`: the gateway and every service of the installation, with
 * status priority error > warming > indexing > ready. `error` is a service's:
 * one that does not answer its health subject, or answers that it is in
 * error (its database unreachable). A repository whose indexing failed is
 * reported in its own entry (`index_status: "error"`) and does not make the
 * whole report `error`: the endpoint still serves every other repository,
 * and a load balancer would read it as down (docs/adr/0045).
 */
@Injectable()
export class HealthService {
  constructor(private readonly directory: ServiceDirectory) {}

  async report(): Promise<HealthReport> {
    const probes = await this.directory.probeAll();
    const services = Object.fromEntries(Object.entries(probes).map(([name, probe]) => [name, probe.reachability]));
    const registry = probes['workspace-registry']?.health;
    const projects = registry?.workspaces ?? [];
    const statuses = new Set<ServerStatus>();
    for (const probe of Object.values(probes))
      statuses.add(probe.reachability.status === 'down' ? 'error' : (probe.health?.status ?? 'error'));
    if (projects.some((workspace) => workspace.index_status === 'indexing')) statuses.add('indexing');
    return {
      status: PRIORITY.find((s) => statuses.has(s)) ?? 'ready',
      projects,
      version: SEXTANT_VERSION,
      uptime_seconds: Math.floor((Date.now() - started) / 1000),
      services,
      ...(registry?.interrupted_recovery_report ? { interrupted_recovery_report: registry.interrupted_recovery_report } : {}),
    };
  }
}

/** The HTTP status of a report: 503 only when a service is down or in error, whatever its repositories' indexing did. */
export function healthHttpStatus(report: Pick<HealthReport, 'services'>): 200 | 503 {
  const failing = Object.values(report.services).some((s) => s.status === 'down' || s.service_status === 'error');
  return failing ? 503 : 200;
}
