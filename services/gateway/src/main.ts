// Tracing first: nothing else may be imported above this line.
import { startTelemetry } from '@sextant/telemetry';

const telemetry = startTelemetry({ serviceName: 'sextant-gateway', env: process.env });

const { NestFactory } = await import('@nestjs/core');
const { JsonLogger, requireVariables, runMain, stopOnSignals } = await import('@sextant/runtime');
const { NatsBusClient, PrincipalSeal } = await import('@sextant/messaging');
const { servicePrincipal } = await import('@sextant/contracts');
const { drainHttp, GatewayModule, httpAdapter, loadConfig, serveHttp, serveStdio } = await import('./index.js');

/** The gateway as its own process: MCP in front, NATS behind. `--stdio` serves one local client. */
runMain(process.env, async () => {
  const stdio = process.argv.includes('--stdio');
  const config = loadConfig(process.env);
  requireVariables({ NATS_URL: config.natsUrl, SEXTANT_BUS_SECRET: config.busSecret }, ['NATS_URL', 'SEXTANT_BUS_SECRET']);
  const logger = JsonLogger.install('gateway', config.logLevel, stdio ? process.stderr : process.stdout);
  const bus = new NatsBusClient({
    servers: config.natsUrl!,
    prefix: config.natsPrefix,
    timeoutMs: config.busTimeoutMs,
    heartbeatMs: config.busHeartbeatMs,
    name: 'sextant-gateway',
    auth: config.natsAuth,
    // Each tool call's request carries its caller (ToolDispatcher); the gateway's own checks carry the gateway.
    seal: new PrincipalSeal(Buffer.from(config.busSecret!, 'utf8')),
    identity: servicePrincipal('gateway'),
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
  stopOnSignals(logger, async () => {
    await drainHttp(app, config.shutdownGraceMs);
    await app.close();
    await bus.close();
  });
  const url = await serveHttp(app, config);
  logger.log(`MCP gateway at ${url} (NATS ${config.natsUrl})`, 'Bootstrap');
});
