/**
 * Faults, with real processes and real dependencies: services not running,
 * NATS unreachable, Postgres unreachable or hanging, a connection lost in the
 * middle of a transaction. The gateway must answer each with a clear error in
 * the catalog's shape, stay up, and recover; nothing may be half-written.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  callTool,
  FaultProxy,
  freePort,
  httpClient,
  queryOnce,
  startNode,
  stdioClient,
  TEST_BUS_SECRET,
  type RunningProcess,
} from '@sextant/testing';
import { expectToolError, registerRepositories } from './scenarios.js';
import { distributedStack, type Stack } from './stack.js';

function hostPort(url: string): [string, number] {
  const u = new URL(url);
  return [u.hostname, Number(u.port || 4222)];
}

/**
 * NATS at `natsUrl` behind a proxy that answers a client's first connection only 1.5 s after it is made (a NATS pod
 * still starting, say). `msSinceFirstConnection()`: how long ago that first connection came (0 while none has).
 */
async function slowNats(natsUrl: string): Promise<{ url: string; msSinceFirstConnection(): number; stop(): Promise<void> }> {
  const [host, port] = hostPort(natsUrl);
  const slow = new FaultProxy(host, port);
  const proxyPort = await slow.start();
  slow.stall();
  let reached = 0;
  let restore: NodeJS.Timeout | undefined;
  void slow.firstConnection.then(() => {
    reached = performance.now();
    restore = setTimeout(() => slow.restore(), 1_500);
  });
  return {
    url: `nats://127.0.0.1:${proxyPort}`,
    msSinceFirstConnection: () => (reached > 0 ? performance.now() - reached : 0),
    async stop() {
      clearTimeout(restore);
      await slow.stop();
    },
  };
}

async function eventually<T>(probe: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  do {
    last = await probe();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  } while (Date.now() < deadline);
  return last;
}

describe('faults', () => {
  let stack: Stack;

  before(async () => {
    stack = await distributedStack();
  });
  after(() => stack?.stop());

  describe('the service is not running', () => {
    let client: Client;
    before(async () => {
      await stack.startGateway({ SEXTANT_BUS_TIMEOUT_MS: '5000' });
      client = await httpClient(stack.gateway!.url);
    });
    after(() => client?.close());

    it('answers unavailable at once, stays up, and serves the tool when the service starts', async () => {
      const started = performance.now();
      const down = await expectToolError(client, 'list_projects', {}, 'unavailable');
      assert.ok(performance.now() - started < 2_000, 'no responder is known at once, not after the timeout');
      assert.match(down.message, /projects service is not running/);

      await stack.startService('projects');
      const up = await eventually(
        () => callTool(client, 'list_projects', {}),
        (r) => !r.isError,
      );
      assert.equal(up.isError, false);
    });
  });

  it('logs only JSON lines when NATS is unreachable at start, gateway and service alike; callers are not told its address', async () => {
    const nowhere = `nats://127.0.0.1:${await freePort()}`;
    const gateway = await stack.startGateway({ NATS_URL: nowhere });
    await gateway.process.waitFor(/not reachable yet/);
    // Its URL is announced all the same (probes need it), saying that tool calls are refused for now.
    assert.match(
      gateway.process.output(),
      /MCP gateway at \S+ \(NATS nats:\/\/127\.0\.0\.1:\d+, not connected yet: tool calls are refused until it is\)/,
    );
    const caller = await httpClient(gateway.url);
    try {
      const refused = await expectToolError(caller, 'list_projects', {}, 'unavailable');
      assert.equal(refused.message, 'The message bus (NATS) is not reachable; try again shortly.', 'no address of the deployment');
    } finally {
      await caller.close();
    }
    const service = await startNode('services/projects/dist/main.js', [], {
      env: { NATS_URL: nowhere, DATABASE_URL: stack.database.url, LOG_LEVEL: 'info', SEXTANT_BUS_SECRET: TEST_BUS_SECRET },
    });
    await Promise.race([service.exited, new Promise((r) => setTimeout(r, 3_000))]);
    await service.stop();
    for (const output of [gateway.process.output(), service.output()]) {
      const lines = output.split('\n').filter(Boolean);
      assert.ok(lines.length > 0);
      for (const line of lines) {
        assert.doesNotThrow(() => JSON.parse(line), `not a JSON log line: ${line}`);
        assert.doesNotMatch(line, /\u001b\[/, 'no terminal colours');
      }
    }
    await gateway.process.stop();
  });

  it('announces its URL once a tool call can reach the services: a call made at once is answered', async () => {
    if (!stack.services.has('projects')) await stack.startService('projects');
    const slow = await slowNats(stack.infra.natsUrl);
    let client: Client | undefined;
    let gateway: { url: string; process: RunningProcess } | undefined;
    try {
      gateway = await stack.startGateway({ NATS_URL: slow.url });
      assert.ok(slow.msSinceFirstConnection() >= 1_400, 'announced before NATS answered');
      const lines = gateway.process.output().split('\n');
      const connected = lines.findIndex((l) => l.includes('connected to NATS'));
      const announced = lines.findIndex((l) => l.includes('MCP gateway at'));
      assert.ok(connected >= 0 && connected < announced, 'announced before it was connected');
      assert.doesNotMatch(gateway.process.output(), /not connected yet/);
      client = await httpClient(gateway.url);
      const first = await callTool(client, 'list_projects', {});
      assert.equal(first.isError, false, JSON.stringify(first.body));
    } finally {
      await client?.close();
      await gateway?.process.stop();
      await slow.stop();
    }
  });

  it('on stdio, reads its client once a tool call can reach the services: a call made at once is answered', async () => {
    if (!stack.services.has('projects')) await stack.startService('projects');
    const slow = await slowNats(stack.infra.natsUrl);
    let local: Awaited<ReturnType<typeof stdioClient>> | undefined;
    try {
      local = await stdioClient('services/gateway/dist/main.js', {
        NATS_URL: slow.url,
        SEXTANT_NATS_PREFIX: stack.prefix,
        SEXTANT_AUTH: 'off',
        SEXTANT_BUS_SECRET: TEST_BUS_SECRET,
        LOG_LEVEL: 'info',
      });
      // The client's initialize is answered once the gateway reads stdin: after NATS answered.
      assert.ok(slow.msSinceFirstConnection() >= 1_400, 'read its client before NATS answered');
      const first = await callTool(local.client, 'list_projects', {});
      assert.equal(first.isError, false, JSON.stringify(first.body));
      // stderr is another pipe than the replies': read until its line has come.
      const said = /MCP gateway on stdio \(NATS nats:\/\/127\.0\.0\.1:\d+\)/;
      for (let i = 0; i < 50 && !said.test(local.stderr()); i++) await new Promise((r) => setTimeout(r, 100));
      assert.match(local.stderr(), said);
    } finally {
      await local?.client.close();
      await slow.stop();
    }
  });

  describe('NATS is unreachable', () => {
    let proxy: FaultProxy;
    let client: Client;
    before(async () => {
      const [host, port] = hostPort(stack.infra.natsUrl);
      proxy = new FaultProxy(host, port);
      const proxyPort = await proxy.start();
      if (!stack.services.has('projects')) await stack.startService('projects');
      const gateway = await stack.startGateway({ NATS_URL: `nats://127.0.0.1:${proxyPort}`, SEXTANT_BUS_TIMEOUT_MS: '3000' });
      client = await httpClient(gateway.url);
    });
    after(async () => {
      await client?.close();
      await proxy?.stop();
    });

    it('answers unavailable within the timeout, then recovers when NATS is back', async () => {
      assert.equal((await callTool(client, 'list_projects', {})).isError, false);
      proxy.cut();
      const started = performance.now();
      const error = await eventually(
        () => callTool(client, 'list_projects', {}),
        (r) => r.isError,
      );
      assert.equal(error.body.error, 'unavailable', JSON.stringify(error.body));
      assert.ok(performance.now() - started < 5_000);
      const response = await fetch(stack.gateway!.url.replace('/mcp', '/livez'));
      assert.equal(response.status, 200, 'the gateway stays up');

      proxy.restore();
      const back = await eventually(
        () => callTool(client, 'list_projects', {}),
        (r) => !r.isError,
        20_000,
      );
      assert.equal(back.isError, false, 'the gateway reconnects by itself');
    });
  });

  describe('Postgres is unreachable or hangs', () => {
    let proxy: FaultProxy;
    let client: Client;
    let prefixStack: Stack;
    let registryData: string | undefined;

    before(async () => {
      // A separate stack: this projects service reaches Postgres only through the proxy.
      prefixStack = await distributedStack();
      const [host, port] = hostPort(prefixStack.database.url);
      proxy = new FaultProxy(host, port);
      const proxyPort = await proxy.start();
      const viaProxy = new URL(prefixStack.database.url);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxyPort);
      await prefixStack.startService('projects', { DATABASE_URL: viaProxy.toString(), DATABASE_CONNECT_TIMEOUT_MS: '1000' });
      // Members are checked against the registry, which reaches Postgres directly.
      registryData = mkdtempSync(join(tmpdir(), 'sextant-faults-'));
      await prefixStack.startService('workspace-registry', { SEXTANT_DATA_DIR: registryData });
      const gateway = await prefixStack.startGateway({ SEXTANT_BUS_TIMEOUT_MS: '2000' });
      client = await httpClient(gateway.url);
    });
    after(async () => {
      await client?.close();
      await prefixStack?.stop();
      await proxy?.stop();
      if (registryData) rmSync(registryData, { recursive: true, force: true });
    });

    it('answers unavailable while Postgres is cut off, then recovers', async () => {
      assert.equal((await callTool(client, 'create_project', { name: 'before the cut' })).isError, false);
      proxy.cut();
      const error = await expectToolError(client, 'create_project', { name: 'during the cut' }, 'unavailable');
      assert.match(error.message, /database is not reachable/);
      proxy.restore();
      const back = await eventually(
        () => callTool(client, 'create_project', { name: 'after the cut' }),
        (r) => !r.isError,
      );
      assert.equal(back.isError, false);
      const names = (await queryOnce<{ name: string }>(prefixStack.database.url, 'SELECT name FROM projects.projects ORDER BY name')).map(
        (r) => r.name,
      );
      assert.deepEqual(names, ['after the cut', 'before the cut']);
    });

    it('leaves nothing half-written when the connection dies inside a transaction', async () => {
      // The project row is inserted, then the connection drops as the membership insert is sent
      // (its statement name is in both the Parse and the Bind message, prepared or not).
      const { a, b } = await registerRepositories(client, ['a', 'b']);
      proxy.dropOn('projects.add-members.');
      await expectToolError(client, 'create_project', { name: 'half written', repository_ids: [a, b] }, 'unavailable');
      proxy.dropOn(undefined);
      const rows = await queryOnce(prefixStack.database.url, `SELECT 1 FROM projects.projects WHERE name = 'half written'`);
      assert.equal(rows.length, 0, 'the project row was rolled back with the transaction');
      const retry = await eventually(
        () => callTool(client, 'create_project', { name: 'half written', repository_ids: [a, b] }),
        (r) => !r.isError,
      );
      assert.equal(retry.isError, false, 'the same name is free: nothing was left behind');
    });

    it('answers timeout when Postgres hangs past the bus timeout, and stays up', async () => {
      proxy.stall();
      try {
        const started = performance.now();
        const error = await expectToolError(client, 'list_projects', {}, 'timeout');
        assert.match(error.message, /did not answer within 2000 ms/);
        assert.ok(performance.now() - started < 4_000);
      } finally {
        proxy.restore();
      }
      const back = await eventually(
        () => callTool(client, 'list_projects', {}),
        (r) => !r.isError,
      );
      assert.equal(back.isError, false);
    });
  });

  describe('requests in flight when their service or NATS goes away', () => {
    let inflightStack: Stack;
    let database: FaultProxy;
    let nats: FaultProxy;
    let direct: Client;
    let viaProxy: Client;
    /** The base URL of the gateway behind the NATS proxy (its /readyz). */
    let viaProxyBase: string;
    let databaseUrl: string;

    /** `count` list_projects calls, each resolving to `{error code or 'ok', ms after `since()`}`. */
    function calls(client: Client, count: number, since: () => number) {
      return Array.from({ length: count }, () =>
        callTool<{ error?: string }>(client, 'list_projects', {}).then((r) => ({
          outcome: r.isError ? (r.body.error ?? 'error') : 'ok',
          ms: performance.now() - since(),
        })),
      );
    }

    const startProjects = () => inflightStack.startService('projects', { DATABASE_URL: databaseUrl, DATABASE_CONNECT_TIMEOUT_MS: '2000' });

    before(async () => {
      inflightStack = await distributedStack();
      const [pgHost, pgPort] = hostPort(inflightStack.database.url);
      database = new FaultProxy(pgHost, pgPort);
      const viaDatabaseProxy = new URL(inflightStack.database.url);
      viaDatabaseProxy.hostname = '127.0.0.1';
      viaDatabaseProxy.port = String(await database.start());
      databaseUrl = viaDatabaseProxy.toString();
      const [natsHost, natsPort] = hostPort(inflightStack.infra.natsUrl);
      nats = new FaultProxy(natsHost, natsPort);
      const natsProxyPort = await nats.start();
      await startProjects();
      // The default bus timeout (30 s): whatever fails below fails long before it.
      direct = await httpClient((await inflightStack.startGateway()).url);
      const proxied = await inflightStack.startGateway({ NATS_URL: `nats://127.0.0.1:${natsProxyPort}` });
      viaProxy = await httpClient(proxied.url);
      viaProxyBase = proxied.url.replace(/\/mcp$/, '');
      assert.equal((await callTool(direct, 'list_projects', {})).isError, false);
    });
    after(async () => {
      await direct?.close();
      await viaProxy?.close();
      await inflightStack?.stop();
      await database?.stop();
      await nats?.stop();
    });

    it('fails them as unavailable within 3 s when the service is killed (kill -9), not at the timeout', async () => {
      database.stall();
      let killedAt = 0;
      const pending = calls(direct, 8, () => killedAt);
      await new Promise((r) => setTimeout(r, 500));
      killedAt = performance.now();
      process.kill(inflightStack.services.get('projects')!.pid, 'SIGKILL');
      const results = await Promise.all(pending);
      database.restore();
      for (const r of results) {
        assert.equal(r.outcome, 'unavailable');
        assert.ok(r.ms <= 3_000, `answered ${Math.round(r.ms)} ms after the kill`);
      }
      await startProjects();
    });

    it('answers them before the service exits on SIGTERM, and refuses new ones at once', async () => {
      database.stall();
      const start = performance.now();
      const pending = calls(direct, 4, () => start);
      await new Promise((r) => setTimeout(r, 300));
      const projects = inflightStack.services.get('projects')!;
      projects.child.kill('SIGTERM');
      await projects.waitFor(/no new requests/);
      const refusedAt = performance.now();
      const refused = await callTool<{ error: string }>(direct, 'list_projects', {});
      assert.equal(refused.body.error, 'unavailable', 'a call after SIGTERM goes to no one');
      assert.ok(performance.now() - refusedAt < 1_000);
      database.restore(); // the queries held so far complete now
      const results = await Promise.all(pending);
      assert.deepEqual(
        results.map((r) => r.outcome),
        ['ok', 'ok', 'ok', 'ok'],
      );
      assert.equal(await projects.exited, 0);
      await startProjects();
    });

    it('fails them as unavailable within 1 s when the connection to NATS drops', async () => {
      assert.equal((await callTool(viaProxy, 'list_projects', {})).isError, false);
      database.stall();
      let cutAt = 0;
      const pending = calls(viaProxy, 8, () => cutAt);
      await new Promise((r) => setTimeout(r, 500));
      cutAt = performance.now();
      nats.cut();
      const results = await Promise.all(pending);
      database.restore();
      for (const r of results) {
        assert.equal(r.outcome, 'unavailable');
        assert.ok(r.ms <= 1_000, `answered ${Math.round(r.ms)} ms after the cut`);
      }
      const notReady = await fetch(`${viaProxyBase}/readyz`);
      assert.deepEqual([notReady.status, await notReady.json()], [503, { status: 'not_ready', reason: 'not connected to NATS' }]);
      assert.equal((await fetch(`${viaProxyBase}/livez`)).status, 200, 'alive all the same: a restart would not bring NATS back');
      nats.restore();
      const back = await eventually(
        () => callTool(viaProxy, 'list_projects', {}),
        (r) => !r.isError,
        20_000,
      );
      assert.equal(back.isError, false);
      // Ready again once the bus reports the reconnection (calls may go through a moment before it does).
      const ready = await eventually(
        () => fetch(`${viaProxyBase}/readyz`).then((r) => r.status),
        (status) => status === 200,
        10_000,
      );
      assert.equal(ready, 200);
    });

    it('a gateway stopped with SIGTERM answers the calls in hand, takes no new connection and exits 0', async () => {
      const gateway = await inflightStack.startGateway({ SEXTANT_SHUTDOWN_GRACE_MS: '20000', LOG_LEVEL: 'info' });
      const base = gateway.url.replace(/\/mcp$/, '');
      const client = await httpClient(gateway.url);
      // The gateway serves HTTP while it connects to NATS (not ready until then).
      assert.equal(
        await eventually(
          () => fetch(`${base}/readyz`).then((r) => r.status),
          (status) => status === 200,
          10_000,
        ),
        200,
      );
      database.stall();
      const pending = calls(client, 3, () => 0);
      await new Promise((r) => setTimeout(r, 300));
      const stoppedAt = performance.now();
      gateway.process.child.kill('SIGTERM');
      await gateway.process.waitFor(/answering the 3 MCP request\(s\) in hand/);
      await assert.rejects(fetch(`${base}/readyz`), 'the listener is closed: a probe or a new client is refused at once');
      database.restore();
      assert.deepEqual(
        (await Promise.all(pending)).map((r) => r.outcome),
        ['ok', 'ok', 'ok'],
      );
      assert.equal(await gateway.process.exited, 0);
      assert.ok(performance.now() - stoppedAt < 20_000);
      await client.close().catch(() => undefined);
    });
  });
});
