// Tracing first: nothing else may be imported above this line.
import { startTelemetry } from '@sextant/telemetry';

const telemetry = startTelemetry({ serviceName: 'sextant-gateway', env: process.env });

const { NestFactory } = await import('@nestjs/core');
const { JsonLogger, requireVariables, runMain } = await import('@sextant/runtime');
const { NatsBusClient } = await import('@sextant/messaging');
const { drainHttp, GatewayModule, httpAdapter, loadConfig, serveHttp, serveStdio } = await import('./index.js');

/** The gateway as its own process: MCP in front, NATS behind. `--stdio` serves one local client. */
runMain(process.env, async () => {
  const stdio = process.argv.includes('--stdio');
  const config = loadConfig(process.env);
  requireVariables({ NATS_URL: config.natsUrl }, ['NATS_URL']);
  const logger = JsonLogger.install('gateway', config.logLevel, stdio ? process.stderr : process.stdout);
  const bus = new NatsBusClient({
    servers: config.natsUrl!,
    prefix: config.natsPrefix,
    timeoutMs: config.busTimeoutMs,
    heartbeatMs: config.busHeartbeatMs,
    name: 'sextant-gateway',
    auth: config.natsAuth,
  });
  const module = GatewayModule.register({ config, bus });
  if (stdio) {
    const app = await NestFactory.createApplicationContext(module, { logger });
    await serveStdio(app);
    await app.close();
    await bus.close();
    await telemetry.shutdown();
    return;
  }
  const app = await NestFactory.create(module, httpAdapter(config), { logger, bodyParser: false });
  app.flushLogs();
  // SIGTERM/SIGINT: readiness false, no new calls, those in hand answered (up to SEXTANT_SHUTDOWN_GRACE_MS), then the bus drained and spans flushed.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal}: stopping`, 'Bootstrap');
    void (async () => {
      let code = 0;
      try {
        await drainHttp(app, config.shutdownGraceMs);
        await app.close();
        await bus.close();
      } catch (error) {
        logger.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`, 'Bootstrap');
        code = 1;
      }
      await telemetry.shutdown();
      process.exit(code);
    })();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  const url = await serveHttp(app, config);
  logger.log(`MCP gateway at ${url} (NATS ${config.natsUrl})`, 'Bootstrap');
});
