import type { Server } from '@nestjs/microservices';
import { context, extractTraceContext, SpanKind, spansExported, trace, tracer, type HeaderCarrier, type Span } from '@sextant/telemetry';

interface HeaderContext {
  getSubject?(): string;
  getHeaders?(): HeaderCarrier | undefined;
  getPattern?(): string;
}

/**
 * Makes every message a server handles run inside a SERVER span that
 * continues the caller's trace (W3C `traceparent` from the message headers),
 * so database spans and logs of the handler join the caller's trace.
 */
export function traceServer(
  server: Pick<Server, 'setOnProcessingStartHook' | 'setOnProcessingEndHook'>,
  service: string,
  subjectPrefix?: string,
): void {
  const strip = subjectPrefix ? `${subjectPrefix}.` : undefined;
  const spans = new WeakMap<object, Span>();
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- Nest returns the hook's value to its caller (`return this.onProcessingStartHook(...)`, its default hook is `done()`); only its .d.ts says void.
  server.setOnProcessingStartHook((_transport, rpcContext, done) => {
    const ctx = rpcContext as HeaderContext;
    const wire = ctx.getSubject?.() ?? ctx.getPattern?.() ?? 'unknown';
    // Spans are named by the contract subject, whatever installation prefix it travelled under.
    const subject = strip && wire.startsWith(strip) ? wire.slice(strip.length) : wire;
    const parent = extractTraceContext(ctx.getHeaders?.());
    // Not exported, the handler runs in the caller's context (same trace id for its logs and answers).
    if (!spansExported()) return context.with(parent, done);
    const span = tracer.startSpan(
      `${subject} process`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'messaging.system': 'nats', 'messaging.destination.name': wire, 'sextant.service': service },
      },
      parent,
    );
    spans.set(rpcContext as object, span);
    return context.with(trace.setSpan(parent, span), done);
  });
  server.setOnProcessingEndHook((_transport, rpcContext) => {
    spans.get(rpcContext as object)?.end();
  });
}
