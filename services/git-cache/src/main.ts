// Tracing first: nothing else may be imported above this line.
import { startTelemetry } from '@sextant/telemetry';

startTelemetry({ serviceName: 'sextant-git-cache', env: process.env });

const { requireVariables, runMain, runService } = await import('@sextant/runtime');
const { loadConfig, GitCacheModule } = await import('./index.js');

runMain(process.env, async () => {
  const config = loadConfig(process.env);
  requireVariables({ NATS_URL: config.natsUrl, SEXTANT_BUS_SECRET: config.busSecret }, ['NATS_URL', 'SEXTANT_BUS_SECRET']);
  await runService({
    service: 'git-cache',
    module: GitCacheModule.register(config),
    settings: config,
  });
});
