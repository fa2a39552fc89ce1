/**
 * Integration, distributed mode: the gateway and the services as separate
 * processes, talking over the real NATS, the projects service on the real
 * Postgres, driven by the official MCP SDK client over HTTP.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, httpClient, queryOnce } from '@sextant/testing';
import { assertToolList, projectBadInputs, projectLifecycle, registerRepositories } from './scenarios.js';
import { distributedStack, type Stack } from './stack.js';

interface Health {
  status: string;
  services: Record<string, { status: string; version?: string; error?: string }>;
}

async function health(url: string): Promise<{ code: number; body: Health }> {
  const response = await fetch(url.replace('/mcp', '/health'));
  return { code: response.status, body: (await response.json()) as Health };
}

describe('distributed: gateway → NATS → projects → Postgres', () => {
  let stack: Stack;
  let client: Client;
  /** A gateway of an installation that runs only the projects service (SEXTANT_SERVICES=projects). */
  let projectsOnly: { url: string };
  let dataDir: string;

  before(async () => {
    stack = await distributedStack();
    dataDir = mkdtempSync(join(tmpdir(), 'sextant-distributed-'));
    // Projects check members against the registry.
    await Promise.all([stack.startService('projects'), stack.startService('workspace-registry', { SEXTANT_DATA_DIR: dataDir })]);
    projectsOnly = await stack.startGateway({ SEXTANT_SERVICES: 'projects' });
    await stack.startGateway();
    client = await httpClient(stack.gateway!.url);
    await client.listTools();
  });
  after(async () => {
    await client?.close();
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists the tools of the configured services, whether or not they run yet', async () => {
    await assertToolList(client);
    const only = await httpClient(projectsOnly.url);
    try {
      await assertToolList(only, ['projects']);
    } finally {
      await only.close();
    }
  });

  it('runs every project tool', () => projectLifecycle(client, 'distributed'));

  it('validates input in the gateway and the service alike', () => projectBadInputs(client, 'distributed'));

  it('stores projects in the projects schema of Postgres', async () => {
    const { r1 } = await registerRepositories(client, ['r1']);
    const created = await callTool<{ project: { id: string } }>(client, 'create_project', { name: 'In Postgres', repository_ids: [r1] });
    const rows = await queryOnce<{ name: string; name_key: string }>(
      stack.database.url,
      'SELECT name, name_key FROM projects.projects WHERE id = $1',
      [created.body.project.id],
    );
    assert.deepEqual(rows, [{ name: 'In Postgres', name_key: 'in postgres' }]);
    const migrations = await queryOnce<{ name: string }>(stack.database.url, 'SELECT name FROM projects.migrations');
    assert.deepEqual(
      migrations.map((m) => m.name),
      ['CreateProjects1732200000000', 'CreateApiKeys1764000000000', 'CreateAuditLog1764100000000', 'AuditLogRequestId1764210000000'],
    );
  });

  it('reports health per configured service: error while one is down, ready once all run; others do not count', async () => {
    const partial = await health(stack.gateway!.url);
    assert.equal(partial.code, 503);
    assert.equal(partial.body.status, 'error');
    assert.equal(partial.body.services.projects.status, 'up');
    assert.equal(partial.body.services['git-cache'].status, 'down');
    assert.match(partial.body.services['git-cache'].error ?? '', /not running/);
    assert.deepEqual(
      Object.keys(partial.body.services).sort(),
      ['git-cache', 'projects', 'symbol-indexer', 'vector-search', 'workspace-registry'],
      'services without tools are not expected',
    );
    const only = await health(projectsOnly.url);
    assert.deepEqual([only.code, only.body.status, Object.keys(only.body.services)], [200, 'ready', ['projects']]);

    await Promise.all([
      stack.startService('git-cache'),
      stack.startService('symbol-indexer', { SEXTANT_DATA_DIR: dataDir }),
      stack.startService('vector-search', { SEXTANT_DATA_DIR: dataDir }),
    ]);
    // Ready once every service runs: a service just started may still be opening its database connections (over a
    // container's port mapping this takes longer), so the report is read until it says so, for at most 15 s.
    let full = await health(stack.gateway!.url);
    for (let i = 0; i < 75 && full.code !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      full = await health(stack.gateway!.url);
    }
    assert.equal(full.code, 200, JSON.stringify(full.body));
    assert.equal(full.body.status, 'ready');
    for (const service of Object.values(full.body.services)) assert.equal(service.status, 'up');
    await assertToolList(client);

    // Persistent clones take one process: a second symbol-indexer (or registry) on the same data directory says who holds it.
    for (const name of ['symbol-indexer', 'vector-search', 'workspace-registry']) {
      await assert.rejects(stack.startService(name, { SEXTANT_DATA_DIR: dataDir }), /is in use by another Sextant process \(pid \d+/);
    }
  });
});
