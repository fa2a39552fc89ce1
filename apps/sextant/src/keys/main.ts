/**
 * `sextant keys create|list|revoke` (`npx sextant keys …` in the repository):
 * API keys for service accounts and simple setups (issue #13). Keys live in
 * the projects service's tables, hashed; a new key is printed once. It works
 * on DATABASE_URL, or on the one-process mode's data directory while no
 * Sextant runs on it.
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { ProjectRole } from '@sextant/contracts';
import { ServiceError } from '@sextant/work';
import { Database, startEmbeddedPostgres, type EmbeddedPostgres } from '@sextant/persistence';
import { ApiKeys, PROJECTS_MIGRATIONS, ProjectsRepository } from '@sextant/projects';
import { ConfigError, JsonLogger, lockDataDir, runMain } from '@sextant/runtime';
import { loadConfig } from '../config.js';

const USAGE = `Usage:
  sextant keys create --name NAME (--projects A,B [--role reader|maintainer] | --admin)
  sextant keys list
  sextant keys revoke ID_OR_NAME
Keys are stored in DATABASE_URL, or in SEXTANT_DATA_DIR (the one-process mode) while Sextant is stopped.`;

const OPTIONS = {
  name: { type: 'string' },
  projects: { type: 'string' },
  role: { type: 'string', default: 'reader' },
  admin: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;
const KNOWN_FLAGS = '--name NAME, --projects A,B, --role reader|maintainer, --admin, --json, --help (-h)';

runMain(process.env, async () => {
  // stdout carries only what the command prints (a new key, a list); the database's own lines go to stderr, warnings only.
  JsonLogger.install('sextant-keys', 'warn', process.stderr);
  let parsed;
  try {
    parsed = parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: OPTIONS });
  } catch (error) {
    // A mistyped flag: one line naming it and the known ones, no stack (and no database opened).
    const unknown = (error as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
    const flag = /'([^']+)'/.exec((error as Error).message)?.[1];
    process.stderr.write(
      unknown
        ? `sextant keys: unknown flag ${flag}; known flags: ${KNOWN_FLAGS} (sextant keys --help)\n`
        : `sextant keys: ${(error as Error).message.split('\n')[0]} (sextant keys --help)\n`,
    );
    process.exitCode = 2;
    return;
  }
  const { positionals, values } = parsed;
  const [command, reference] = positionals;
  if (values.help) {
    // Asked for: the usage on stdout, exit 0, whatever else the line says (`sextant keys create --help`).
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!command || !['create', 'list', 'revoke'].includes(command)) {
    process.stderr.write(`${command ? `sextant keys: unknown command ${JSON.stringify(command)}\n` : ''}${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const role = ProjectRole.safeParse(values.role);
  if (!role.success) throw new ConfigError({ '--role': 'must be reader or maintainer' });

  const store = await openStore(process.env);
  try {
    if (command === 'create') {
      if (!values.name) throw new ConfigError({ '--name': 'is required' });
      const projects = (values.projects ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const created = await store.keys.create({ name: values.name, projects, role: role.data, admin: values.admin });
      if (values.json) process.stdout.write(`${JSON.stringify(created)}\n`);
      else process.stdout.write(`${created.key}\n`);
      process.stderr.write(
        `Created key "${values.name}" (${created.id}). It is shown once: store it now. Send it as Authorization: Bearer <key>.\n`,
      );
    } else if (command === 'list') {
      const keys = await store.keys.list();
      if (values.json) process.stdout.write(`${JSON.stringify(keys)}\n`);
      else {
        for (const k of keys) {
          const grants = k.admin
            ? 'admin'
            : Object.entries(k.projects)
                .map(([p, r]) => `${p}:${r}`)
                .join(',');
          const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active';
          process.stdout.write(`${k.id}  ${k.name}  ${k.prefix}…  ${grants || '-'}  created ${k.createdAt.toISOString()}  ${state}\n`);
        }
        if (keys.length === 0) process.stderr.write('No keys.\n');
      }
    } else {
      if (!reference) throw new ConfigError({ ID_OR_NAME: 'is required: the id or name of the key to revoke' });
      const revoked = await store.keys.revoke(reference);
      if (!revoked) {
        process.stderr.write(`No active key "${reference}".\n`);
        process.exitCode = 1;
      } else
        process.stderr.write(
          `Revoked key "${revoked.name}" (${revoked.id}); gateways stop accepting it within SEXTANT_AUTH_KEY_CACHE_MS.\n`,
        );
    }
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    // The message names each bad field already.
    process.stderr.write(`${error.busError.message}\n`);
    process.exitCode = 1;
  } finally {
    await store.close();
  }
});

/** The projects tables: on DATABASE_URL, or in the data directory's embedded Postgres (taking its lock, so not while Sextant runs). */
async function openStore(env: NodeJS.ProcessEnv): Promise<{ keys: ApiKeys; close(): Promise<void> }> {
  const config = loadConfig(env);
  let postgres: EmbeddedPostgres | undefined;
  let release = () => undefined as void;
  if (!config.databaseUrl) {
    const lock = lockDataDir(config.dataDir);
    release = () => lock.release();
    postgres = await startEmbeddedPostgres({ dataDir: join(config.dataDir, 'postgres') }).catch((error: unknown) => {
      release();
      throw error;
    });
  }
  const db = new Database({
    url: config.databaseUrl ?? postgres!.url,
    schema: 'projects',
    migrations: PROJECTS_MIGRATIONS,
    poolSize: 2,
    connectTimeoutMs: 5_000,
  });
  await db.start();
  return {
    keys: new ApiKeys(db, new ProjectsRepository(db)),
    close: async () => {
      await db.stop();
      await postgres?.stop();
      release();
    },
  };
}
