import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Every Prometheus series a Sextant process exposes, in one registry per
 * process: `GET /metrics` on the gateway's HTTP port and on each service's
 * health port (SEXTANT_HEALTH_PORT) renders it. In the one-process mode the
 * gateway's `/metrics` therefore carries every service's series too.
 *
 * The series are defined here, once, and the code that knows the event
 * updates them; a collector (`observe…`) reads a value only at scrape time.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** MCP tool calls answered by the gateway, by tool and result code (`ok` or the catalog's error code). */
export const toolCalls = new Counter({
  name: 'sextant_tool_calls_total',
  help: 'MCP tool calls answered by the gateway, by tool and result code (ok or an error code of the catalog).',
  labelNames: ['tool', 'code'] as const,
  registers: [metricsRegistry],
});

/** Time from a tool call's arrival at the gateway to its answer. */
export const toolCallSeconds = new Histogram({
  name: 'sextant_tool_call_duration_seconds',
  help: 'Time from an MCP tool call reaching the gateway to its answer, by tool.',
  labelNames: ['tool'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
  registers: [metricsRegistry],
});

/** Requests being handled now: MCP tool calls in the gateway, bus requests in a service. */
export const requestsInFlight = new Gauge({
  name: 'sextant_requests_in_flight',
  help: 'Requests being handled now: MCP tool calls in the gateway (component "gateway"), bus requests in a service (its name).',
  labelNames: ['component'] as const,
  registers: [metricsRegistry],
});

/** Bus requests that failed in transport, by subject and reason. */
export const busFailures = new Counter({
  name: 'sextant_bus_request_failures_total',
  help: 'Bus requests that got no answer, by subject and reason: timeout, no_responders (nothing subscribed) or disconnected.',
  labelNames: ['subject', 'reason'] as const,
  registers: [metricsRegistry],
});

/** Audit records that did not reach Postgres (each is still in the log stream), by reason; see AuditTrail (ADR 0046). */
export const auditRecordsDropped = new Counter({
  name: 'sextant_audit_records_dropped_total',
  help: 'Audit records not stored in Postgres (each is still in the log stream, context Audit), by reason: backlog (the gateway held more than SEXTANT_AUDIT_BACKLOG_BYTES while the projects service could not take them; oldest first), refused (the projects service refused the record; logged with why), shutdown (not stored within SEXTANT_SHUTDOWN_GRACE_MS of a stop).',
  labelNames: ['reason'] as const,
  registers: [metricsRegistry],
});

/** Bytes of audit records the gateway holds for the projects service (bounded by SEXTANT_AUDIT_BACKLOG_BYTES). */
export const auditBacklogBytes = new Gauge({
  name: 'sextant_audit_backlog_bytes',
  help: 'Bytes (as JSON) of audit records the gateway holds, or is handing over, for the projects service; at most SEXTANT_AUDIT_BACKLOG_BYTES.',
  registers: [metricsRegistry],
});

/** Costly work running now under a process-wide budget (clones, greps, parses); see WorkBudget. */
export const workRunning = new Gauge({
  name: 'sextant_work_running',
  help: 'Costly work running now under a process-wide budget: clones (git talking to a remote), greps, parses.',
  labelNames: ['budget'] as const,
  registers: [metricsRegistry],
});

/** Work waiting for a budget's slot, by lane (interactive: a caller waits; background: indexing). */
export const workWaiting = new Gauge({
  name: 'sextant_work_waiting',
  help: 'Work waiting for a slot of a process-wide budget, by lane: interactive (a caller waits) is served before background (indexing).',
  labelNames: ['budget', 'lane'] as const,
  registers: [metricsRegistry],
});

/** Clone-cache events, by cache (`clones`: git-cache's; `checkouts`: the indexing services' persistent ones). */
export const cloneCacheEvents = new Counter({
  name: 'sextant_clone_cache_events_total',
  help: 'Clone-cache events by cache and event: hits (checkout used as it was), clones, refreshes (fetches), evictions, takenUp (a persistent clone of an earlier process).',
  labelNames: ['cache', 'event'] as const,
  registers: [metricsRegistry],
});

/** What a clone cache holds; read at scrape time. */
export interface CloneCacheGauge {
  readonly cache: string;
  stats(): { entries: number; bytes: number };
}

const cloneCaches = new Set<CloneCacheGauge>();
for (const [stat, help] of [
  ['bytes', 'Bytes on disk of the clones a cache holds, by cache.'],
  ['entries', 'Repositories a clone cache holds, by cache.'],
] as const) {
  new Gauge({
    name: `sextant_clone_cache_${stat}`,
    help,
    labelNames: ['cache'] as const,
    registers: [metricsRegistry],
    collect() {
      this.reset();
      // Summed: the indexing services of one process may each hold a cache with the same label.
      for (const cache of cloneCaches) this.inc({ cache: cache.cache }, cache.stats()[stat]);
    },
  });
}

/** Reports a clone cache's size in the `sextant_clone_cache_*` gauges until the returned function is called. */
export function observeCloneCache(cache: CloneCacheGauge): () => void {
  cloneCaches.add(cache);
  return () => cloneCaches.delete(cache);
}

/** Indexing jobs by state, read from the job store at scrape time. */
let jobCounts: (() => Promise<Record<string, number>>) | undefined;
new Gauge({
  name: 'sextant_index_jobs',
  help: 'Indexing jobs by state (queued: the queue depth; running). Exposed by the process that runs workspace-registry.',
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
  async collect() {
    if (!jobCounts) return;
    const counts = await jobCounts().catch(() => undefined);
    this.reset();
    for (const [state, n] of Object.entries(counts ?? {})) this.set({ state }, n);
  },
});

/** Reports the job queue in `sextant_index_jobs` until the returned function is called. */
export function observeIndexJobs(counts: () => Promise<Record<string, number>>): () => void {
  jobCounts = counts;
  return () => {
    if (jobCounts === counts) jobCounts = undefined;
  };
}

/** The registry in Prometheus's text format, and its content type. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
