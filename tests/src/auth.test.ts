/**
 * Authentication on HTTP (issue #13), through the MCP SDK client and plain
 * HTTP, against a local identity provider that signs real tokens and serves
 * its JWKS, and API keys made with the `sextant keys` CLI: embedded mode
 * (keys checked in-process) and distributed mode (keys checked by the
 * projects service over NATS).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateProject, servicePrincipal, type Principal } from '@sextant/contracts';
import { BusRequestError, NatsBusClient, PrincipalSeal } from '@sextant/messaging';
import { withPrincipal } from '@sextant/work';
import { callTool, httpClient, queryOnce, TEST_BUS_SECRET, type Sextant, type TestDatabase, TestIdentityProvider } from '@sextant/testing';
import { AUDIENCE, authenticatedSextant, runKeys, type Authenticated } from './auth-fixture.js';
import { distributedStack, type Stack } from './stack.js';

/** A raw MCP POST (tools/list) with these headers. */
function post(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}

async function expectRefused(response: Response, status: number, pattern: RegExp, error?: string): Promise<void> {
  assert.equal(response.status, status);
  const body = (await response.json()) as { error: { message: string } };
  assert.match(body.error.message, pattern);
  const challenge = response.headers.get('www-authenticate') ?? '';
  if (status === 401) {
    assert.match(
      challenge,
      /^Bearer realm="sextant", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    if (error) assert.match(challenge, new RegExp(`error="${error}"`));
    else assert.doesNotMatch(challenge, /error=/);
  } else {
    assert.equal(response.headers.get('retry-after'), '5');
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('authentication on HTTP, embedded mode: JWTs of the identity provider and API keys', () => {
  let fixture: Authenticated;
  let database: TestDatabase;
  let idp: TestIdentityProvider;
  let sextant: Sextant;

  before(async () => {
    fixture = await authenticatedSextant({
      SEXTANT_AUTH_JWKS_COOLDOWN_MS: '300',
      SEXTANT_AUTH_KEY_CACHE_MS: '300',
      SEXTANT_TOOL_RATE_LIMITS: 'get_contract=6',
      // Audit records reach the console at debug level only (they are stored in Postgres); the test reads both.
      LOG_LEVEL: 'debug',
    });
    ({ database, idp, sextant } = fixture);
  });
  after(() => fixture?.stop());

  it('answers a call without credentials 401 with a challenge that leads to the protected resource metadata', async () => {
    const response = await post(sextant.url);
    await expectRefused(response, 401, /Authentication required/);
    const challenge = response.headers.get('www-authenticate')!;
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1];
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    assert.deepEqual(metadata, {
      resource: sextant.url.replace(/\/mcp$/, '') + '/mcp',
      authorization_servers: [idp.issuer],
      bearer_methods_supported: ['header'],
      resource_name: 'Sextant',
    });
    assert.equal((await fetch(new URL('/.well-known/oauth-protected-resource', sextant.url))).status, 200);
    // Probes and metrics stay open; the system report (it names workspaces) does not.
    assert.equal((await fetch(new URL('/readyz', sextant.url))).status, 200);
    assert.equal((await fetch(new URL('/metrics', sextant.url))).status, 200);
    assert.equal((await fetch(new URL('/health', sextant.url))).status, 401);
    const token = await idp.token('alice', AUDIENCE);
    assert.equal((await fetch(new URL('/health', sextant.url), { headers: { authorization: `Bearer ${token}` } })).status, 200);
  });

  it('lets a caller with a valid token use the MCP endpoint through the SDK client', async () => {
    const token = await idp.token('alice', AUDIENCE, { claims: { preferred_username: 'alice', groups: ['platform'] } });
    const client: Client = await httpClient(sextant.url, { bearer: token });
    try {
      assert.ok((await client.listTools()).tools.length > 20);
      const listed = await callTool(client, 'list_projects', {});
      assert.equal(listed.isError, false, JSON.stringify(listed.body));
    } finally {
      await client.close();
    }
  });

  it('refuses every bad token 401 invalid_token, saying why', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string, RegExp]> = [
      ['not a JWT', 'abc.def', /malformed/],
      ['expired', await idp.token('alice', AUDIENCE, { claims: { exp: now - 600 } }), /expired/],
      ['not yet valid', await idp.token('alice', AUDIENCE, { claims: { nbf: now + 600 } }), /not valid yet/],
      ['for another audience', await idp.token('alice', 'https://other.example/mcp'), /another audience/],
      ['from another issuer', await idp.token('alice', AUDIENCE, { claims: { iss: 'https://evil.example' } }), /another issuer/],
      ['without a subject', await idp.token('alice', AUDIENCE, { claims: { sub: undefined } }), /"sub" claim/],
      ['alg none', idp.unsigned('alice', AUDIENCE), /algorithm|malformed/],
      ['HS256 keyed with the public key', idp.hmacWithPublicKey('alice', AUDIENCE), /algorithm/],
      ['signed by another key under a known kid', await idp.token('alice', AUDIENCE, { foreignKey: true }), /signature/],
    ];
    for (const [what, token, why] of cases) {
      const response = await post(sextant.url, { authorization: `Bearer ${token}` });
      assert.equal(response.status, 401, what);
      await expectRefused(response, 401, why, 'invalid_token');
    }
    await expectRefused(await post(sextant.url, { authorization: 'Basic YWxpY2U6c2VjcmV0' }), 401, /Authentication required/);
    await expectRefused(await post(sextant.url, { authorization: 'Bearer two words' }), 401, /well-formed/, 'invalid_token');
  });

  it('keeps cached keys while the JWKS is down, and follows a key rotation with one fetch', async () => {
    const before = idp.fetches;
    idp.goDown();
    try {
      assert.equal((await post(sextant.url, { authorization: `Bearer ${await idp.token('bob', AUDIENCE)}` })).status, 200);
      assert.equal(idp.fetches, before, 'a known kid needs no fetch');
      await idp.rotate();
      await sleep(350); // past the cooldown: the unknown kid asks the JWKS, which is down
      const rotated = await idp.token('bob', AUDIENCE);
      await expectRefused(await post(sextant.url, { authorization: `Bearer ${rotated}` }), 503, /cannot be fetched/);
    } finally {
      idp.restore();
    }
    await sleep(350);
    const fetched = idp.fetches;
    assert.equal((await post(sextant.url, { authorization: `Bearer ${await idp.token('bob', AUDIENCE)}` })).status, 200);
    assert.equal(idp.fetches, fetched + 1, 'one fetch for the new kid');
    assert.equal((await post(sextant.url, { authorization: `Bearer ${await idp.token('carol', AUDIENCE)}` })).status, 200);
    assert.equal(idp.fetches, fetched + 1, 'then cached');
  });

  it('accepts an API key made with `sextant keys create`, and refuses it once revoked; unknown keys never', async () => {
    const created = runKeys(database.url, 'create', '--name', 'ci', '--admin');
    assert.equal(created.status, 0, created.stderr);
    const key = created.stdout.trim();
    assert.match(key, /^sxt_[A-Za-z0-9_-]{43}$/);
    assert.match(created.stderr, /shown once/);

    const client = await httpClient(sextant.url, { bearer: key });
    assert.ok((await client.listTools()).tools.length > 20);
    await client.close();

    const listed = runKeys(database.url, 'list');
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /ci {2}sxt_.{8}… {2}admin/);
    assert.doesNotMatch(listed.stdout, new RegExp(key), 'the key is never shown again');
    const taken = runKeys(database.url, 'create', '--name', 'ci', '--admin');
    assert.deepEqual([taken.status, /exists/.test(taken.stderr)], [1, true]);
    const missing = runKeys(database.url, 'create', '--name', 'team', '--projects', 'no-such-project');
    assert.deepEqual([missing.status, /Project "no-such-project" does not exist/.test(missing.stderr)], [1, true], missing.stderr);

    const revoked = runKeys(database.url, 'revoke', 'ci');
    assert.equal(revoked.status, 0, revoked.stderr);
    await sleep(350); // the gateway's key cache (SEXTANT_AUTH_KEY_CACHE_MS=300)
    await expectRefused(await post(sextant.url, { authorization: `Bearer ${key}` }), 401, /Unknown or revoked API key/, 'invalid_token');
    const unknown = `sxt_${'A'.repeat(43)}`;
    await expectRefused(
      await post(sextant.url, { authorization: `Bearer ${unknown}` }),
      401,
      /Unknown or revoked API key/,
      'invalid_token',
    );
    assert.equal(runKeys(database.url, 'revoke', 'ci').status, 1, 'nothing left to revoke');
  });

  it('keeps an audit record of every call, in the log stream and in Postgres, without the query of a caller who opted out', async () => {
    const created = runKeys(database.url, 'create', '--name', 'auditor', '--admin');
    assert.equal(created.status, 0, created.stderr);
    const key = created.stdout.trim();
    const call = (name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) =>
      fetch(sextant.url, {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          authorization: `Bearer ${key}`,
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      }).then((r) => r.json());
    await call('locate_symbol', { name: 'visibleQuery', repo: 'no-such-repo' });
    await call('locate_symbol', { name: 'privateQuery', repo: 'no-such-repo' }, { 'sextant-audit-query': 'off' });
    await call('list_projects', {});
    type Row = {
      tool: string;
      code: string;
      query: string | null;
      scope: Record<string, unknown>;
      trace_id: string | null;
      principal: string;
    };
    let rows: Row[] = [];
    for (let i = 0; i < 50 && rows.length < 3; i++) {
      await sleep(100);
      rows = await queryOnce<Row>(
        database.url,
        `SELECT tool, code, query, scope, trace_id, principal FROM projects.audit_log WHERE principal = 'key:auditor' ORDER BY id`,
      );
    }
    assert.deepEqual(
      rows.map((r) => [r.tool, r.code, r.query, r.scope]),
      [
        ['locate_symbol', 'not_found', 'visibleQuery', { repo: 'no-such-repo' }],
        ['locate_symbol', 'not_found', null, { repo: 'no-such-repo' }],
        ['list_projects', 'ok', null, {}],
      ],
    );
    assert.ok(rows.every((r) => r.trace_id && /^[0-9a-f]{32}$/.test(r.trace_id)));
    const everything = JSON.stringify(await queryOnce(database.url, 'SELECT * FROM projects.audit_log'));
    assert.doesNotMatch(everything, new RegExp(key), 'no credential in the table');
    const log = sextant.process.output();
    assert.match(log, /"context":"Audit","msg":\{"audit":\{[^\n]*"tool":"locate_symbol"[^\n]*"query":"visibleQuery"/);
    assert.doesNotMatch(log, /privateQuery/, 'nor the opted-out query in the log');
    assert.doesNotMatch(log, new RegExp(key), 'nor the key');
  });

  it('answers a burst above the limit rate_limited with retry_after, and leaves other callers alone', async () => {
    const key = (name: string) => {
      const created = runKeys(fixture.database.url, 'create', '--name', name, '--admin');
      assert.equal(created.status, 0, created.stderr);
      return created.stdout.trim();
    };
    const busy = await httpClient(fixture.sextant.url, { bearer: key('busy') });
    const calm = await httpClient(fixture.sextant.url, { bearer: key('calm') });
    try {
      const args = { contract_id: 'tools' };
      assert.equal((await callTool(busy, 'get_contract', args)).isError, false);
      const limited = await callTool<{ error: string; message: string; details: { retry_after: number } }>(busy, 'get_contract', args);
      assert.equal(limited.body.error, 'rate_limited');
      assert.match(limited.body.message, /more than 6 get_contract calls a minute/);
      assert.ok(limited.body.details.retry_after >= 9 && limited.body.details.retry_after <= 10, JSON.stringify(limited.body));
      assert.equal((await callTool(busy, 'list_projects', {})).isError, false, 'other tools are within the caller-wide limit');
      assert.equal((await callTool(calm, 'get_contract', args)).isError, false, 'another caller is not limited');
    } finally {
      await busy.close();
      await calm.close();
    }
  });
});

describe('authentication on HTTP, distributed mode: API keys checked by the projects service over NATS', () => {
  let stack: Stack;
  let url: string;

  before(async () => {
    stack = await distributedStack();
    await stack.startService('projects');
    url = (await stack.startGateway({ SEXTANT_AUTH: 'on', SEXTANT_AUTH_KEY_CACHE_MS: '0', SEXTANT_SERVICES: 'projects' })).url;
  });
  after(async () => {
    await stack?.stop();
  });

  it('accepts a valid key, refuses others, and answers 503 (not 401) while the key store is unreachable', async () => {
    const created = runKeys(stack.database.url, 'create', '--name', 'deploy-bot', '--admin');
    assert.equal(created.status, 0, created.stderr);
    const key = created.stdout.trim();
    const client = await httpClient(url, { bearer: key });
    const listed = await callTool(client, 'list_projects', {});
    assert.equal(listed.isError, false, JSON.stringify(listed.body));
    await client.close();
    await expectRefused(await post(url, { authorization: `Bearer sxt_${'B'.repeat(43)}` }), 401, /Unknown or revoked/, 'invalid_token');
    // Without an identity provider configured, a JWT is refused as such.
    await expectRefused(await post(url, { authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln' }), 401, /API keys only/, 'invalid_token');

    // The service decides too: a request that reaches it over NATS for a caller without the role is refused there.
    const bus = new NatsBusClient({
      servers: stack.infra.natsUrl,
      prefix: stack.prefix,
      timeoutMs: 5_000,
      name: 'auth-test',
      seal: new PrincipalSeal(Buffer.from(TEST_BUS_SECRET)),
      identity: servicePrincipal('gateway'),
    });
    try {
      await bus.whenConnected();
      const reader: Principal = { kind: 'key', id: 'k1', name: 'reader', admin: false, projects: {}, groups: [] };
      const refused = await withPrincipal(reader, () => bus.request(CreateProject.SUBJECT, { name: 'sneaky' })).catch((e: unknown) => e);
      assert.ok(refused instanceof BusRequestError);
      assert.equal(refused.error.code, 'forbidden');
      assert.match(refused.error.message, /create_project needs an org-wide admin; key:reader is not/);
    } finally {
      await bus.close();
    }

    await stack.services.get('projects')!.stop();
    await expectRefused(await post(url, { authorization: `Bearer ${key}` }), 503, /cannot be checked right now/);
  });
});

describe('tokens of the identity provider, distributed mode: roles from groups resolved over NATS', () => {
  let stack: Stack;
  let idp: TestIdentityProvider;
  let url: string;

  before(async () => {
    idp = await TestIdentityProvider.start();
    stack = await distributedStack();
    await stack.startService('projects');
    url = (
      await stack.startGateway({
        SEXTANT_AUTH: 'on',
        SEXTANT_AUTH_ISSUER: idp.issuer,
        SEXTANT_AUTH_AUDIENCE: AUDIENCE,
        SEXTANT_AUTH_JWKS_URL: idp.jwksUrl,
        SEXTANT_AUTH_GROUP_ROLES: 'platform=admin,team-web=web:maintainer',
        SEXTANT_SERVICES: 'projects',
      })
    ).url;
  });
  after(async () => {
    await stack?.stop();
    await idp?.stop();
  });

  it('lets an admin group create a project and a maintainer group change it, through the services', async () => {
    const as = async (sub: string, groups: string[]) =>
      httpClient(url, { bearer: await idp.token(sub, AUDIENCE, { claims: { groups, preferred_username: sub } }) });
    const platform = await as('pat', ['platform']);
    const created = await callTool(platform, 'create_project', { name: 'web' });
    assert.equal(created.isError, false, JSON.stringify(created.body));
    await platform.close();
    // The maintainer's token is first seen after the project exists: its group's project name resolves over NATS.
    const team = await as('wendy', ['team-web']);
    const changed = await callTool(team, 'update_project', { project: 'web', description: 'by wendy' });
    assert.equal(changed.isError, false, JSON.stringify(changed.body));
    assert.equal((await callTool<{ error?: string }>(team, 'create_project', { name: 'mine' })).body.error, 'forbidden');
    await team.close();
    const expired = await idp.token('wendy', AUDIENCE, { claims: { exp: Math.floor(Date.now() / 1000) - 600 } });
    await expectRefused(await post(url, { authorization: `Bearer ${expired}` }), 401, /expired/, 'invalid_token');
  });
});
