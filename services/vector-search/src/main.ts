// Tracing first: nothing else may be imported above this line.
import { startTelemetry } from '@sextant/telemetry';

startTelemetry({ serviceName: 'sextant-vector-search', env: process.env });

const { requireVariables, runMain, runService } = await import('@sextant/runtime');
const { loadConfig, VectorSearchModule } = await import('./index.js');

runMain(async () => {
  const config = loadConfig(process.env);
  requireVariables({ NATS_URL: config.natsUrl }, ['NATS_URL']);
  await runService({
    service: 'vector-search',
    module: VectorSearchModule.register(config),
    settings: config,
  });
});
