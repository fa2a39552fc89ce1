import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServiceHealth, WorkspaceHealth } from '@sextant/contracts';
import type { Probe, ServiceDirectory } from '../discovery/service-directory.js';
import { healthHttpStatus, HealthService } from './health.service.js';

function workspace(id: string, index_status: WorkspaceHealth['index_status']): WorkspaceHealth {
  return {
    project_id: id,
    repo_root: `/repos/${id}`,
    index_status,
    schema_status: 'compatible',
    current_schema_version: 1,
    required_schema_version: 1,
    last_indexed_at: null,
    ref: 'main',
    file_count: 1,
    symbol_count: 1,
  };
}

function up(service: string, status: ServiceHealth['status'] = 'ready', workspaces?: WorkspaceHealth[]): Probe {
  const health: ServiceHealth = {
    service,
    version: '1',
    instance: 'h:1',
    status,
    uptime_seconds: 1,
    subjects: [],
    checks: {},
    ...(workspaces ? { workspaces } : {}),
  };
  return { health, reachability: { status: 'up', version: '1', latency_ms: 1, service_status: status } };
}

const down: Probe = { reachability: { status: 'down', error: 'no responders' } };

async function report(probes: Record<string, Probe>) {
  const directory = { probeAll: async () => probes } as unknown as ServiceDirectory;
  const body = await new HealthService(directory).report();
  return { status: body.status, http: healthHttpStatus(body), projects: body.projects.map((p) => `${p.project_id}:${p.index_status}`) };
}

describe('HealthService: GET /health and health_check', () => {
  it('reports a repository whose indexing failed in its entry, and stays 200: the endpoint still serves the others', async () => {
    const failed = await report({
      projects: up('projects'),
      'workspace-registry': up('workspace-registry', 'ready', [workspace('a', 'ready'), workspace('b', 'error')]),
    });
    assert.deepEqual(failed, { status: 'ready', http: 200, projects: ['a:ready', 'b:error'] });
    const indexing = await report({
      'workspace-registry': up('workspace-registry', 'indexing', [workspace('a', 'indexing'), workspace('b', 'error')]),
    });
    assert.deepEqual(indexing, { status: 'indexing', http: 200, projects: ['a:indexing', 'b:error'] });
  });

  it('is error and 503 when a service does not answer its health subject, or answers that it is in error', async () => {
    assert.deepEqual(await report({ projects: down, 'workspace-registry': up('workspace-registry', 'ready', [workspace('a', 'ready')]) }), {
      status: 'error',
      http: 503,
      projects: ['a:ready'],
    });
    assert.deepEqual(await report({ projects: up('projects', 'error') }), { status: 'error', http: 503, projects: [] });
  });
});
