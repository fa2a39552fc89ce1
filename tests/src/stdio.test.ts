/**
 * End to end over stdio: the official MCP SDK client spawns
 * `node apps/sextant/dist/main.js --stdio`, as Claude Code or Cursor would.
 * stdout must carry only protocol messages; logs go to stderr.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { repoPath, stdioClient } from '@sextant/testing';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { assertToolList, expectToolError, projectLifecycle } from './scenarios.js';

describe('embedded mode over stdio', () => {
  let client: Client;
  let stderr: () => string;
  let dataDir: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sextant-stdio-'));
    ({ client, stderr } = await stdioClient('apps/sextant/dist/main.js', { SEXTANT_DATA_DIR: dataDir, LOG_LEVEL: 'info' }));
  });
  after(async () => {
    await client?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('identifies itself and lists the implemented tools', async () => {
    assert.equal(client.getServerVersion()?.name, 'sextant');
    await assertToolList(client);
  });

  it('runs every project tool', () => projectLifecycle(client, 'stdio'));

  it('reports bad input as a tool error', async () => {
    await expectToolError(client, 'get_project', { project: '' }, 'invalid_input', 'project');
  });

  it('writes its logs to stderr as JSON lines', () => {
    const lines = stderr().split('\n').filter(Boolean);
    assert.ok(lines.length > 0, 'some logs were written');
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `not a JSON log line: ${line}`);
  });
});

describe('stdio, spoken by hand', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sextant-stdio-raw-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  function start() {
    const child = spawn(process.execPath, [repoPath('apps/sextant/dist/main.js'), '--stdio'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SEXTANT_DATA_DIR: dataDir },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const replies = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const send = async (message: object) => {
      child.stdin.write(`${JSON.stringify(message)}\n`);
      const { value } = await replies.next();
      return JSON.parse(value as string) as { id: number; result?: unknown; error?: { code: number; message: string } };
    };
    return { child, send, exited, stderr: () => stderr };
  }

  it('answers a tools/call with malformed params with -32602 on one line; a second process on the same data directory is told who holds it', async () => {
    const first = start();
    try {
      const init = await first.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      assert.ok(init.result, JSON.stringify(init));
      const bad = await first.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_projects', arguments: [1] } });
      assert.equal(bad.error?.code, -32602);
      assert.equal(bad.error?.message, 'Invalid params for tools/call: params.arguments: expected record, received array.');

      const second = start();
      assert.equal(await second.exited, 1);
      const lines = second.stderr().split('\n').filter(Boolean);
      const last = JSON.parse(lines.at(-1)!) as { level: string; msg: string; stack?: string };
      assert.equal(last.level, 'fatal');
      assert.match(last.msg, new RegExp(`in use by another Sextant process \\(pid ${first.child.pid}, .*--stdio`));
      assert.match(last.msg, /SEXTANT_DATA_DIR/);
      assert.equal(last.stack, undefined, 'no stack trace for a busy data directory');
    } finally {
      first.child.stdin.end();
      await first.exited;
    }
  });
});
