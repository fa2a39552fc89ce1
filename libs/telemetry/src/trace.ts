import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';

export { context, SpanKind, SpanStatusCode, trace, type Context, type Span };

/** The tracer every Sextant package uses; spans are named `<component> <operation>`. */
export const tracer = trace.getTracer('sextant');

/** Anything with `get`/`set` by header name: NATS `MsgHdrs`, a `Map`. */
export interface HeaderCarrier {
  get(name: string): string | undefined | null;
  set(name: string, value: string): void;
}

const setter: TextMapSetter<HeaderCarrier> = { set: (carrier, key, value) => carrier.set(key, value) };
const getter: TextMapGetter<HeaderCarrier | undefined> = {
  keys: () => ['traceparent', 'tracestate'],
  get: (carrier, key) => carrier?.get(key) || undefined,
};

/** Writes W3C `traceparent`/`tracestate` of the active context into the headers. */
export function injectTraceContext(headers: HeaderCarrier, ctx: Context = context.active()): void {
  propagation.inject(ctx, headers, setter);
}

/** The context carried by incoming headers (the active one if they carry none). */
export function extractTraceContext(headers: HeaderCarrier | undefined): Context {
  return propagation.extract(context.active(), headers, getter);
}

const NO_TRACE = '00000000000000000000000000000000';

/** Trace id of the active span, or 32 zeros when tracing is disabled. */
export function currentTraceId(): string {
  return trace.getActiveSpan()?.spanContext().traceId ?? NO_TRACE;
}

/** Marks a span failed with a short, client-safe message. */
export function markSpanError(span: Span | undefined, code: string, message: string): void {
  if (!span) return;
  span.setAttribute('sextant.error.code', code);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
