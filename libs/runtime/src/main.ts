// A process's entry (`@sextant/runtime/main`). It imports @sextant/telemetry alone (the rest are types): tracing
// starts before the process's own code, or anything that loads `pg`, is imported.
import type { DynamicModule } from '@nestjs/common';
import type { ServiceName } from '@sextant/contracts';
import { startTelemetry, type Telemetry } from '@sextant/telemetry';
import type { CommonSettings } from './config.js';

export interface ProcessMain<Code, Settings extends CommonSettings> {
  /** The process's name: its spans' service is `sextant-<name>`. */
  name: ServiceName | 'gateway';
  /** The environment (`process.env`), read by `settings` and `runMain`. */
  env: NodeJS.ProcessEnv;
  /** The process's own code (`() => import('./index.js')`), imported once tracing has started. */
  load: () => Promise<Code>;
  /** Its settings, read from `env` (a `ConfigError` exits 2). */
  settings: (code: Code, env: NodeJS.ProcessEnv) => Settings;
  /** The database URL of a process that needs Postgres: DATABASE_URL is then required too. */
  database?: (settings: Settings) => string | undefined;
  /** Starts the process, once its settings hold every variable it runs as its own process with. */
  start: (code: Code, settings: Settings, telemetry: Telemetry) => Promise<void>;
}

/**
 * A Sextant process's `main`: starts tracing, imports the runtime and the process's code, then, in `runMain` (a
 * configuration error exits 2, any other start-up failure 1, as one JSON line on stderr), reads its settings,
 * requires NATS_URL (DATABASE_URL with `database`) and SEXTANT_BUS_SECRET, and starts it.
 */
export async function runProcess<Code, Settings extends CommonSettings>(main: ProcessMain<Code, Settings>): Promise<void> {
  const telemetry = startTelemetry({ serviceName: `sextant-${main.name}`, env: main.env });
  const { requireVariables, runMain } = await import('./index.js');
  const code = await main.load();
  runMain(main.env, async () => {
    const settings = main.settings(code, main.env);
    requireVariables(
      {
        NATS_URL: settings.natsUrl,
        ...(main.database && { DATABASE_URL: main.database(settings) }),
        SEXTANT_BUS_SECRET: settings.busSecret,
      },
      ['NATS_URL', ...(main.database ? ['DATABASE_URL'] : []), 'SEXTANT_BUS_SECRET'],
    );
    await main.start(code, settings, telemetry);
  });
}

export interface ServiceMain<Code, Settings extends CommonSettings> extends Omit<ProcessMain<Code, Settings>, 'name' | 'start'> {
  service: ServiceName;
  /** The service's own module, configured from its settings. */
  module: (code: Code, settings: Settings) => DynamicModule;
}

/**
 * A service's whole `main.ts`: `runProcess`, then the service as a Nest microservice on NATS (`startService`:
 * signals, drain, health port). With `database`, errors of the database leave it as bus errors
 * (`classifyDatabaseError`).
 */
export async function runService<Code, Settings extends CommonSettings>(main: ServiceMain<Code, Settings>): Promise<void> {
  await runProcess({
    ...main,
    name: main.service,
    start: async (code, settings) => {
      const { startService } = await import('./bootstrap.js');
      const classifiers = main.database ? [(await import('@sextant/persistence')).classifyDatabaseError] : undefined;
      await startService({ service: main.service, module: main.module(code, settings), settings, classifiers });
    },
  });
}
