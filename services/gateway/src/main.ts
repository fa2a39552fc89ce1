// Tracing first: runProcess starts it before it imports the gateway; import nothing else here.
import { runProcess } from '@sextant/runtime/main';

/** How long the gateway waits for its first connection to NATS before it announces its URL all the same. */
const FIRST_CONNECTION_WAIT_MS = 5_000;

/** The gateway as its own process: MCP in front, NATS behind. `--stdio` serves one local client. */
await runProcess({
  name: 'gateway',
  env: process.env,
  load: async () => ({
    NestFactory: (await import('@nestjs/core')).NestFactory,
    ...(await import('@sextant/runtime')),
    ...(await import('@sextant/messaging')),
    servicePrincipal: (await import('@sextant/contracts')).servicePrincipal,
    ...(await import('./index.js')),
  }),
  settings: ({ loadConfig }, env) => loadConfig(env),
  start: async (gateway, config, telemetry) => {
    const { NestFactory, JsonLogger, NatsBusClient, PrincipalSeal, servicePrincipal, stopOnSignals } = gateway;
    const stdio = process.argv.includes('--stdio');
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
    const module = gateway.GatewayModule.register({ config, bus });
    if (stdio) {
      const app = await NestFactory.createApplicationContext(module, { logger });
      await gateway.serveStdio(app);
      await app.close();
      await bus.close();
      await telemetry.shutdown();
      return;
    }
    const app = await NestFactory.create(module, gateway.httpAdapter(config), { logger, bodyParser: false });
    app.flushLogs();
    // SIGTERM/SIGINT: readiness false, no new calls, those in hand answered (up to SEXTANT_SHUTDOWN_GRACE_MS), then the bus drained and spans flushed.
    stopOnSignals(logger, async () => {
      await gateway.drainHttp(app, config.shutdownGraceMs);
      await app.close();
      await bus.close();
    });
    const url = await gateway.serveHttp(app, config);
    // Probes are answered from here on (/readyz says 'not ready' until NATS is connected), but the gateway announces
    // itself once a tool call can reach a service: a call made as soon as the line is printed would otherwise be
    // refused as unavailable. NATS unreachable at start: it announces itself after FIRST_CONNECTION_WAIT_MS anyway.
    const nats = (await bus.whenConnected(FIRST_CONNECTION_WAIT_MS))
      ? `NATS ${config.natsUrl}`
      : `NATS ${config.natsUrl}, not connected yet: tool calls are refused until it is`;
    logger.log(`MCP gateway at ${url} (${nats})`, 'Bootstrap');
  },
});
