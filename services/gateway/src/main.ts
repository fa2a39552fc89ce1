// Tracing first: runProcess starts it before it imports the gateway; import nothing else here.
import { runProcess } from '@sextant/runtime/main';

/** How long the gateway waits for its first connection to NATS before it announces its URL (or reads stdin) all the same. */
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
    // The gateway announces itself (HTTP) or reads its client's first message (stdio) once a tool call can reach a
    // service: a call made at once would otherwise be refused as unavailable. NATS unreachable at start: it goes on
    // after FIRST_CONNECTION_WAIT_MS anyway, and says so.
    const nats = async () =>
      (await bus.whenConnected(FIRST_CONNECTION_WAIT_MS))
        ? `NATS ${config.natsUrl}`
        : `NATS ${config.natsUrl}, not connected yet: tool calls are refused until it is`;
    if (stdio) {
      const app = await NestFactory.createApplicationContext(module, { logger });
      // Its client's messages wait in the pipe meanwhile.
      logger.log(`MCP gateway on stdio (${await nats()})`, 'Bootstrap');
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
    // Probes are answered from here on (/readyz says 'not ready' until NATS is connected).
    logger.log(`MCP gateway at ${url} (${await nats()})`, 'Bootstrap');
  },
});
