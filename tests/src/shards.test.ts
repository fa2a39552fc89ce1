/**
 * Repository affinity: git-cache as 4 shards (processes) behind one gateway.
 * Every call about a repository reaches the shard that owns it, so each of
 * 200 repositories is cloned exactly once, and a restarted shard takes up
 * its clones from its volume instead of cloning again. The symbol indexer as
 * 2 shards: each takes only the batches of its own repositories.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { repositoryShardKey, shardOf } from '@sextant/contracts';
import { BareRepository, callTool, freePort, httpClient, type RunningProcess } from '@sextant/testing';
import { distributedStack, type Stack } from './stack.js';

const SHARDS = 4;
const REPOSITORIES = 200;
/** A fixed place, so the repository URLs (and so their shards) are the same on every run. */
const ROOT = join(tmpdir(), 'sextant-shard-affinity');

/** The value of one series in Prometheus text, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('git-cache sharded by repository (SEXTANT_SHARDS=git-cache=4)', () => {
  let stack: Stack;
  let client: Client;
  const shards: Array<{ process: RunningProcess; port: number; cacheDir: string }> = [];
  const urls: string[] = [];

  const startShard = async (index: number, port: number, cacheDir: string) =>
    stack.startService('git-cache', {
      SEXTANT_SHARDS: `git-cache=${SHARDS}`,
      SEXTANT_SHARD: String(index),
      SEXTANT_HEALTH_PORT: String(port),
      GIT_CACHE_DIR: cacheDir,
      GIT_ALLOW_FILE_URLS: 'true',
    });
  const metrics = async (index: number) => (await fetch(`http://127.0.0.1:${shards[index].port}/metrics`)).text();
  const clones = async (index: number) => sample(await metrics(index), 'sextant_clone_cache_events_total{cache="clones",event="clones"}');

  before(async () => {
    rmSync(ROOT, { recursive: true, force: true });
    mkdirSync(ROOT, { recursive: true });
    const template = new BareRepository(ROOT, 'template');
    template.commit('main', { 'README.md': 'shard affinity\n', 'src/a.ts': 'export const needle = 1;\n' });
    for (let i = 0; i < REPOSITORIES; i++) {
      const path = join(ROOT, `repo-${String(i).padStart(3, '0')}.git`);
      cpSync(template.path, path, { recursive: true });
      urls.push(`file://${path}`);
    }
    template.dispose();
    stack = await distributedStack();
    for (let index = 0; index < SHARDS; index++) {
      const port = await freePort();
      const cacheDir = join(ROOT, `cache-${index}`);
      shards.push({ process: await startShard(index, port, cacheDir), port, cacheDir });
    }
    const gateway = await stack.startGateway({ SEXTANT_SERVICES: 'git-cache', SEXTANT_SHARDS: `git-cache=${SHARDS}` });
    client = await httpClient(gateway.url);
  });
  after(async () => {
    await client?.close();
    await stack?.stop();
    rmSync(ROOT, { recursive: true, force: true });
  });

  it('clones each of 200 repositories once, on one shard, with the shards within ±20 % of an even share', async () => {
    // Two calls per repository, in two spellings of its URL, eight at a time.
    const calls = urls.flatMap((url) => [
      { tool: 'grep_repository', args: { repository: url, pattern: 'needle' } },
      { tool: 'list_repository_refs', args: { repository: `${url}/` } },
    ]);
    for (let i = 0; i < calls.length; i += 8) {
      const answers = await Promise.all(calls.slice(i, i + 8).map((c) => callTool(client, c.tool, c.args)));
      for (const answer of answers) assert.equal(answer.isError, false, JSON.stringify(answer.body));
    }
    const perShard = await Promise.all(shards.map((_, index) => clones(index)));
    assert.equal(
      perShard.reduce((a, b) => a + b, 0),
      REPOSITORIES,
      `clones per shard ${perShard.join(', ')}: each repository once`,
    );
    const even = REPOSITORIES / SHARDS;
    for (const n of perShard) assert.ok(Math.abs(n - even) <= even * 0.2, `clones per shard ${perShard.join(', ')}`);
  });

  it('a restarted shard takes up the clones on its volume instead of cloning again', async () => {
    const shard = shards[0];
    shard.process.child.kill('SIGTERM');
    assert.equal(await shard.process.exited, 0);
    shard.process = await startShard(0, shard.port, shard.cacheDir);
    // Every repository again: only shard 0's are asked of the new process, and none is cloned.
    for (let i = 0; i < urls.length; i += 8) {
      await Promise.all(urls.slice(i, i + 8).map((url) => callTool(client, 'grep_repository', { repository: url, pattern: 'needle' })));
    }
    const text = await metrics(0);
    assert.equal(sample(text, 'sextant_clone_cache_events_total{cache="clones",event="clones"}'), 0);
    assert.ok(sample(text, 'sextant_clone_cache_events_total{cache="clones",event="takenUp"}') > 0);
  });
});

describe('the symbol indexer sharded by repository (SEXTANT_SHARDS=symbol-indexer=2)', () => {
  const root = join(tmpdir(), 'sextant-index-shards');
  const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
  let stack: Stack;
  let client: Client;
  const urls = new Map<string, string>();

  before(async () => {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    for (const name of names) {
      const repository = new BareRepository(root, name);
      repository.commit('main', { 'src/index.ts': `export function ${name}Handler(): number {\n  return 1;\n}\n` });
      urls.set(name, `file://${repository.path}`);
    }
    stack = await distributedStack();
    const shards = { SEXTANT_SHARDS: 'symbol-indexer=2', GIT_ALLOW_FILE_URLS: 'true' };
    await stack.startService('workspace-registry', {
      ...shards,
      SEXTANT_DATA_DIR: join(root, 'registry'),
      SEXTANT_INDEXING_STAGES: 'symbols',
    });
    await Promise.all(
      [0, 1].map((index) =>
        stack.startService('symbol-indexer', { ...shards, SEXTANT_SHARD: String(index), SEXTANT_DATA_DIR: join(root, `shard-${index}`) }),
      ),
    );
    const gateway = await stack.startGateway({ ...shards, SEXTANT_SERVICES: 'workspace-registry,symbol-indexer' });
    client = await httpClient(gateway.url);
  });
  after(async () => {
    await client?.close();
    await stack?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('indexes each repository on the one shard its URL hashes to, and answers for all of them from either', async () => {
    const expected = names.map((name) => shardOf(repositoryShardKey(urls.get(name)!), 2));
    assert.ok(expected.includes(0) && expected.includes(1), 'the fixture spreads over both shards');
    await Promise.all(
      names.map(async (name) => {
        // With a progress token the call returns when the job has ended.
        const done = await client.callTool({ name: 'index_repository', arguments: { repository: urls.get(name)! } }, undefined, {
          onprogress: () => undefined,
          timeout: 120_000,
        });
        assert.equal((done.structuredContent as { status: string }).status, 'completed', JSON.stringify(done.structuredContent));
      }),
    );
    const cloned = [0, 1].map((index) =>
      readdirSync(join(root, `shard-${index}`, 'symbol-checkouts')).filter((entry) => entry.startsWith('mcp_')),
    );
    names.forEach((name, i) => {
      const holders = [0, 1].filter((index) =>
        cloned[index].some((entry) => entry.includes(`_${name}.git_`) || entry.includes(`_${name}_`)),
      );
      assert.deepEqual(holders, [expected[i]], `${name}: cloned by shard ${expected[i]} alone`);
    });
    for (const name of names) {
      const found = await callTool<{ definitions: Array<{ name: string }> }>(client, 'locate_symbol', { name: `${name}Handler` });
      assert.equal(found.isError, false, JSON.stringify(found.body));
      assert.deepEqual(
        found.body.definitions.map((s) => s.name),
        [`${name}Handler`],
      );
    }
  });
});
