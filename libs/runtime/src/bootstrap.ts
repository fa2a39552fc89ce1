import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice, LoggerService } from '@nestjs/common';
import { servicePrincipal, type ServiceName } from '@sextant/contracts';
import { checkReplies, NatsBusClient, natsServer, PrincipalSeal, type ErrorClassifier } from '@sextant/messaging';
import { shutdownTelemetry } from '@sextant/telemetry';
import { ConfigError, StartupError, type CommonSettings } from './config.js';
import { ServiceRuntimeModule } from './health.js';
import { startHealthPort } from './health-port.js';
import { boundHeapGrowth } from './heap.js';
import { applyWorkLimits } from './work-limits.js';
import { JsonLogger } from './logger.js';

/** The longest a service waits, once listening, for its subscriptions to be confirmed and its own client to connect. */
const READY_WAIT_MS = 5_000;

@Module({})
class ServiceRootModule {}

export interface StartServiceOptions {
  service: ServiceName;
  /** The service's own module, already configured. */
  module: DynamicModule;
  /** NATS, logging and shutdown settings (`NATS_URL` is required: see `requireVariables`). */
  settings: CommonSettings;
  /** Map infrastructure errors (e.g. database down) to bus errors. */
  classifiers?: readonly ErrorClassifier[];
}

/**
 * Boots one service as its own process (`runService` of `@sextant/runtime/main` calls it): a Nest microservice on NATS in the
 * service's queue group, errors leaving as data. On SIGTERM or SIGINT it
 * first stops taking requests and answers those it holds (up to
 * SEXTANT_SHUTDOWN_GRACE_MS), and only then closes the module (database
 * pools, caches): Nest's own order would close them under the requests still
 * running (`stopOnSignals`).
 */
export async function startService(options: StartServiceOptions): Promise<INestMicroservice> {
  const { settings } = options;
  const logger = JsonLogger.install(options.service, settings.logLevel);
  checkReplies(settings.checkReplies);
  const seal = new PrincipalSeal(Buffer.from(settings.busSecret!, 'utf8'));
  const server = natsServer({
    servers: settings.natsUrl!,
    service: options.service,
    prefix: settings.natsPrefix,
    gracePeriodMs: settings.shutdownGraceMs,
    shard: serviceShard(options.service, settings),
    auth: settings.natsAuth,
    seal,
  });
  // What the service asks other services with (projects and git-cache ask the registry); its own connection.
  const client = new NatsBusClient({
    servers: settings.natsUrl!,
    prefix: settings.natsPrefix,
    timeoutMs: settings.busTimeoutMs,
    heartbeatMs: settings.busHeartbeatMs,
    name: `sextant-${options.service}-client`,
    auth: settings.natsAuth,
    seal,
    // Requests made for a caller carry the caller; work of the service's own (indexing stages) carries the service.
    identity: servicePrincipal(options.service),
  });
  const app = await NestFactory.createMicroservice(
    { module: ServiceRootModule, imports: [ServiceRuntimeModule.forRoot(server, client, options.classifiers), options.module] },
    { strategy: server, logger },
  );
  const shutdown = stopOnSignals(logger, async () => {
    await server.close();
    await app.close();
    await client.close();
  });
  if (settings.health.port !== undefined) {
    const { host, port } = settings.health;
    await startHealthPort({
      host,
      port,
      notReady: async (timeoutMs) => (shutdown.stopping ? 'shutting down' : server.unreachable(timeoutMs)),
    });
    logger.log(`health on http://${host}:${port} (/livez, /readyz)`, 'Bootstrap');
  }
  logger.log(`connecting to NATS at ${settings.natsUrl} (waiting for it if it is not up yet)`, 'Bootstrap');
  await app.listen();
  // Said once a request can be answered: NATS has this service's subscriptions (a round trip after them), and the
  // client for its own requests to other services is connected (it connects in parallel). Both at most READY_WAIT_MS.
  const [unconfirmed, clientUp] = await Promise.all([server.unreachable(READY_WAIT_MS), client.whenConnected(READY_WAIT_MS)]);
  if (unconfirmed) logger.warn(`NATS has not confirmed the subscriptions yet (${unconfirmed})`, 'Bootstrap');
  if (!clientUp) logger.warn('the client for requests to other services is not connected to NATS yet', 'Bootstrap');
  logger.log(`${options.service} listening on NATS ${settings.natsUrl}`, 'Bootstrap');
  return app;
}

export interface Shutdown {
  /** True from the first stop signal on. */
  readonly stopping: boolean;
  /** Stops as a signal would (e.g. the stdio client closed stdin); `reason` is logged. */
  stop(reason: string): void;
}

/**
 * A process's stop, once, on SIGTERM or SIGINT (or `stop()`; later signals change nothing): runs `close`
 * (the process's own order: stop taking requests, answer those in hand,
 * close what they used), flushes telemetry last so the spans of those
 * requests leave too, then exits 0, or 1 when `close` failed (logged).
 */
export function stopOnSignals(logger: LoggerService, close: () => Promise<void>): Shutdown {
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${reason}: stopping`, 'Bootstrap');
    const started = performance.now();
    void (async () => {
      let code = 0;
      try {
        await close();
        logger.log(`stopped (${((performance.now() - started) / 1000).toFixed(1)} s)`, 'Bootstrap');
      } catch (error) {
        logger.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`, 'Bootstrap');
        code = 1;
      }
      await shutdownTelemetry();
      process.exit(code);
    })();
  };
  // Kept listening after the first signal: a second one (npm forwards the Ctrl-C its child got from the terminal too)
  // would otherwise kill the process half-way through its stop, with the embedded database open.
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return {
    get stopping() {
      return stopping;
    },
    stop,
  };
}

/** This process's shard of `service` (undefined when the service runs unsharded); a missing or out-of-range SEXTANT_SHARD stops the start. */
export function serviceShard(
  service: ServiceName,
  settings: Pick<CommonSettings, 'shards' | 'shard'>,
): { index: number; count: number } | undefined {
  const count = settings.shards[service] ?? 1;
  if (count === 1) return undefined;
  if (settings.shard === undefined) {
    throw new ConfigError({
      SEXTANT_SHARD: `is required: SEXTANT_SHARDS runs ${service} as ${count} shards (give 0 to ${count - 1}, or auto)`,
    });
  }
  if (settings.shard >= count) {
    throw new ConfigError({
      SEXTANT_SHARD: `is ${settings.shard}, but SEXTANT_SHARDS runs ${service} as ${count} shards (0 to ${count - 1})`,
    });
  }
  return { index: settings.shard, count };
}

/**
 * Runs a `main` after bounding heap growth (`environment`: SEXTANT_HEAP_GROWTH_PERCENT) and sizing the work budgets
 * (SEXTANT_MAX_CLONES, SEXTANT_MAX_GREPS, SEXTANT_MAX_PARSES); a start-up failure becomes one JSON log line on stderr
 * (`level: "fatal"`) and an exit code: 2 for a configuration error, 1
 * otherwise. A `StartupError` (something the operator can fix) is its
 * message alone; anything else also carries its stack, as a field.
 */
export function runMain(environment: NodeJS.ProcessEnv, main: () => Promise<unknown>): void {
  Promise.resolve()
    .then(() => {
      boundHeapGrowth(environment);
      applyWorkLimits(environment);
      return main();
    })
    .catch((error: unknown) => {
      const expected = error instanceof StartupError;
      const entry: Record<string, unknown> = {
        time: new Date().toISOString(),
        level: 'fatal',
        context: 'Bootstrap',
        msg: expected ? error.message : `Start-up failed: ${error instanceof Error ? error.message : String(error)}`,
      };
      if (!expected && error instanceof Error && error.stack) entry.stack = error.stack;
      process.stderr.write(`${JSON.stringify(entry)}\n`);
      process.exit(error instanceof ConfigError ? 2 : 1);
    });
}
