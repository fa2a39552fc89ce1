/**
 * Services and their health subjects. A tool's subject lives in its contract
 * file (`<service>.<verb>.v<N>`); no literal subject appears outside
 * `libs/contracts`. A contract is never changed in place: add `.v2` next to
 * `.v1` and keep `.v1` while callers exist.
 */
export const SERVICE_NAMES = ['projects', 'vector-search', 'git-cache', 'symbol-indexer', 'workspace-registry'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The health subject every service answers, by service name. */
export const HEALTH_SUBJECTS: Record<ServiceName, string> = {
  projects: 'projects.health.v1',
  'vector-search': 'vector-search.health.v1',
  'git-cache': 'git-cache.health.v1',
  'symbol-indexer': 'symbol-indexer.health.v1',
  'workspace-registry': 'workspace-registry.health.v1',
};

/** The queue group a service's replicas share on NATS (one group per service). */
export function queueGroup(service: ServiceName): string {
  return `sextant.${service}`;
}
