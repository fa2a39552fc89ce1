/**
 * What authentication adds to a call (issue #13): `npm run bench:auth`.
 *
 * 1. In process: the gateway's Authenticator on a bearer JWT of a local
 *    identity provider (RS256, its JWKS fetched once over HTTP, then cached),
 *    p50 and p99 over 20,000 calls: the target is ≤ 0.2 ms with cached keys.
 * 2. End to end: `tools/call list_projects` over HTTP to the one-process mode,
 *    first with authentication off, then on with a JWT and with an API key
 *    (made with the `sextant keys` CLI), 2,000 calls each after a warm-up:
 *    the difference of the p50s (across processes: their variation shows).
 * 3. `search_code` over a 200-repository project as an admin (nothing
 *    filtered) and as a reader of it, alternated: the permission checks'
 *    cost (target ≤ 1 ms); and a reader probing another project's repository
 *    by name against a name nobody registered: identical answers, and p50s.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Authenticator, loadConfig } from '@sextant/gateway';
import type { BusClient } from '@sextant/messaging';
import {
  BareRepository,
  callTool,
  createTestDatabase,
  httpClient,
  infrastructure,
  repoPath,
  startEmbedded,
  TestIdentityProvider,
} from '@sextant/testing';
import { summarize, verdict } from '../stats.js';

const AUDIENCE = 'https://sextant.bench/mcp';
const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

async function inProcess(idp: TestIdentityProvider): Promise<{ first: { p50: number; p99: number }; again: { p50: number; p99: number } }> {
  const config = loadConfig({
    NATS_URL: 'nats://127.0.0.1:4222',
    SEXTANT_AUTH_ISSUER: idp.issuer,
    SEXTANT_AUTH_AUDIENCE: AUDIENCE,
    SEXTANT_AUTH_JWKS_URL: idp.jwksUrl,
  });
  // JWTs never reach the bus: a call to it would be a bug, not a cost to measure.
  const bus = { request: () => Promise.reject(new Error('the JWT path does not use the bus')) } as unknown as BusClient;
  const auth = new Authenticator(config, bus);
  const check = async (header: string) => {
    const start = performance.now();
    const outcome = await auth.authenticate(header);
    const ms = performance.now() - start;
    if (!('principal' in outcome)) throw new Error(`refused: ${outcome.failure.description}`);
    return ms;
  };
  const mint = (i: number) => idp.token(`user-${i}`, AUDIENCE, { claims: { groups: ['platform'] } }).then((t) => `Bearer ${t}`);
  // Warm-up (and the one JWKS fetch), then each token's first call: a full signature check.
  for (let i = 0; i < 300; i++) await check(await mint(i));
  const fresh = await Promise.all(Array.from({ length: 3_000 }, (_, i) => mint(1_000 + i)));
  const first: number[] = [];
  for (const header of fresh) first.push(await check(header));
  // The same token again, as an agent sends it on every call.
  const again: number[] = [];
  for (let i = 0; i < 20_000; i++) again.push(await check(fresh[i % fresh.length]));
  return { first: summarize(first), again: summarize(again) };
}

/** p50 of `tools/call list_projects` (a direct call: one bus request and one query) with this Authorization. */
async function callLatency(url: string, authorization: string | undefined, calls: number): Promise<number> {
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  if (authorization) headers.authorization = authorization;
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_projects', arguments: {} } });
  const samples: number[] = [];
  for (let i = 0; i < calls + 200; i++) {
    const start = performance.now();
    const response = await fetch(url, { method: 'POST', headers, body });
    await response.text();
    if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
    if (i >= 200) samples.push(performance.now() - start);
  }
  return summarize(samples).p50;
}

const REPOSITORIES = 200;
const SEARCHES = 500;

/**
 * 200 small repositories registered and indexed, in one project; search_code
 * scoped to the project as an admin (nothing filtered) and as a reader of it
 * (every repository checked against what it may read), p50 of each; then a
 * reader probing a repository of another project against a missing name.
 * Keys live in a Postgres database, so the CLI makes them while Sextant runs.
 */
async function scopedSearch(
  idp: TestIdentityProvider,
): Promise<{ admin: number; reader: number; hidden: number; missing: number; identical: boolean; urlHidden: number; urlMissing: number; urlIdentical: boolean }> {
  const infra = await infrastructure();
  const database = await createTestDatabase(infra.postgresUrl);
  const root = mkdtempSync(join(tmpdir(), 'sextant-bench-scoped-'));
  const key = (...args: string[]) => {
    const run = spawnSync(process.execPath, [repoPath('apps/sextant/dist/keys/main.js'), 'create', ...args], {
      env: { PATH: process.env.PATH, DATABASE_URL: database.url },
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`keys create failed: ${run.stderr}`);
    return run.stdout.trim();
  };
  const template = new BareRepository(root, 'template');
  template.commit('main', { 'src/index.ts': 'export function handler(): number {\n  return 1;\n}\n' });
  const urls = Array.from({ length: REPOSITORIES + 1 }, (_, i) => {
    const path = join(root, `repo-${i}.git`);
    cpSync(template.path, path, { recursive: true });
    return `file://${path}`;
  });
  const sextant = await startEmbedded({
    DATABASE_URL: database.url,
    SEXTANT_AUTH: 'on',
    SEXTANT_AUTH_ISSUER: idp.issuer,
    SEXTANT_AUTH_AUDIENCE: AUDIENCE,
    SEXTANT_AUTH_JWKS_URL: idp.jwksUrl,
    GIT_ALLOW_FILE_URLS: 'true',
    SEXTANT_RATE_LIMIT_PER_MINUTE: '1000000',
    SEXTANT_RATE_LIMIT_BURST: '1000000',
  });
  const admin = await httpClient(sextant.url, { bearer: key('--name', 'bench-admin', '--admin') });
  let reader: Awaited<ReturnType<typeof httpClient>> | undefined;
  try {
    for (let i = 0; i < urls.length; i += 8) {
      await Promise.all(
        urls.slice(i, i + 8).map((repository) =>
          admin.callTool({ name: 'index_repository', arguments: { repository } }, undefined, {
            onprogress: () => undefined,
            timeout: 600_000,
          }),
        ),
      );
    }
    await callTool(admin, 'create_project', { name: 'big', repository_ids: urls.slice(0, REPOSITORIES) });
    await callTool(admin, 'create_project', { name: 'other', repository_ids: [urls[REPOSITORIES]] });
    reader = await httpClient(sextant.url, { bearer: key('--name', 'big-reader', '--projects', 'big') });
    const search = { query: 'handler', scope: { type: 'project', project: 'big' } };
    /** p50 of two kinds of call, alternated (so warm-up and machine noise fall on both alike). */
    const alternated = async (a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> => {
      for (let i = 0; i < 20; i++) await Promise.all([a(), b()]);
      const [as, bs]: [number[], number[]] = [[], []];
      for (let i = 0; i < SEARCHES; i++) {
        for (const [run, samples] of [
          [a, as],
          [b, bs],
        ] as const) {
          const start = performance.now();
          await run();
          samples.push(performance.now() - start);
        }
      }
      return [summarize(as).p50, summarize(bs).p50];
    };
    const first = await callTool<{ error?: string }>(reader, 'search_code', search);
    if (first.body.error) throw new Error(`search_code failed: ${JSON.stringify(first.body)}`);
    const readerClient = reader;
    const [adminP50, readerP50] = await alternated(
      () => callTool(admin, 'search_code', search),
      () => callTool(readerClient, 'search_code', search),
    );
    // Probing by name: the other project's repository against a name nobody registered.
    const listed = await callTool<{ repositories: Array<{ name: string; url: string | null }> }>(admin, 'list_repositories', {
      limit: 500,
    });
    const hiddenName = listed.body.repositories.find((r) => r.url === urls[REPOSITORIES])!.name;
    const missingName = `${hiddenName}-missing`;
    const hiddenAnswer = await callTool<{ error: string; message: string }>(reader, 'grep_repository', {
      repository: hiddenName,
      pattern: 'x',
    });
    const missingAnswer = await callTool<{ error: string; message: string }>(reader, 'grep_repository', {
      repository: missingName,
      pattern: 'x',
    });
    const identical =
      hiddenAnswer.body.error === missingAnswer.body.error &&
      hiddenAnswer.body.message.replace(hiddenName, 'X') === missingAnswer.body.message.replace(missingName, 'X');
    const [hidden, missing] = await alternated(
      () => callTool(readerClient, 'grep_repository', { repository: hiddenName, pattern: 'x' }),
      () => callTool(readerClient, 'grep_repository', { repository: missingName, pattern: 'x' }),
    );
    // Probing by URL: the other project's repository against a URL no repository answers at (a failed clone each time).
    const hiddenUrl = urls[REPOSITORIES];
    const missingUrl = hiddenUrl.replace(/\.git$/, '-missing.git');
    const byUrl = (repository: string) =>
      callTool<{ error: string; message: string }>(readerClient, 'grep_repository', { repository, pattern: 'x' });
    const [hiddenByUrl, missingByUrl] = [(await byUrl(hiddenUrl)).body, (await byUrl(missingUrl)).body];
    const urlIdentical =
      hiddenByUrl.error === missingByUrl.error &&
      hiddenByUrl.message.replace(hiddenUrl.slice('file://'.length), 'X') ===
        missingByUrl.message.replace(missingUrl.slice('file://'.length), 'X');
    const [urlHidden, urlMissing] = await alternated(
      () => byUrl(hiddenUrl),
      () => byUrl(missingUrl),
    );
    return { admin: adminP50, reader: readerP50, hidden, missing, identical, urlHidden, urlMissing, urlIdentical };
  } finally {
    await reader?.close();
    await admin.close();
    await sextant.stop();
    rmSync(root, { recursive: true, force: true });
    await database.drop();
    await infra.stop();
  }
}

async function main(): Promise<void> {
  const idp = await TestIdentityProvider.start();
  const dataDir = mkdtempSync(join(tmpdir(), 'sextant-bench-auth-'));
  try {
    const local = await inProcess(idp);
    console.log('authentication in process (Authenticator.authenticate, RS256 JWT, JWKS cached):');
    console.log(`  a token's first call (signature checked): p50 ${fmt(local.first.p50)}  p99 ${fmt(local.first.p99)}`);
    console.log(`  the same token again (verified-token cache): p50 ${fmt(local.again.p50)}  p99 ${fmt(local.again.p99)}`);

    const created = spawnSync(process.execPath, [repoPath('apps/sextant/dist/keys/main.js'), 'create', '--name', 'bench', '--admin'], {
      env: { PATH: process.env.PATH, SEXTANT_DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    if (created.status !== 0) throw new Error(`keys create failed: ${created.stderr}`);
    const key = created.stdout.trim();

    const baseline = async () => {
      const off = await startEmbedded({ SEXTANT_DATA_DIR: dataDir });
      try {
        return await callLatency(off.url, undefined, 2_000);
      } finally {
        await off.stop();
      }
    };
    const before = await baseline();
    const on = await startEmbedded({
      SEXTANT_DATA_DIR: dataDir,
      SEXTANT_AUTH: 'on',
      SEXTANT_AUTH_ISSUER: idp.issuer,
      SEXTANT_AUTH_AUDIENCE: AUDIENCE,
      SEXTANT_AUTH_JWKS_URL: idp.jwksUrl,
    });
    const withJwt = await callLatency(on.url, `Bearer ${await idp.token('alice', AUDIENCE)}`, 2_000);
    const withKey = await callLatency(on.url, `Bearer ${key}`, 2_000);
    await on.stop();
    const after = await baseline();
    const off = (before + after) / 2;
    console.log('tools/call list_projects over HTTP, one-process mode, p50 of 2,000 (off: mean of a run before and after):');
    console.log(
      `  auth off ${fmt(before)} / ${fmt(after)}  JWT ${fmt(withJwt)} (${fmt(withJwt - off)})  API key ${fmt(withKey)} (${fmt(withKey - off)})`,
    );
    const scoped = await scopedSearch(idp);
    console.log(`search_code over a ${REPOSITORIES}-repository project, one-process mode, p50 of ${SEARCHES}:`);
    console.log(
      `  admin (no filtering) ${fmt(scoped.admin)}  reader of the project (filtered) ${fmt(scoped.reader)} (${fmt(scoped.reader - scoped.admin)})`,
    );
    console.log(
      `  probing by name: a hidden repository ${fmt(scoped.hidden)} vs a missing one ${fmt(scoped.missing)} (answers identical: ${scoped.identical})`,
    );
    console.log(
      `  probing by URL: a hidden repository ${fmt(scoped.urlHidden)} vs a URL nothing answers at ${fmt(scoped.urlMissing)} (answers identical: ${scoped.urlIdentical})`,
    );
    console.log('targets:');
    console.log(
      verdict(local.again.p50 <= 0.2, 'authentication p50 ≤ 0.2 ms with cached keys (a call with a known token)', fmt(local.again.p50)),
    );
    console.log(verdict(local.first.p50 <= 0.2, "authentication p50 ≤ 0.2 ms (a token's first call)", fmt(local.first.p50)));
    console.log(
      verdict(
        scoped.reader - scoped.admin <= 1,
        `permission checks on search_code over ${REPOSITORIES} repositories ≤ 1 ms`,
        fmt(scoped.reader - scoped.admin),
      ),
    );
  } finally {
    await idp.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
