import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { drainHttp, GatewayModule, httpAdapter, loadConfig as loadGatewayConfig, serveHttp, serveStdio } from '@sextant/gateway';
import { GitCacheModule, loadConfig as loadGitCacheConfig } from '@sextant/git-cache';
import { checkReplies, InProcessBus } from '@sextant/messaging';
import { classifyDatabaseError, startEmbeddedPostgres, type EmbeddedPostgres } from '@sextant/persistence';
import { loadConfig as loadProjectsConfig, ProjectsModule } from '@sextant/projects';
import { JsonLogger, lockDataDir, SEXTANT_VERSION, ServiceRuntimeModule } from '@sextant/runtime';
import { loadConfig as loadSymbolsConfig, SymbolIndexerModule } from '@sextant/symbol-indexer';
import { loadConfig as loadVectorConfig, VectorSearchModule } from '@sextant/vector-search';
import { loadConfig as loadRegistryConfig, WorkspaceRegistryModule } from '@sextant/workspace-registry';
import { loadConfig } from './config.js';

@Module({})
class EmbeddedModule {}

export interface Embedded {
  /** The MCP endpoint, when serving HTTP. */
  url?: string;
  /** Resolves when a stdio client disconnects (never, for HTTP). */
  done: Promise<void>;
  close(): Promise<void>;
}

/**
 * The environment with the command line's `--workspace DIR` and
 * `--allowed-root DIR` (repeatable) applied: flags win over variables.
 */
export function withFlags(env: NodeJS.ProcessEnv, argv: readonly string[]): NodeJS.ProcessEnv {
  const values = (flag: string) =>
    argv.flatMap((arg, i) =>
      arg === flag && argv[i + 1] ? [argv[i + 1]] : arg.startsWith(`${flag}=`) ? [arg.slice(flag.length + 1)] : [],
    );
  const workspace = values('--workspace').at(-1);
  const roots = values('--allowed-root');
  return {
    ...env,
    ...(workspace ? { SEXTANT_WORKSPACE: workspace } : {}),
    ...(roots.length > 0 ? { SEXTANT_ALLOWED_ROOTS: roots.join(',') } : {}),
  };
}

/**
 * Embedded mode: the gateway and every service module in one Nest
 * application, talking over the in-process bus, with PGlite (or
 * DATABASE_URL) as Postgres. The same controllers, services and migrations
 * as the distributed form; only the adapters differ.
 */
export async function startEmbedded(given: NodeJS.ProcessEnv, stdio: boolean): Promise<Embedded> {
  // One process holds every service: nothing is sharded here (SEXTANT_SHARDS is for the distributed form).
  const env: NodeJS.ProcessEnv = { ...given, SEXTANT_SHARDS: undefined, SEXTANT_SHARD: undefined };
  const config = loadConfig(env);
  const gatewayConfig = loadGatewayConfig(env);
  const projectsConfig = loadProjectsConfig(env);
  const gitCacheConfig = loadGitCacheConfig(env);
  const registryConfig = loadRegistryConfig(env);
  const symbolsConfig = loadSymbolsConfig(env);
  // One process holds every service here, so search keeps its indexes in this process (saved as files) unless told otherwise (ADRs 0021, 0022).
  const vectorConfig = loadVectorConfig({ VECTOR_STORE: env.QDRANT_URL ? 'qdrant' : 'local', ...env });
  const logger = JsonLogger.install('sextant', gatewayConfig.logLevel, stdio ? process.stderr : process.stdout);
  checkReplies(gatewayConfig.checkReplies);

  // One process per data directory (its PGlite files and clone cache); a second one is told who holds it.
  const lock = lockDataDir(config.dataDir);
  // One line per step of the start, so that the first one (the embedded database made: 3 to 10 s) is no silent gap.
  const step = (message: string) => logger.log(message, 'Bootstrap');
  step(`Sextant ${SEXTANT_VERSION} starting (embedded mode${stdio ? ', over stdio' : ''}, data in ${config.dataDir})`);
  let postgres: EmbeddedPostgres | undefined;
  let app: INestApplication | undefined;
  try {
    if (!config.databaseUrl) {
      const dir = join(config.dataDir, 'postgres');
      const started = performance.now();
      const first = !existsSync(join(dir, 'pgdata'));
      step(first ? `creating the embedded database in ${dir} (first start only: some seconds)` : `opening the embedded database in ${dir}`);
      postgres = await startEmbeddedPostgres({ dataDir: dir });
      step(`embedded database ready (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    } else step('using the database of DATABASE_URL');
    const databaseUrl = config.databaseUrl ?? postgres!.url;
    step('starting the services (schemas migrated, grammars and search indexes loaded)');
    const bus = new InProcessBus({ timeoutMs: gatewayConfig.busTimeoutMs });
    app = await NestFactory.create(
      {
        module: EmbeddedModule,
        imports: [
          ServiceRuntimeModule.forRoot(bus, bus, [classifyDatabaseError]),
          GatewayModule.register({ config: gatewayConfig, bus }),
          ProjectsModule.register({
            database: { ...projectsConfig.database, url: databaseUrl },
            auditRetentionDays: projectsConfig.auditRetentionDays,
          }),
          VectorSearchModule.register({ ...vectorConfig, database: { ...vectorConfig.database, url: databaseUrl } }),
          GitCacheModule.register(gitCacheConfig),
          SymbolIndexerModule.register({ ...symbolsConfig, database: { ...symbolsConfig.database, url: databaseUrl } }),
          WorkspaceRegistryModule.register({ ...registryConfig, database: { ...registryConfig.database, url: databaseUrl } }),
        ],
      },
      httpAdapter(gatewayConfig),
      { logger, bodyParser: false },
    );
    // inheritAppConfig: the global exception filter (errors leave services as BusErrors, database faults classified) applies to the bus too.
    app.connectMicroservice({ strategy: bus }, { inheritAppConfig: true });
    await app.startAllMicroservices();

    const started = app;
    const close = async () => {
      // Over HTTP: readiness false, no new calls, those in hand answered first (SEXTANT_SHUTDOWN_GRACE_MS).
      if (!stdio) await drainHttp(started, gatewayConfig.shutdownGraceMs);
      await started.close();
      await postgres?.stop();
      lock.release();
    };
    if (stdio) {
      await app.init();
      step('serving MCP over stdio (this process answers one client on stdin/stdout)');
      return { done: serveStdio(app), close };
    }
    const url = await serveHttp(app, gatewayConfig);
    lock.describe({ url });
    logger.log(`MCP endpoint ready at ${url} (embedded mode, data in ${config.dataDir})`, 'Bootstrap');
    return { url, done: new Promise<void>(() => undefined), close };
  } catch (error) {
    await app?.close().catch(() => undefined);
    await postgres?.stop().catch(() => undefined);
    lock.release();
    throw error;
  }
}
