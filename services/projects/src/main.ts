// Tracing first: nothing that loads `pg` may be imported above this line.
import { startTelemetry } from '@sextant/telemetry';

startTelemetry({ serviceName: 'sextant-projects', env: process.env });

const { requireVariables, runMain, runService } = await import('@sextant/runtime');
const { classifyDatabaseError } = await import('@sextant/persistence');
const { loadConfig, ProjectsModule } = await import('./index.js');

runMain(process.env, async () => {
  const config = loadConfig(process.env);
  requireVariables({ NATS_URL: config.natsUrl, DATABASE_URL: config.database.url, SEXTANT_BUS_SECRET: config.busSecret }, [
    'NATS_URL',
    'DATABASE_URL',
    'SEXTANT_BUS_SECRET',
  ]);
  await runService({
    service: 'projects',
    module: ProjectsModule.register({
      database: { ...config.database, url: config.database.url! },
      auditRetentionDays: config.auditRetentionDays,
    }),
    settings: config,
    classifiers: [classifyDatabaseError],
  });
});
