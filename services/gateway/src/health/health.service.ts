import { Injectable } from '@nestjs/common';
import type { HealthReport, ServerStatus } from '@sextant/contracts';
import { SEXTANT_VERSION } from '@sextant/runtime';
import { ServiceDirectory } from '../discovery/service-directory.js';

const PRIORITY: readonly ServerStatus[] = ['error', 'warming', 'indexing', 'ready'];
const started = Date.now();

/**
 * `GET /health`: the gateway and every service of the installation, with
 * status priority error > warming > indexing > ready. Ready means every
 * listed tool has a running service behind it.
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
    for (const workspace of projects) {
      if (workspace.index_status === 'error') statuses.add('error');
      if (workspace.index_status === 'indexing') statuses.add('indexing');
    }
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
