/**
 * End to end, embedded mode (`npm start`): the official MCP SDK client over
 * Streamable HTTP against `node apps/sextant/dist/main.js`, a real process
 * with PGlite. Plus raw HTTP for what a well-behaved client never sends.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, freePort, httpClient, postRaw, repoPath, startEmbedded, startNode, type Sextant } from '@sextant/testing';
import { assertToolList, expectToolError, projectBadInputs, projectLifecycle } from './scenarios.js';

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

describe('embedded mode over Streamable HTTP', () => {
  let sextant: Sextant;
  let client: Client;

  before(async () => {
    sextant = await startEmbedded({ SEXTANT_MAX_BODY_BYTES: '65536' });
    client = await httpClient(sextant.url);
    // Listing first makes the SDK client validate every structuredContent against its outputSchema.
    await client.listTools();
  });
  after(async () => {
    await client?.close();
    await sextant?.stop();
  });

  it('lists exactly the implemented tools, each with input and output schemas', () => assertToolList(client));

  it('runs every project tool', () => projectLifecycle(client, 'embedded'));

  it('answers bad input with invalid_input naming the field, and unknown projects with not_found', () =>
    projectBadInputs(client, 'embedded'));

  it('rejects an unknown tool with a JSON-RPC error', async () => {
    await assert.rejects(client.callTool({ name: 'search_everything', arguments: { query: 'x' } }), (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32602);
      assert.match(error.message, /Unknown tool: search_everything/);
      return true;
    });
  });

  it('serves contracts and ADRs as resources and through get_contract', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    for (const uri of ['contract/tools.md', 'contract/errors.md', 'contract/subjects.md']) assert.ok(uris.includes(uri), uri);
    assert.ok(
      uris.some((u) => /^adr\/\d{4}-[a-z0-9-]+\.md$/.test(u)),
      `an ADR is listed: ${uris.join(', ')}`,
    );
    const tools = await client.readResource({ uri: 'contract/tools.md' });
    assert.equal(tools.contents[0].mimeType, 'text/markdown');
    assert.match(String((tools.contents[0] as { text: string }).text), /### `grep_repository`/);
    await assert.rejects(client.readResource({ uri: 'contract/nope.md' }), /Resource not found/);

    const errors = await callTool<{ text: string; uri: string }>(client, 'get_contract', { contract_id: 'errors' });
    assert.equal(errors.body.uri, 'contract/errors.md');
    assert.match(errors.body.text, /\| `workspace_limit_exceeded` \|/);
    assert.equal((await callTool(client, 'get_contract', { contract_id: 'contract/tools.md' })).isError, false);
    await expectToolError(client, 'get_contract', { contract_id: '../../etc/passwd' }, 'not_found');
    await expectToolError(client, 'get_contract', { contract_id: '' }, 'invalid_input', 'contract_id');
  });

  it('writes no audit line to the console at the default level (the audit trail is in Postgres)', async () => {
    assert.equal((await callTool(client, 'list_projects', {})).isError, false);
    await new Promise((r) => setTimeout(r, 200));
    // At info, the call's record went to the projects service only.
    assert.doesNotMatch(sextant.process.output(), /"context":"Audit"/);
  });

  it('has no prompts yet', async () => {
    assert.deepEqual((await client.listPrompts()).prompts, []);
  });

  it('answers health_check with the report of GET /health', async () => {
    const viaTool = await callTool<{ status: string; services: Record<string, { status: string }>; version: string }>(
      client,
      'health_check',
      {},
    );
    assert.equal(viaTool.isError, false, JSON.stringify(viaTool.body));
    const viaHttp = (await (await fetch(sextant.url.replace('/mcp', '/health'))).json()) as {
      status: string;
      services: object;
      version: string;
    };
    assert.deepEqual(
      [viaTool.body.status, Object.keys(viaTool.body.services).sort(), viaTool.body.version],
      [viaHttp.status, Object.keys(viaHttp.services).sort(), viaHttp.version],
    );
    await expectToolError(client, 'health_check', { workspace: '/srv/not-registered' }, 'workspace_not_registered');
  });

  it('reports health with every service of the installation up', async () => {
    const response = await fetch(sextant.url.replace('/mcp', '/health'));
    assert.equal(response.status, 200);
    const health = (await response.json()) as {
      status: string;
      services: Record<string, { status: string }>;
      uptime_seconds: number;
      projects: Array<{ repo_root: string; index_status: string }>;
    };
    assert.equal(health.status, 'ready');
    // Services without tools yet are not part of the installation (SEXTANT_SERVICES).
    assert.deepEqual(Object.keys(health.services).sort(), [
      'git-cache',
      'projects',
      'symbol-indexer',
      'vector-search',
      'workspace-registry',
    ]);
    for (const service of Object.values(health.services) as Array<{ status: string }>) assert.equal(service.status, 'up');
    assert.equal(typeof health.uptime_seconds, 'number');
    // One entry per registered workspace (the project tests registered some), each indexed.
    for (const workspace of health.projects) assert.equal(workspace.index_status, 'ready', workspace.repo_root);
  });

  describe('HTTP edge cases', () => {
    const base = () => sextant.url.replace('/mcp', '');

    it('answers malformed JSON with 400 and a JSON-RPC parse error', async () => {
      const { status, json } = await postRaw(sextant.url, '{"jsonrpc": "2.0", "id": 1, "method": ');
      assert.equal(status, 400);
      assert.equal(json.error.code, -32700);
    });

    it('answers the methods __proto__, constructor and toString "method not found", not 500', async () => {
      for (const method of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        const { status, json } = await postRaw(sextant.url, JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: {} }));
        assert.deepEqual([status, json.id, json.error?.code], [200, 7, -32601], `${method}: ${status} ${JSON.stringify(json)}`);
      }
    });

    it('answers a body that is JSON but not JSON-RPC with 400', async () => {
      const { status, json } = await postRaw(sextant.url, '{"hello": "world"}');
      assert.equal(status, 400);
      assert.equal(json.error.code, -32600);
    });

    it('answers a body over SEXTANT_MAX_BODY_BYTES with 413 and stays up', async () => {
      const huge = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'create_project', arguments: { name: 'x'.repeat(70_000) } },
      });
      const { status, json } = await postRaw(sextant.url, huge);
      assert.equal(status, 413);
      assert.equal(json.error.data.error, 'invalid_input');
      assert.equal((await callTool(client, 'list_projects', {})).isError, false);
    });

    it('answers an oversized chunked body (no Content-Length) with 413, a compressed one with 415, and stays up', async () => {
      const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const url = new URL(sextant.url);
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          },
        );
        req.on('error', reject);
        for (let i = 0; i < 40; i++) req.write('x'.repeat(32 * 1024)); // 1.25 MiB in chunks, over the 64 KiB limit of this instance
        req.end();
      });
      assert.equal(chunked.status, 413);
      assert.match(JSON.parse(chunked.body).error.message, /SEXTANT_MAX_BODY_BYTES/);
      const message = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      const gzipped = await fetch(sextant.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', accept: 'application/json, text/event-stream' },
        body: gzipSync(message),
      });
      assert.equal(gzipped.status, 415);
      const withQuery = await postRaw(`${sextant.url}?client=x`, message);
      assert.equal(withQuery.status, 200);
      assert.equal((await callTool(client, 'list_projects', {})).isError, false);
    });

    it('serves MCP at POST / as well', async () => {
      const { status, json } = await postRaw(`${base()}/`, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }));
      assert.equal(status, 200);
      assert.equal(json.id, 7);
      assert.ok(json.result.tools.length > 0);
    });

    it('answers a batch with one array and a notification-only post with 202', async () => {
      const batch = await postRaw(
        sextant.url,
        JSON.stringify([
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { jsonrpc: '2.0', id: 2, method: 'prompts/list' },
        ]),
      );
      assert.equal(batch.status, 200);
      assert.deepEqual(batch.json.map((m: { id: number }) => m.id).sort(), [1, 2]);
      const notification = await postRaw(sextant.url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      assert.equal(notification.status, 202);
    });

    it('answers a single tools/call directly exactly as the SDK path answers the same call in a batch', async () => {
      const calls = [
        { name: 'list_projects', arguments: {} },
        { name: 'get_project', arguments: { project: 'no such project' } },
        { name: 'get_project', arguments: { project: 42 } },
        { name: 'no_such_tool', arguments: {} },
        { name: 'list_projects' },
      ];
      // Per-call values (ids, timings) differ; everything else, including the text copy, must not.
      const volatile = (body: unknown): unknown =>
        JSON.parse(JSON.stringify(body), (key, value: unknown) =>
          ['request_id', 'execution_time_ms', 'trace_id'].includes(key)
            ? '*'
            : key === 'text' && typeof value === 'string' && value.startsWith('{')
              ? volatile(JSON.parse(value))
              : value,
        );
      for (const [i, params] of calls.entries()) {
        const message = { jsonrpc: '2.0', id: `call-${i}`, method: 'tools/call', params };
        const direct = await postRaw(sextant.url, JSON.stringify(message));
        const viaSdk = await postRaw(sextant.url, JSON.stringify([message]));
        assert.equal(direct.status, 200);
        assert.match(direct.headers.get('content-type') ?? '', /^application\/json/);
        assert.deepEqual(volatile(direct.json), volatile(viaSdk.json[0]), `${params.name}: same answer both ways`);
        if (direct.json.result) assert.equal(direct.json.result.content[0].text, JSON.stringify(direct.json.result.structuredContent));
      }
    });

    it('enforces the Accept, Content-Type and protocol-version rules of Streamable HTTP', async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      assert.equal((await postRaw(sextant.url, body, { accept: 'application/json' })).status, 406);
      assert.equal((await postRaw(sextant.url, body, { 'content-type': 'text/plain' })).status, 415);
      assert.equal((await postRaw(sextant.url, body, { 'mcp-protocol-version': '1999-01-01' })).status, 400);
    });

    it('answers wrong methods with 405 and unknown paths with 404', async () => {
      const get = await fetch(sextant.url, { headers: MCP_HEADERS });
      assert.equal(get.status, 405);
      assert.equal(get.headers.get('allow'), 'POST');
      assert.equal((await fetch(sextant.url, { method: 'DELETE' })).status, 405);
      assert.equal((await fetch(`${base()}/health`, { method: 'POST' })).status, 405);
      assert.equal((await fetch(`${base()}/nope`)).status, 404);
      // Paths are case-sensitive: /MCP is no MCP endpoint.
      const upper = await postRaw(`${base()}/MCP`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      assert.equal(upper.status, 404);
      assert.equal((await fetch(`${base()}/Health`)).status, 404);
    });

    it('answers a tools/call with malformed params with -32602 on one line, direct or in a batch', async () => {
      const bad = [
        { name: 'list_projects', arguments: [1, 2] },
        { name: 'list_projects', arguments: 'limit=3' },
        undefined,
        { arguments: {} },
      ];
      for (const params of bad) {
        const message = { jsonrpc: '2.0', id: 9, method: 'tools/call', ...(params === undefined ? {} : { params }) };
        for (const body of [message, [message]]) {
          const { status, json } = await postRaw(sextant.url, JSON.stringify(body));
          const reply = Array.isArray(json) ? json[0] : json;
          assert.equal(status, 200);
          assert.equal(reply.error?.code, -32602, JSON.stringify(reply));
          assert.ok(!reply.error.message.includes('\n'), reply.error.message);
          assert.match(reply.error.message, /^Invalid params for tools\/call: params/);
        }
      }
      const read = await postRaw(sextant.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: {} }));
      assert.equal(read.json.error.code, -32602);
    });

    it('names documented bounds and refuses NUL and lone surrogates in every text field', async () => {
      const huge = await expectToolError(client, 'list_projects', { limit: 1e308 }, 'invalid_input', 'limit');
      assert.equal(huge.details?.fields?.limit, 'must be at most 500');
      await expectToolError(client, 'create_project', { name: 'n', description: 'a\u0000b' }, 'invalid_input', 'description');
      await expectToolError(client, 'create_project', { name: 'n', description: 'a\ud800b' }, 'invalid_input', 'description');
      await expectToolError(client, 'grep_repository', { repository: 'github:o/r', pattern: 'a\u0000b' }, 'invalid_input', 'pattern');
      await expectToolError(
        client,
        'grep_repository',
        { repository: 'github:o/r', pattern: 'x', workspace: '../../etc/passwd' },
        'invalid_input',
        'workspace',
      );
    });

    it('refuses foreign Host and Origin headers (DNS-rebinding protection)', async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      assert.equal((await postRaw(sextant.url, body, { origin: 'http://evil.example' })).status, 403);
      assert.equal((await postRaw(sextant.url, body, { origin: 'http://localhost:3000' })).status, 200);
      const port = new URL(sextant.url).port;
      const { request } = await import('node:http');
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/health', headers: { host: 'evil.example' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject).end();
      });
      assert.equal(status, 403);
    });
  });
});

describe('embedded mode data directory', () => {
  it('keeps projects across a restart and refuses a second process on the same directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sextant-restart-'));
    try {
      const first = await startEmbedded({ SEXTANT_DATA_DIR: dataDir });
      const c1 = await httpClient(first.url);
      assert.equal((await callTool(c1, 'create_project', { name: 'survivor' })).isError, false);
      await c1.close();

      const second = await startNode('apps/sextant/dist/main.js', [], { env: { SEXTANT_DATA_DIR: dataDir, SEXTANT_PORT: '0' } });
      assert.equal(await second.exited, 1);
      assert.match(second.output(), /in use by another Sextant process/);
      await first.stop();

      const again = await startEmbedded({ SEXTANT_DATA_DIR: dataDir });
      const c2 = await httpClient(again.url);
      const got = await callTool<{ project: { name: string } }>(c2, 'get_project', { project: 'SURVIVOR' });
      assert.equal(got.body.project.name, 'survivor');
      await c2.close();
      await again.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('embedded mode against slow, silent and too many clients', () => {
  let sextant: Sextant;
  before(async () => {
    sextant = await startEmbedded({
      SEXTANT_HTTP_HEADERS_TIMEOUT_MS: '1000',
      SEXTANT_HTTP_REQUEST_TIMEOUT_MS: '2000',
      SEXTANT_HTTP_MAX_CONNECTIONS: '60',
      SEXTANT_HTTP_KEEP_ALIVE_TIMEOUT_MS: '3000',
    });
  });
  after(() => sextant?.stop());

  const port = () => Number(new URL(sextant.url).port);
  /** Opens `count` sockets, each fed by `feed` (called every 200 ms); resolves with how many the server closed within `ms`. */
  async function closedWithin(count: number, ms: number, feed: (socket: Socket, tick: number) => void): Promise<number> {
    let closed = 0;
    const sockets = Array.from({ length: count }, () => {
      const socket = connect(port(), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.on('close', () => closed++);
      return socket;
    });
    const tick = 0;
    const timer = setInterval(() => sockets.forEach((s) => !s.destroyed && feed(s, tick)), 200);
    await new Promise((r) => setTimeout(r, ms));
    clearInterval(timer);
    for (const s of sockets) s.destroy();
    return closed;
  }

  it('closes connections that send headers too slowly, a body too slowly, or nothing at all', async () => {
    const slowHeaders = closedWithin(20, 4_500, (s, tick) =>
      s.write(tick === 0 ? 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n' : 'X-Slow: y\r\n'),
    );
    const slowBody = closedWithin(10, 4_500, (s) => {
      if (s.bytesWritten === 0) {
        s.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n');
      } else s.write('{');
    });
    const silent = closedWithin(10, 4_500, () => undefined);
    assert.deepEqual(await Promise.all([slowHeaders, slowBody, silent]), [20, 10, 10]);
    assert.equal((await fetch(sextant.url.replace('/mcp', '/livez'))).status, 200, 'still serving');
  });

  it('keeps a connection that sent a request, past the headers timeout, for the next request', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = () =>
      new Promise<{ status: number; socket: unknown; keepAlive: string | undefined }>((resolve, reject) => {
        const url = new URL(sextant.url);
        const req = request(
          { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: MCP_HEADERS },
          (res) => {
            res.resume();
            res.on('end', () =>
              resolve({ status: res.statusCode!, socket: req.socket, keepAlive: res.headers['keep-alive'] as string | undefined }),
            );
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      });
    try {
      const first = await post();
      // The idle connection is kept SEXTANT_HTTP_KEEP_ALIVE_TIMEOUT_MS, and the client is told so.
      assert.equal(first.keepAlive, 'timeout=3');
      await new Promise((r) => setTimeout(r, 1_800)); // past the 1 s headers timeout, within the 3 s keep-alive
      const second = await post();
      assert.deepEqual([first.status, second.status], [200, 200]);
      assert.equal(second.socket, first.socket, 'the same connection served both');
    } finally {
      agent.destroy();
    }
  });

  it('past SEXTANT_HTTP_MAX_CONNECTIONS closes the oldest idle connections, and serves a new one while they are held', async () => {
    const held: Socket[] = [];
    const closed: number[] = [];
    for (let i = 0; i < 80; i++) {
      const socket = connect(port(), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.on('close', () => closed.push(i));
      held.push(socket);
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(
      [...closed].sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i),
      'the 20 oldest were closed',
    );
    // 60 connections still held, the cap: a new one is taken (closing the oldest idle one) and answered.
    assert.equal((await fetch(sextant.url.replace('/mcp', '/livez'))).status, 200);
    for (const s of held) s.destroy();
  });
});

describe('npm start, as a user types it', () => {
  it('serves on an already built tree within seconds, and SIGTERM to npm stops the server with it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sextant-npm-start-'));
    const started = performance.now();
    const child = spawn('npm', ['start', '--silent'], {
      cwd: repoPath('.'),
      env: { ...process.env, SEXTANT_PORT: '0', SEXTANT_DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not ready after 60 s:\n${output}`)), 60_000);
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          const ready = /MCP endpoint ready at (http:\/\/\S+\/mcp)/.exec(output);
          if (ready) {
            clearTimeout(timer);
            resolve(ready[1]);
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
      });
      const readyMs = performance.now() - started;
      assert.ok(readyMs < 30_000, `ready after ${Math.round(readyMs)} ms`);
      assert.ok(
        output
          .split('\n')
          .filter(Boolean)
          .every((line) => line.startsWith('{')),
        `only JSON lines:\n${output}`,
      );
      assert.equal((await fetch(url.replace('/mcp', '/livez'))).status, 200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      // Nothing of it is left listening.
      await assert.rejects(fetch(url.replace('/mcp', '/livez'), { signal: AbortSignal.timeout(2_000) }));
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the sextant command line', () => {
  let held: Server;
  let port: number;
  let dataDir: string;
  before(async () => {
    // A port this test holds: a command that started a server on it would fail (exit 1), not answer and exit 0.
    port = await freePort();
    held = createServer();
    await new Promise<void>((resolve) => held.listen(port, '127.0.0.1', resolve));
    dataDir = join(mkdtempSync(join(tmpdir(), 'sextant-cli-')), 'data');
  });
  after(() => {
    held?.close();
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  });

  /** `sextant <args>` as `npx sextant` runs it (apps/sextant/bin, through scripts/start.mjs); its exit code and output. */
  async function sextant(...args: string[]): Promise<{ code: number | null; output: string; ms: number }> {
    const started = performance.now();
    const run = await startNode('apps/sextant/bin/sextant.mjs', args, {
      env: { SEXTANT_PORT: String(port), SEXTANT_DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    });
    const code = await Promise.race([run.exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), 20_000))]);
    if (code === null) await run.stop(1_000);
    return { code, output: run.output(), ms: performance.now() - started };
  }

  it("answers --help, --version and a subcommand's --help with exit 0, opening no port and no database", async () => {
    const help = await sextant('--help');
    assert.equal(help.code, 0, help.output);
    assert.match(help.output, /^Usage: sextant \[--stdio\]/);
    assert.match(help.output, /--workspace DIR/);
    const version = await sextant('--version');
    assert.equal(version.code, 0, version.output);
    assert.equal(version.output, `sextant ${(JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as { version: string }).version}`);
    for (const args of [
      ['keys', '--help'],
      ['keys', 'create', '--help'],
    ]) {
      const keys = await sextant(...args);
      assert.equal(keys.code, 0, `${args.join(' ')}: ${keys.output}`);
      assert.match(keys.output, /sextant keys create --name NAME/, args.join(' '));
    }
    for (const run of [help, version]) assert.doesNotMatch(run.output, /Authentication is off|"level"/, 'nothing but the answer');
    assert.equal(existsSync(dataDir), false, 'no data directory made, no database opened');
  });

  it('refuses an unknown flag with one line naming it and the known flags, exit 2, starting nothing', async () => {
    const unknown = await sextant('--prot', '9200');
    assert.equal(unknown.code, 2, unknown.output);
    assert.equal(unknown.output.split('\n').length, 1, unknown.output);
    assert.match(unknown.output, /unknown flag --prot; known flags: --stdio, --workspace DIR, --allowed-root DIR, --help/);
    const keys = await sextant('keys', 'list', '--everything');
    assert.equal(keys.code, 2, keys.output);
    assert.match(keys.output, /^sextant keys: unknown flag --everything; known flags: --name NAME/);
    assert.doesNotMatch(keys.output, /stack|at /, 'no stack trace');
    assert.equal(existsSync(dataDir), false, 'no data directory made, no database opened');
  });

  it('answers npm start -- --help the same way', async () => {
    const child = spawn('npm', ['start', '--silent', '--', '--help'], {
      cwd: repoPath('.'),
      env: { ...process.env, SEXTANT_PORT: String(port), SEXTANT_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, output);
    assert.match(output, /^Usage: sextant/);
    assert.equal(existsSync(dataDir), false);
  });

  it('says nothing of HTTP authentication over stdio, and says what it does while it starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-cli-stdio-'));
    try {
      // stdin is closed from the start: the client is gone as soon as it serves, so it stops.
      const run = await startNode('scripts/start.mjs', ['--stdio'], { env: { SEXTANT_DATA_DIR: dir, LOG_LEVEL: 'info' } });
      assert.equal(await run.exited, 0, run.output());
      const output = run.output();
      assert.doesNotMatch(output, /Authentication is off/);
      for (const step of [/creating the embedded database/, /embedded database ready/, /starting the services/, /serving MCP over stdio/])
        assert.match(output, step);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Ctrl-C of npm start while it indexes', () => {
  it('stops within seconds, with a line or two and no stack, no ERR_IPC_DISCONNECTED, no warnings', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sextant-ctrl-c-'));
    try {
      // scripts/start.mjs is what npm start execs; run in this repository, whose own indexing is under way at the signal.
      const run = await startNode('scripts/start.mjs', [], {
        env: { SEXTANT_PORT: '0', SEXTANT_DATA_DIR: dataDir, LOG_LEVEL: 'info' },
        readyWhen: /MCP endpoint ready at (http:\/\/\S+\/mcp)/,
        timeoutMs: 60_000,
        processGroup: true,
      });
      const url = (await run.waitFor(/MCP endpoint ready at (http:\/\/\S+\/mcp)/))[1];
      const client = await httpClient(url);
      assert.equal((await callTool(client, 'sync_repo', {})).isError, false);
      await client.close();
      // Its launcher (git, ripgrep) and the stage workers are busy now.
      await new Promise((r) => setTimeout(r, 2_000));
      const before = run.output().split('\n').length;
      const stoppedAt = performance.now();
      process.kill(-run.pid, 'SIGINT'); // the whole process group, as a terminal's Ctrl-C
      const code = await Promise.race([run.exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000))]);
      const after = run.output().split('\n').slice(before).join('\n');
      if (code === 'hung') process.kill(-run.pid, 'SIGKILL');
      assert.equal(code, 0, `exit code; output after the signal:\n${after}`);
      assert.ok(performance.now() - stoppedAt < 20_000);
      assert.match(after, /SIGINT: stopping/);
      assert.match(after, /"msg":"stopped/);
      assert.doesNotMatch(after, /ERR_IPC|"stack"|\n\s+at |could not take a batch|"level":"(warn|error|fatal)"/, after);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
