// The command line first: --help, --version and a mistyped flag answer without starting anything, tracing included.
// cli.js loads node built-ins only, so tracing still starts before anything it instruments is imported.
import { answerWithoutServing, readCommandLine } from './cli.js';

const line = readCommandLine(process.argv.slice(2));
if (!answerWithoutServing(line)) await serve(line.command === 'serve' && line.stdio);

/**
 * `sextant` (HTTP on SEXTANT_HOST:SEXTANT_PORT) or `sextant --stdio`: the whole
 * product in one process; `--workspace DIR` and `--allowed-root DIR`
 * (repeatable) stand for SEXTANT_WORKSPACE and SEXTANT_ALLOWED_ROOTS. Stops
 * cleanly on SIGINT/SIGTERM or, with --stdio, when the client closes stdin.
 */
async function serve(stdio: boolean): Promise<void> {
  const { startTelemetry } = await import('@sextant/telemetry');
  startTelemetry({ serviceName: 'sextant', env: process.env });

  const { Logger } = await import('@nestjs/common');
  const { runMain, stopOnSignals } = await import('@sextant/runtime');
  const { startEmbedded, withFlags } = await import('./embedded.js');

  runMain(process.env, async () => {
    const embedded = await startEmbedded(withFlags(process.env, process.argv.slice(2)), stdio);
    const shutdown = stopOnSignals(new Logger('Bootstrap'), () => embedded.close());
    await embedded.done;
    shutdown.stop('the client closed stdin');
  });
}
