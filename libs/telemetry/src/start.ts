import { NodeSDK } from '@opentelemetry/sdk-node';
import { NoopSpanProcessor } from '@opentelemetry/sdk-trace';

export interface TelemetryOptions {
  /** `service.name` of every span this process emits. */
  serviceName: string;
  /** Environment holding the standard `OTEL_*` variables (normally `process.env`). */
  env: NodeJS.ProcessEnv;
}

export interface Telemetry {
  /** True when spans leave the process (an OTLP endpoint or exporter is configured). */
  readonly exporting: boolean;
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry. Call it first in `main.ts`, before the application is
 * imported, so that every span (including those made at start-up) has a provider.
 *
 * Export follows the standard `OTEL_*` variables. With none set, spans are
 * still created (so every call has a trace id to report) but not exported:
 * the SDK's own default would be to send OTLP to localhost:4318 and log a
 * failure per batch.
 */
export function startTelemetry({ serviceName, env }: TelemetryOptions): Telemetry {
  const exporting = env.OTEL_TRACES_EXPORTER
    ? env.OTEL_TRACES_EXPORTER !== 'none'
    : Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? serviceName,
    // undefined: let the SDK build processors from OTEL_TRACES_EXPORTER / OTEL_EXPORTER_OTLP_*.
    spanProcessors: exporting ? undefined : [new NoopSpanProcessor()],
    // Metrics and logs are exported only when asked for explicitly.
    metricReaders: env.OTEL_METRICS_EXPORTER ? undefined : [],
    logRecordProcessors: env.OTEL_LOGS_EXPORTER ? undefined : [],
  });
  sdk.start();
  started = {
    exporting,
    // Flushes the spans still buffered (the batch processor holds them up to OTEL_BSP_SCHEDULE_DELAY) and stops.
    shutdown: () => sdk.shutdown().catch(() => undefined),
  };
  return started;
}

let started: Telemetry | undefined;

/**
 * Whether spans leave this process (`startTelemetry` found an exporter). When they do not, a span that is never made
 * the active one (a bus request's `send`, a database statement's) is never seen by anyone, and one that is made active
 * only to be the parent of those (a bus message's `process`) can give way to the caller's context it continues, which
 * carries the same trace id: those are skipped, a few microseconds each per call.
 */
export function spansExported(): boolean {
  return started?.exporting ?? false;
}

/** Flushes and stops the telemetry `startTelemetry` started in this process (none: nothing to do); the last step of a shutdown. */
export function shutdownTelemetry(): Promise<void> {
  return started?.shutdown() ?? Promise.resolve();
}
