import { createServer, type Server } from 'node:http';

export interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  kind: number;
  /** Unix nanoseconds, as strings (OTLP JSON). */
  start: string;
  end: string;
}

/**
 * Receives OTLP/HTTP JSON trace exports (`POST /v1/traces`), the wire format
 * of `@opentelemetry/exporter-trace-otlp-http`, and keeps the spans.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server: Server | undefined;
  url = '';

  /** Listens on `host` (loopback; a container reaches the host on its bridge's gateway address). */
  async start(host = '127.0.0.1'): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        if (req.url === '/v1/traces') this.collect(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, host, resolve));
    this.url = `http://${host}:${(this.server.address() as { port: number }).port}/v1/traces`;
    return this.url;
  }

  /** The environment that makes a Sextant process export its spans here; they leave in batches every `batchDelayMs`. */
  exportEnv(batchDelayMs: number): Record<string, string> {
    return {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: this.url,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: String(batchDelayMs),
    };
  }

  async waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs = 15_000): Promise<ReceivedSpan[]> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (predicate(this.spans)) return this.spans;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`spans not received in ${timeoutMs} ms; got ${JSON.stringify(this.spans.map((s) => `${s.service}:${s.name}`))}`);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private collect(payload: any): void {
    for (const resourceSpans of payload.resourceSpans ?? []) {
      const service = resourceSpans.resource?.attributes?.find((a: any) => a.key === 'service.name')?.value?.stringValue ?? '';
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            name: span.name,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            kind: span.kind,
            start: String(span.startTimeUnixNano),
            end: String(span.endTimeUnixNano),
          });
        }
      }
    }
  }
}
