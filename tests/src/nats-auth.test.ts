/**
 * NATS with authentication, as a production NATS runs: the gateway and a
 * service connect with NATS_USER/NATS_PASSWORD; wrong credentials leave the
 * gateway not ready and its calls unavailable; half a pair stops the start.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import {
  callTool,
  createTestDatabase,
  httpClient,
  infrastructure,
  NatsServer,
  repoPath,
  startGateway,
  startService,
  type RunningProcess,
  type TestDatabase,
} from '@sextant/testing';

describe('NATS that requires credentials', () => {
  let nats: NatsServer;
  let database: TestDatabase;
  const processes: RunningProcess[] = [];

  before(async () => {
    nats = await NatsServer.start(['--user', 'sextant', '--pass', 's3cret-pass']);
    database = await createTestDatabase((await infrastructure()).postgresUrl);
    processes.push(
      await startService('projects', {
        NATS_URL: nats.url,
        NATS_USER: 'sextant',
        NATS_PASSWORD: 's3cret-pass',
        DATABASE_URL: database.url,
      }),
    );
  });
  after(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await database?.drop();
    await nats?.down();
  });

  it('the gateway and a service connect with NATS_USER and NATS_PASSWORD', async () => {
    const gateway = await startGateway(nats.url, { NATS_USER: 'sextant', NATS_PASSWORD: 's3cret-pass', SEXTANT_SERVICES: 'projects' });
    processes.push(gateway.process);
    const client = await httpClient(gateway.url);
    const created = await callTool(client, 'create_project', { name: 'fenced' });
    assert.equal(created.isError, false, JSON.stringify(created.body));
    await client.close();
    assert.equal((await fetch(gateway.url.replace(/\/mcp$/, '/readyz'))).status, 200);
  });

  it('with a wrong password the gateway is not ready and its calls are unavailable, the password never logged', async () => {
    const gateway = await startGateway(nats.url, { NATS_USER: 'sextant', NATS_PASSWORD: 'wrong-pass', SEXTANT_SERVICES: 'projects' });
    processes.push(gateway.process);
    const ready = await fetch(gateway.url.replace(/\/mcp$/, '/readyz'));
    assert.deepEqual([ready.status, await ready.json()], [503, { status: 'not_ready', reason: 'not connected to NATS' }]);
    const client = await httpClient(gateway.url);
    const call = await callTool<{ error: string }>(client, 'list_projects', {});
    assert.equal(call.body.error, 'unavailable');
    await client.close();
    assert.doesNotMatch(gateway.process.output(), /wrong-pass/);
  });

  it('a user without a password, or two ways to authenticate, stop the start with a configuration error', () => {
    for (const [env, message] of [
      [{ NATS_USER: 'sextant' }, /NATS_PASSWORD must be set together with NATS_USER/],
      [{ NATS_TOKEN: 't', NATS_CREDS: '/x.creds' }, /NATS_CREDS cannot be used with NATS_TOKEN/],
    ] as const) {
      const run = spawnSync(process.execPath, [repoPath('services/projects/dist/main.js')], {
        env: { PATH: process.env.PATH, NATS_URL: nats.url, DATABASE_URL: database.url, ...env },
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(run.status, 2, run.stderr);
      assert.match(run.stderr, message);
    }
  });
});
