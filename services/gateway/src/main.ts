// Tracing first: nothing else may be imported above this line.
import { startTelemetry } from '@sextant/telemetry';

const telemetry = startTelemetry({ serviceName: 'sextant-gateway', env: process.env });

const { NestFactory } = await import('@nestjs/core');
const { JsonLogger, requireVariables, runMain } = await import('@sextant/runtime');
const { NatsBusClient } = await import('@sextant/messaging');
const { GatewayModule, httpAdapter, loadConfig, serveHttp, serveStdio } = await import('./index.js');

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
  // Only the signals that mean "stop" (Nest's default list includes SIGUSR2 and others).
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  app.flushLogs();
  const url = await serveHttp(app, config);
  logger.log(`MCP gateway at ${url} (NATS ${config.natsUrl})`, 'Bootstrap');
});
