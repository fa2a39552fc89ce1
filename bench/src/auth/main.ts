/**
 * What authentication adds to a call (issue #13): `npm run bench:auth`.
 *
 * 1. In process: the gateway's Authenticator on a bearer JWT of a local
 *    identity provider (RS256, its JWKS fetched once over HTTP, then cached),
 *    p50 and p99 over 20,000 calls: the target is ≤ 0.2 ms with cached keys.
 * 2. End to end: `tools/call list_projects` over HTTP to the one-process mode,
 *    first with authentication off, then on with a JWT and with an API key
 *    (made with the `sextant keys` CLI), 2,000 calls each after a warm-up:
 *    the difference of the p50s.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Authenticator, loadConfig } from '@sextant/gateway';
import type { BusClient } from '@sextant/messaging';
import { repoPath, startEmbedded, TestIdentityProvider } from '@sextant/testing';
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
  for (let i = 0; i < 20_000; i++) again.push(await check(fresh[i % fresh.length]!));
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
    console.log('targets:');
    console.log(
      verdict(local.again.p50 <= 0.2, 'authentication p50 ≤ 0.2 ms with cached keys (a call with a known token)', fmt(local.again.p50)),
    );
    console.log(verdict(local.first.p50 <= 0.2, "authentication p50 ≤ 0.2 ms (a token's first call)", fmt(local.first.p50)));
  } finally {
    await idp.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
