import { spawnSync } from 'node:child_process';
import {
  createTestDatabase,
  infrastructure,
  repoPath,
  startEmbedded,
  TestIdentityProvider,
  type Infrastructure,
  type Sextant,
  type TestDatabase,
} from '@sextant/testing';

/** The audience the suites' tokens are for. */
export const AUDIENCE = 'https://sextant.test/mcp';

/** `sextant keys …` as a user runs it, on this database. */
export function runKeys(databaseUrl: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [repoPath('apps/sextant/dist/keys/main.js'), ...args], {
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl },
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

export interface Authenticated {
  database: TestDatabase;
  idp: TestIdentityProvider;
  sextant: Sextant;
  stop(): Promise<void>;
}

/**
 * The one-process mode with authentication on: tokens of a local identity
 * provider and API keys, the keys in a fresh Postgres database (so the CLI
 * can make them while Sextant runs). `env` adds settings.
 */
export async function authenticatedSextant(env: Record<string, string> = {}): Promise<Authenticated> {
  const infra: Infrastructure = await infrastructure();
  const database = await createTestDatabase(infra.postgresUrl);
  const idp = await TestIdentityProvider.start();
  const sextant = await startEmbedded({
    SEXTANT_AUTH: 'on',
    SEXTANT_AUTH_ISSUER: idp.issuer,
    SEXTANT_AUTH_AUDIENCE: AUDIENCE,
    SEXTANT_AUTH_JWKS_URL: idp.jwksUrl,
    DATABASE_URL: database.url,
    ...env,
  });
  return {
    database,
    idp,
    sextant,
    async stop() {
      await sextant.stop();
      await idp.stop();
      await database.drop();
      await infra.stop();
    },
  };
}
