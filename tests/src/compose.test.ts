/**
 * `docker compose up` of the repository's own docker-compose.yml, unchanged,
 * with deploy/offline/compose.ci.yml over it for what cannot run here
 * (Qdrant: vector-search keeps its vectors in Postgres; the image's local
 * base; a mounted directory of repositories; spans as OTLP/JSON) (issue 37):
 * every container healthy; through the gateway on 9100 with the MCP SDK
 * client: a project, a repository indexed with progress notifications,
 * search_code, locate_symbol, find_references, grep_repository, open_file;
 * one call's trace crossing services reaches a collector; `docker compose
 * stop` ends every container with exit 0; `up` again finds the index and the
 * clones in their volumes, and nothing is indexed again.
 *
 * Compose v1 (the only compose here) reads the file as it is, with one v2 key
 * it ignores: `pull_policy` (`never` and `build`), so CI builds the image
 * before `up` (`docker compose build gateway`).
 *
 * Needs a container engine and its images (deploy/offline/engine.sh start):
 * fails in CI without one, reported skipped with the reason elsewhere.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  BareRepository,
  callTool,
  docker,
  DOCKER,
  engineMissing,
  giveToImageUser,
  httpClient,
  OtlpReceiver,
  repoPath,
  startEmbedded,
  type Sextant,
} from '@sextant/testing';
import { SHOP } from './shop.js';

const missing = engineMissing();
if (missing && process.env.CI) it('a container engine answers', () => assert.fail(missing));

/** The calls of the smoke, timed: each tool's median over `rounds` calls. */
async function smoke(client: Client, url: string, rounds = 5): Promise<Record<string, number>> {
  const calls: Record<string, () => Promise<unknown>> = {
    search_code: () => callTool(client, 'search_code', { query: 'retry failed webhooks', scope: { type: 'repo', repo: url } }),
    locate_symbol: () => callTool(client, 'locate_symbol', { name: 'retryFailedWebhooks', repo: url }),
    find_references: () => callTool(client, 'find_references', { name: 'send', repo: url }),
    grep_repository: () => callTool(client, 'grep_repository', { repository: url, pattern: 'backoff' }),
    open_file: () => callTool(client, 'open_file', { repo: url, path: 'src/webhooks/retry.ts' }),
  };
  const medians: Record<string, number> = {};
  for (const [tool, call] of Object.entries(calls)) {
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const started = performance.now();
      const answer = (await call()) as { isError: boolean; body: unknown };
      times.push(performance.now() - started);
      assert.equal(answer.isError, false, `${tool}: ${JSON.stringify(answer.body)}`);
    }
    medians[tool] = times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  }
  return medians;
}

/**
 * These bring a whole deployment up, index in it and take it down again: on a machine's first CI run (no image layer
 * cached) that took longer than 5 minutes.
 */
const LONG_MS = 900_000;

describe('docker compose up of docker-compose.yml', { skip: missing && !process.env.CI ? missing : false }, () => {
  const project = `sxci${randomBytes(3).toString('hex')}`;
  const repos = mkdtempSync(join(tmpdir(), 'sextant-compose-repos-'));
  // The same repository for the one-process mode on this machine: git refuses one another user owns.
  const localRepos = mkdtempSync(join(tmpdir(), 'sextant-compose-local-'));
  const collector = new OtlpReceiver();
  let env: NodeJS.ProcessEnv;
  const compose = (args: string[], timeoutMs = 180_000) =>
    docker(['compose', '-p', project, '-f', repoPath('docker-compose.yml'), '-f', repoPath('deploy/offline/compose.ci.yml'), ...args], {
      env,
      timeoutMs,
    });
  const SHOP_URL = 'file:///repos/shop.git';

  /** Waits until every container of the project is running and, where it has a health check, healthy; returns ms. */
  async function allHealthy(): Promise<number> {
    const started = performance.now();
    let states = '';
    while (performance.now() - started < 120_000) {
      const ids = (await compose(['ps', '-q'])).trim().split('\n').filter(Boolean);
      states = (
        await docker(['inspect', '-f', '{{.Name}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}', ...ids])
      ).trim();
      const lines = states.split('\n');
      if (lines.length >= 10 && lines.every((l) => / running( healthy)?$/.test(l.trim()))) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error(`not every container is healthy:\n${states}`);
  }

  before(async () => {
    new BareRepository(repos, 'shop').commit('main', SHOP);
    new BareRepository(repos, 'big').commit(
      'main',
      Object.fromEntries(
        Array.from({ length: 3_000 }, (_, i) => [
          `src/m${i}.ts`,
          `export function handler${i}(x: number): number {\n  return x + ${i};\n}\n`,
        ]),
      ),
    );
    giveToImageUser(repos);
    new BareRepository(localRepos, 'shop').commit('main', SHOP);
    // The collector listens on the address host.docker.internal (host-gateway) stands for in a container.
    const hosts = await docker([
      'run',
      '--rm',
      '--add-host',
      'host.docker.internal:host-gateway',
      'sextant-local/debian:bookworm',
      'getent',
      'hosts',
      'host.docker.internal',
    ]);
    const bridge = hosts.trim().split(/\s+/)[0];
    assert.match(bridge, /^\d+\.\d+\.\d+\.\d+$/, `host-gateway is ${hosts}`);
    await collector.start(bridge);
    env = {
      SEXTANT_BUS_SECRET: randomBytes(32).toString('hex'),
      SEXTANT_CI_REPOS: repos,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url.replace(bridge, 'host.docker.internal').replace(/\/v1\/traces$/, ''),
    };
    // compose v1 ignores pull_policy: build the image the file names first (cached when nothing changed).
    await compose(['build', 'gateway'], 900_000);
  });
  after(async () => {
    await compose(['down', '-v', '--remove-orphans'], 120_000).catch(() => undefined);
    await collector.stop();
    rmSync(repos, { recursive: true, force: true });
    rmSync(localRepos, { recursive: true, force: true });
  });

  it('refuses to start without SEXTANT_BUS_SECRET, saying what to set', () => {
    const { SEXTANT_BUS_SECRET: _secret, ...without } = { ...process.env, ...env };
    const result = spawnSync(DOCKER, ['compose', '-p', project, '-f', repoPath('docker-compose.yml'), 'config', '-q'], {
      env: without,
      encoding: 'utf8',
    });
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /SEXTANT_BUS_SECRET/);
  });

  it('says which port is taken when 9100 is already in use on the host, and starts once it is free', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(9100, '127.0.0.1', resolve));
    try {
      await assert.rejects(compose(['up', '-d']), (error: Error) => /9100/.test(error.message) && /allocated|in use/i.test(error.message));
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
      await compose(['down'], 120_000);
    }
  });

  it('brings every container up healthy, answers the MCP smoke through the gateway, traces a call across services, stops cleanly, and keeps its index across up again', { timeout: LONG_MS }, async (t) => {
    const upStarted = performance.now();
    await compose(['up', '-d']);
    await allHealthy();
    t.diagnostic(`docker compose up to all healthy: ${Math.round(performance.now() - upStarted)} ms`);

    const key = (
      await compose(['run', '--rm', '-T', 'projects', 'node', 'apps/sextant/dist/keys/main.js', 'create', '--name', 'ci', '--admin'])
    ).trim();
    assert.match(key, /^sxt_/);
    let client = await httpClient('http://127.0.0.1:9100/mcp', { bearer: key });
    let composeTimes: Record<string, number>;
    let indexedCommit: string | null;
    let indexedAt: string | null;
    try {
      assert.equal((await callTool(client, 'create_project', { name: 'shop' })).isError, false);
      const progress: number[] = [];
      const indexed = await client.callTool({ name: 'index_repository', arguments: { repository: SHOP_URL } }, undefined, {
        onprogress: (p) => progress.push(p.progress),
        timeout: 120_000,
      });
      assert.equal((indexed.structuredContent as { status: string }).status, 'completed', JSON.stringify(indexed.structuredContent));
      assert.ok(progress.length >= 1, 'progress notifications while the job ran');
      const added = await callTool(client, 'add_repository_to_project', { project: 'shop', repository_id: SHOP_URL });
      assert.equal(added.isError, false, JSON.stringify(added.body));
      const inProject = await callTool<{ results?: Array<{ path: string }> }>(client, 'search_code', {
        query: 'retry failed webhooks',
        scope: { type: 'project', project: 'shop' },
      });
      assert.equal(inProject.body.results?.[0]?.path, 'src/webhooks/retry.ts', JSON.stringify(inProject.body));
      composeTimes = await smoke(client, SHOP_URL);

      // One call's trace: the gateway's span and a service's under the same trace id.
      const traced = await callTool<{ metadata: { trace_id: string } }>(client, 'locate_symbol', { name: 'send', repo: SHOP_URL });
      const traceId = traced.body.metadata.trace_id;
      const spans = await collector.waitFor(
        (all) => new Set(all.filter((s) => s.traceId === traceId).map((s) => s.service)).size >= 2,
        30_000,
      );
      const services = [...new Set(spans.filter((s) => s.traceId === traceId).map((s) => s.service))].sort();
      t.diagnostic(`trace ${traceId} crossed ${services.join(', ')}`);
      assert.ok(
        services.some((s) => s.includes('gateway')),
        services.join(', '),
      );

      const listed = await callTool<{
        repositories: Array<{ url: string | null; indexed_commit: string | null; last_indexed_at: string | null }>;
      }>(client, 'list_repositories', {});
      const entry = listed.body.repositories.find((r) => r.url === SHOP_URL);
      indexedCommit = entry?.indexed_commit ?? null;
      indexedAt = entry?.last_indexed_at ?? null;
      assert.ok(indexedCommit && indexedAt);
    } finally {
      await client.close();
    }

    // Stop: every container ends with exit 0 (each answers what it holds, then exits), then down keeps the volumes.
    const ids = (await compose(['ps', '-q'])).trim().split('\n').filter(Boolean);
    const stopping = performance.now();
    await compose(['stop'], 120_000);
    t.diagnostic(`docker compose stop: ${Math.round(performance.now() - stopping)} ms`);
    const exits = (await docker(['inspect', '-f', '{{.Name}} {{.State.ExitCode}}', ...ids])).trim().split('\n');
    for (const line of exits) assert.match(line, / 0$/, exits.join('\n'));
    await compose(['down'], 120_000);

    // Up again: the index and the clones are in the volumes; nothing is indexed again.
    await compose(['up', '-d']);
    await allHealthy();
    client = await httpClient('http://127.0.0.1:9100/mcp', { bearer: key });
    try {
      const listed = await callTool<{
        repositories: Array<{ url: string | null; indexed_commit: string | null; index_status: string; last_indexed_at: string | null }>;
      }>(client, 'list_repositories', {});
      const shop = listed.body.repositories.find((r) => r.url === SHOP_URL);
      // Not indexed again: the same commit, indexed at the same moment as before the restart.
      assert.deepEqual(
        [shop?.index_status, shop?.indexed_commit, shop?.last_indexed_at],
        ['ready', indexedCommit, indexedAt],
        JSON.stringify(listed.body),
      );
      const located = await callTool<{ definitions?: Array<{ path: string }> }>(client, 'locate_symbol', {
        name: 'retryFailedWebhooks',
        repo: SHOP_URL,
      });
      assert.equal(located.body.definitions?.[0]?.path, 'src/webhooks/retry.ts', JSON.stringify(located.body));
    } finally {
      await client.close();
    }
    const clones = await compose(['exec', '-T', 'workspace-registry', 'sh', '-c', 'ls /var/lib/sextant/checkouts']);
    assert.match(clones, /^mcp_file_/m, "the registry's persistent clone is still in its volume");

    // The same calls on `npm start` (the one-process mode) on this machine, for the ratio.
    const embedded: Sextant = await startEmbedded({ GIT_ALLOW_FILE_URLS: 'true' });
    try {
      const local = await httpClient(embedded.url);
      try {
        const url = `file://${localRepos}/shop.git`;
        const done = await local.callTool({ name: 'index_repository', arguments: { repository: url } }, undefined, {
          onprogress: () => undefined,
          timeout: 120_000,
        });
        assert.equal((done.structuredContent as { status: string }).status, 'completed', JSON.stringify(done.structuredContent));
        const embeddedTimes = await smoke(local, url);
        t.diagnostic(
          `median ms, compose / npm start: ${Object.keys(composeTimes!)
            .map(
              (tool) =>
                `${tool} ${composeTimes[tool].toFixed(1)} / ${embeddedTimes[tool].toFixed(1)} (${(composeTimes[tool] / embeddedTimes[tool]).toFixed(2)}×)`,
            )
            .join('; ')}`,
        );
      } finally {
        await local.close();
      }
    } finally {
      await embedded.stop();
    }
  });

  it('faults with real containers: NATS killed mid-call, Postgres restarted during an index job, git-cache killed and restarted on its volume', { timeout: LONG_MS }, async (t) => {
    const key = (
      await compose(['run', '--rm', '-T', 'projects', 'node', 'apps/sextant/dist/keys/main.js', 'create', '--name', 'faults', '--admin'])
    ).trim();
    const containerOf = async (service: string) => (await compose(['ps', '-q', service])).trim().split('\n')[0];
    const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<number> => {
      const started = performance.now();
      while (performance.now() - started < timeoutMs) {
        if (await check().catch(() => false)) return performance.now() - started;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error(`${what}: not within ${timeoutMs} ms`);
    };
    const ready = async () => (await fetch('http://127.0.0.1:9100/readyz')).ok;
    const BIG = 'file:///repos/big.git';

    // 1. NATS killed while calls go on: they answer unavailable quickly; everything recovers when it is back.
    let client = await httpClient('http://127.0.0.1:9100/mcp', { bearer: key });
    const nats = await containerOf('nats');
    try {
      await docker(['kill', nats]);
      const killedAt = performance.now();
      const answer = await callTool<{ error?: string }>(client, 'locate_symbol', { name: 'send', repo: SHOP_URL }).catch(
        (error: Error) => ({ isError: true, body: { error: `transport: ${error.message}` } }),
      );
      const toUnavailable = performance.now() - killedAt;
      assert.equal(answer.body.error, 'unavailable', JSON.stringify(answer.body));
      await docker(['start', nats]);
      const toRecovery = await until('the gateway ready again after NATS came back', async () => {
        if (!(await ready())) return false;
        const again = await callTool<{ error?: string }>(client, 'locate_symbol', { name: 'send', repo: SHOP_URL });
        return again.isError === false;
      });
      t.diagnostic(
        `NATS killed: unavailable in ${Math.round(toUnavailable)} ms; answering again ${Math.round(toRecovery)} ms after it restarted`,
      );
      assert.ok(toUnavailable < 10_000, `unavailable within 10 s (${Math.round(toUnavailable)} ms)`);
    } finally {
      await client.close();
    }

    // 2. Postgres restarted while an index job runs: the job completes or is reported interrupted, and nothing is doubled.
    client = await httpClient('http://127.0.0.1:9100/mcp', { bearer: key });
    try {
      let progressed = false;
      const job = client
        .callTool({ name: 'index_repository', arguments: { repository: BIG } }, undefined, {
          onprogress: () => (progressed = true),
          timeout: 180_000,
        })
        .then(
          (result) => result.structuredContent as { runId?: string; status?: string; error?: string },
          (error: Error) => ({ error: error.message }),
        );
      await until('the job reports progress', async () => progressed, 60_000);
      const postgres = await containerOf('postgres');
      const restarting = performance.now();
      await docker(['restart', '-t', '5', postgres]);
      const answered = await job;
      t.diagnostic(
        `Postgres restarted (${Math.round(performance.now() - restarting)} ms) during indexing: the call answered ${JSON.stringify(answered).slice(0, 200)}`,
      );
      // Whatever that call said, the repository ends indexed once: re-index if the job was cut off, then count.
      await until('the registry answers again', ready, 90_000);
      const settle = async () => {
        const listed = await callTool<{ repositories: Array<{ url: string | null; index_status: string; file_count?: number }> }>(
          client,
          'list_repositories',
          {},
        );
        return listed.body.repositories?.filter((r) => r.url === BIG) ?? [];
      };
      // What the registry last said of the job, for the failure message. The bound is past the coordinator's own
      // (a stage that finishes no batch for 5 minutes fails its job): CI saw this wait run out once at 120 s, which
      // nine runs here with the restart at 0–10 s into the job did not repeat (each job ended within 25 s).
      let seen = '';
      const waited = await until(
        'the interrupted job ends',
        async () => {
          const [big] = await settle();
          const runId = 'runId' in answered ? answered.runId : undefined;
          const status = runId ? (await callTool(client, 'get_index_job_status', { runId })).body : 'no job id';
          seen = JSON.stringify({ big, job: status });
          return big !== undefined && big.index_status !== 'indexing';
        },
        330_000,
      ).catch(async (error: Error) => {
        const logs = await compose(['logs', '--no-color', '--tail', '40', 'workspace-registry', 'vector-search']).catch(String);
        assert.fail(`${error.message}; last seen: ${seen}\n${logs}`);
      });
      t.diagnostic(`the interrupted job ended ${Math.round(waited)} ms after the registry was ready again: ${seen.slice(0, 300)}`);
      const [big] = await settle();
      if (big?.index_status !== 'ready') {
        const again = await client.callTool({ name: 'index_repository', arguments: { repository: BIG } }, undefined, {
          onprogress: () => undefined,
          timeout: 180_000,
        });
        assert.equal((again.structuredContent as { status: string }).status, 'completed', JSON.stringify(again.structuredContent));
      }
      assert.equal((await settle()).length, 1, 'one registry row for the repository');
      for (const name of ['handler0', 'handler1499', 'handler2999']) {
        const found = await callTool<{ definitions?: unknown[] }>(client, 'locate_symbol', { name, repo: BIG });
        assert.equal(found.body.definitions?.length, 1, `${name} defined once: ${JSON.stringify(found.body)}`);
      }
      const hits = await callTool<{ results?: Array<{ path: string }> }>(client, 'search_code', {
        query: 'handler2999',
        mode: 'lexical',
        scope: { type: 'repo', repo: BIG },
      });
      const paths = (hits.body.results ?? []).map((r) => r.path);
      assert.equal(paths.filter((p) => p === 'src/m2999.ts').length, 1, `search finds the file once: ${paths.join(', ')}`);
    } finally {
      await client.close();
    }

    // 3. git-cache killed mid-grep and started again on its volume: clones taken up or made again, nothing left of the crash.
    client = await httpClient('http://127.0.0.1:9100/mcp', { bearer: key });
    try {
      const gitCache = await containerOf('git-cache');
      const inFlight = callTool(client, 'grep_repository', { repository: BIG, pattern: 'handler\\d+', max_matches: 5 }).catch(
        (error: Error) => error,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      await docker(['kill', gitCache]);
      await inFlight;
      await docker(['start', gitCache]);
      const toRecovery = await until('grep answers again', async () => {
        const answer = await callTool<{ matches?: unknown[] }>(client, 'grep_repository', { repository: BIG, pattern: 'handler2999' });
        return (answer.body.matches?.length ?? 0) === 1;
      });
      t.diagnostic(`git-cache killed mid-grep: answering again ${Math.round(toRecovery)} ms after it was started`);
      // A temporary clone of the live process (one a call made, renamed into place when done) may be there a moment;
      // one the killed process left would stay for good.
      const leftovers = () =>
        compose(['exec', '-T', 'git-cache', 'sh', '-c', 'ls -A /var/lib/sextant/git-cache | grep "^\\.tmp-" || true']).then((out) =>
          out.trim(),
        );
      await until('no unfinished clone is left in the volume', async () => (await leftovers()) === '', 20_000).catch(() => undefined);
      assert.equal(await leftovers(), '', 'no unfinished clone is left in the volume');
    } finally {
      await client.close();
    }
  });
});
