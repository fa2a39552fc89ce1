import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import type { ServiceName } from '@sextant/contracts';
import { natsServer, type ErrorClassifier } from '@sextant/messaging';
import { ConfigError } from './config.js';
import { ServiceRuntimeModule } from './health.js';
import { JsonLogger } from './logger.js';

@Module({})
class ServiceRootModule {}

export interface RunServiceOptions {
  service: ServiceName;
  /** The service's own module, already configured. */
  module: DynamicModule;
  natsUrl: string;
  /** SEXTANT_NATS_PREFIX: subjects become `<prefix>.<subject>`. */
  natsPrefix?: string;
  logLevel: string;
  /** Map infrastructure errors (e.g. database down) to bus errors. */
  classifiers?: readonly ErrorClassifier[];
}

/**
 * Boots one service as its own process: a Nest microservice on NATS in the
 * service's queue group, errors leaving as data, graceful shutdown on SIGTERM.
 */
export async function runService(options: RunServiceOptions): Promise<INestMicroservice> {
  const logger = new JsonLogger(options.service, options.logLevel);
  const server = natsServer({ servers: options.natsUrl, service: options.service, prefix: options.natsPrefix });
  const app = await NestFactory.createMicroservice(
    { module: ServiceRootModule, imports: [ServiceRuntimeModule.forRoot(server, options.classifiers), options.module] },
    { strategy: server, logger },
  );
  // Only the signals that mean "stop" (Nest's default list includes SIGUSR2 and others).
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.listen();
  logger.log(`${options.service} listening on NATS ${options.natsUrl}`, 'Bootstrap');
  return app;
}

/**
 * Runs a `main` and turns a configuration error into one clear line on
 * stderr and exit code 2 (other start-up failures: their message, exit 1).
 */
export function runMain(main: () => Promise<unknown>): void {
  main().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`Start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
