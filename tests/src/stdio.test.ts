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
import { stdioClient } from '@sextant/testing';
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
