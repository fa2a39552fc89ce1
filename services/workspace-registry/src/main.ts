// Tracing first: nothing else may be imported above this line.
import { startTelemetry } from '@sextant/telemetry';

startTelemetry({ serviceName: 'sextant-workspace-registry', env: process.env });

const { requireVariables, runMain, runService } = await import('@sextant/runtime');
const { loadConfig, WorkspaceRegistryModule } = await import('./index.js');

runMain(async () => {
  const config = loadConfig(process.env);
  requireVariables({ NATS_URL: config.natsUrl }, ['NATS_URL']);
  await runService({
    service: 'workspace-registry',
    module: WorkspaceRegistryModule.register(config),
    settings: config,
  });
});
