export { shutdownTelemetry, spansExported, startTelemetry, type Telemetry, type TelemetryOptions } from './start.js';
export * from './trace.js';
export * from './metrics.js';
