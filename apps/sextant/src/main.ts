// Tracing first: nothing else may be imported above this line.
import { startTelemetry } from '@sextant/telemetry';

startTelemetry({ serviceName: 'sextant', env: process.env });

const { Logger } = await import('@nestjs/common');
const { runMain, stopOnSignals } = await import('@sextant/runtime');
const { startEmbedded, withFlags } = await import('./embedded.js');

/**
 * `sextant` (HTTP on SEXTANT_HOST:SEXTANT_PORT) or `sextant --stdio`: the whole
 * product in one process; `--workspace DIR` and `--allowed-root DIR`
 * (repeatable) stand for SEXTANT_WORKSPACE and SEXTANT_ALLOWED_ROOTS. Stops
 * cleanly on SIGINT/SIGTERM or, with --stdio, when the client closes stdin.
 */
runMain(process.env, async () => {
  const argv = process.argv.slice(2);
  const embedded = await startEmbedded(withFlags(process.env, argv), argv.includes('--stdio'));
  const shutdown = stopOnSignals(new Logger('Bootstrap'), () => embedded.close());
  await embedded.done;
  shutdown.stop('the client closed stdin');
});
