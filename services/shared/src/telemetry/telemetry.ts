import { AlwaysOnSampler, ParentBasedSampler, type Sampler } from '@opentelemetry/sdk-trace-base';
import {
  context,
  metrics,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type ContextManager,
  type Span,
} from '@opentelemetry/api';
import { EventEmitter } from 'node:events';

/**
 * Span and metric helpers, so every service names and records things the same way. Attribute values are
 * ids, platforms, statuses and amounts — never keys, passwords or signatures.
 */
export function tracer(name: string) {
  return trace.getTracer(name);
}

export function meter(name: string) {
  return metrics.getMeter(name);
}

/** Runs `work` inside an active span; a thrown error marks the span as failed with the error's message. */
export async function inSpan<T>(
  tracerName: string,
  spanName: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return trace.getTracer(tracerName).startActiveSpan(spanName, { attributes }, (span) => endingSpan(span, work));
}

/** Runs `work` and ends `span`; a thrown error marks the span as failed with the error's message. */
async function endingSpan<T>(span: Span, work: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await work(span);
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}

/** The active trace context as W3C headers (`traceparent`, `tracestate`), to store with work done later. */
export function traceCarrier(activeContext: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(activeContext, carrier);
  return carrier;
}

const batchLinksMax = 128;

/**
 * Runs `work` in a span for a batch of items that each came with their own trace (stored carriers): one item
 * continues its trace (the span is its child), several start a new trace linked to each of theirs (at most 128
 * links), as OpenTelemetry's messaging conventions do for batch processing.
 */
export async function inBatchSpan<T>(
  tracerName: string,
  spanName: string,
  attributes: Attributes,
  carriers: ReadonlyArray<Record<string, string> | undefined>,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const contexts = carriers.map((carrier) => (carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT));
  const parent = contexts.length === 1 ? contexts[0]! : ROOT_CONTEXT;
  const links =
    contexts.length === 1
      ? []
      : contexts
          .map((linked) => trace.getSpanContext(linked))
          .filter((spanContext) => spanContext !== undefined && trace.isSpanContextValid(spanContext))
          .slice(0, batchLinksMax)
          .map((spanContext) => ({ context: spanContext! }));
  return trace.getTracer(tracerName).startActiveSpan(spanName, { attributes, links }, parent, (span) => endingSpan(span, work));
}

/**
 * A context manager that keeps the active context only while `with` runs its function synchronously, like the
 * browser's stack context manager. The SDK's default (AsyncLocalStorage) follows every await: on Node 20 with an
 * async_hooks hook on every promise the process creates, traced or not (in the connectors and broker-sim, which
 * serve one request per order leg, that hook was about 40 % of what tracing cost them); on Node 24, our runtime,
 * with a context frame per async resource, cheaper but still more than nothing per leg. Those
 * services carry their request's context by hand instead (the connector runtime passes it to every trade
 * server call and log line; broker-sim's handlers answer without awaiting anything traced), so nothing there
 * needs the context to survive an await.
 */
export class SynchronousContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;

  active(): Context {
    return this.current;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    activeContext: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const previous = this.current;
    this.current = activeContext;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = previous;
    }
  }

  bind<T>(boundContext: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const manager = this;
    const original = target as unknown as (...args: unknown[]) => unknown;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(boundContext, () => original.apply(this, args));
    } as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }
}

/** Latency buckets in milliseconds suited to our hot path (sub-millisecond to the 5 s execution deadline). */
export { latencyBucketsMs } from './instruments';

/**
 * The sampler when spans are exported: parent-based, every root kept. A service follows the decision its caller
 * carried in `traceparent`, so a trace is kept or dropped whole from the gateway to the connectors; every root
 * is kept, so every failed and every slow batch is in the traces. Where the span rate costs more than the traces
 * are worth, thin them after the fact in the collector (tail sampling: every error, every slow trace, a share of
 * the rest; docs/operations.md, "Tracing"), or at the root with the standard OTEL_TRACES_SAMPLER variables,
 * which are the SDK's to read (undefined here).
 */
export function samplerWithExporter(env: NodeJS.ProcessEnv = process.env): Sampler | undefined {
  return env.OTEL_TRACES_SAMPLER ? undefined : new ParentBasedSampler({ root: new AlwaysOnSampler() });
}

/**
 * The batch span processor's settings (the OTEL_BSP_* variables win). A full queue DROPS spans, and only one
 * export is in flight at a time, so the queue is four times the SDK's 2,048: deep enough to ride out a slow
 * collector at thousands of spans per second. With JSON (the default encoding) an export carries up to 2,048
 * spans: serialising costs the same per span at any size (3.3–3.7 µs, test/bench/tracing-costs.ts), while each export
 * request costs its HTTP round on top, so fewer, larger requests cost less; and the processor exports at once,
 * inside the span.end() that fills a batch, so at a few thousand spans a second a larger batch leaves exports to
 * the timer, between requests, rather than in the middle of one. Exports stay at 256 spans for protobuf: its
 * encoder builds a list of pending writes for the whole request, which for 2,048 spans outlives the young
 * generation (5.5–6 µs a span at 256, 7 µs at 2,048). A second of delay keeps traces prompt in the viewer and spans
 * short-lived in memory.
 */
export function batchSpanProcessorSettings(env: NodeJS.ProcessEnv = process.env): {
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMillis: number;
} {
  const fromEnv = (name: string, fallback: number) => {
    const value = Number(env[name]);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  return {
    maxQueueSize: fromEnv('OTEL_BSP_MAX_QUEUE_SIZE', 8_192),
    maxExportBatchSize: fromEnv(
      'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
      (env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/json') === 'http/json' ? 2_048 : 256,
    ),
    scheduledDelayMillis: fromEnv('OTEL_BSP_SCHEDULE_DELAY', 1_000),
  };
}

/**
 * `db.query.text` as the command's shape: its fields two levels deep with every value a `?`, and an array as
 * its length. The instrumentation's own serializer sends every value of the command through a JSON replacer
 * (28 µs for a 20-leg batch document against 2 µs here); the shape is what an SRE reads anyway (which fields a
 * filter uses, how many items a write carries), and it holds no data.
 */
export function statementShape(command: Record<string, unknown>): string {
  const shape = (value: unknown, depth: number): unknown => {
    if (Array.isArray(value)) return `[${value.length}]`;
    if (value === null || typeof value !== 'object' || depth === 0 || value.constructor !== Object) return '?';
    const out: Record<string, unknown> = {};
    let fields = 0;
    for (const key in value) {
      if (++fields > 16) {
        out['…'] = '?';
        break;
      }
      out[key] = shape((value as Record<string, unknown>)[key], depth - 1);
    }
    return out;
  };
  return JSON.stringify(shape(command, 2));
}

/**
 * Takes `server` out of the HTTP auto-instrumentation; its routes make their server spans with inHttpServerSpan.
 * The instrumentation wraps http.Server.prototype.emit and, for every request, computes the span's attributes
 * and binds the request and response emitters to its context, whether or not the span is sampled, and binds
 * them even for an ignored request. On a bare Fastify route that took the CPU per request from about 127 µs
 * without it to 225 µs with it, and 170 µs with the request ignored (sampler off, Node 24, 30,000 requests). An
 * instance `emit` of the plain EventEmitter's comes before the patched prototype's.
 */
export function withoutHttpAutoInstrumentation(server: { emit: unknown }): void {
  server.emit = EventEmitter.prototype.emit;
}

/** Probe and scrape paths: no server span for them, as an SRE's traces would drown in health checks. */
export const untracedHttpPaths: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Makes the server span of every request `server` takes, in place of the HTTP auto-instrumentation (whose cost
 * per request withoutHttpAutoInstrumentation describes): the caller's `traceparent` continued, the request's and
 * the response's events emitted in the span's context, so that a Fastify app's hooks, body parser, handlers and
 * log lines run in it, and the span ended when the response finishes (or the connection closes first) with the
 * status answered; 5xx marks it failed. The app names the route (`updateName`, `http.route`) once it knows it.
 * One binding per emitter instead of the instrumentation's one per listener, and no attributes computed that
 * nobody reads.
 */
export function traceHttpServer(server: EventEmitter, tracerName: string, untracedPaths: ReadonlySet<string> = untracedHttpPaths): void {
  const tracer = trace.getTracer(tracerName);
  const emit = EventEmitter.prototype.emit;
  server.emit = function (this: EventEmitter, event: string | symbol, ...args: unknown[]): boolean {
    const request = args[0] as { method?: string; url?: string; headers: Record<string, string | string[] | undefined> } & EventEmitter;
    if (event !== 'request' || untracedPaths.has((request.url ?? '').split('?')[0]!)) return emit.call(this, event, ...args);
    const response = args[1] as { statusCode: number; writableFinished: boolean } & EventEmitter;
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const method = request.method ?? 'GET';
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
    const requestContext = trace.setSpan(parent, span);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      span.setAttribute('http.response.status_code', response.statusCode);
      if (!response.writableFinished)
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'the connection closed before the answer was sent' });
      else if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: `answered ${response.statusCode}` });
      span.end();
    };
    response.once('finish', end);
    response.once('close', end);
    emitInContext(request, requestContext);
    emitInContext(response, requestContext);
    return context.with(requestContext, () => emit.call(this, event, ...args));
  };
}

/** Every event `emitter` emits from now on runs its listeners in `boundContext`. */
function emitInContext(emitter: EventEmitter, boundContext: Context): void {
  const emit = emitter.emit;
  emitter.emit = function (this: EventEmitter, ...args: Parameters<EventEmitter['emit']>): boolean {
    return context.with(boundContext, () => emit.apply(this, args));
  };
}

/**
 * The server span of one HTTP request on a listener taken out of the auto-instrumentation: the caller's trace
 * continues from its `traceparent` header, `work` runs in the span, and the span records the status answered
 * (`statusOf` maps a thrown error to it; 5xx marks the span failed).
 */
export function inHttpServerSpan<T>(
  tracerName: string,
  request: { method: string; headers: Record<string, string | string[] | undefined> },
  route: string,
  attributes: Attributes,
  statusOf: (error: unknown) => number,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, request.headers);
  return trace
    .getTracer(tracerName)
    .startActiveSpan(
      `${request.method} ${route}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'http.route': route, ...attributes } },
      parent,
      async (span) => {
        try {
          const result = await work(span);
          span.setAttribute('http.response.status_code', 200);
          return result;
        } catch (error) {
          const status = statusOf(error);
          span.setAttribute('http.response.status_code', status);
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
          throw error;
        } finally {
          span.end();
        }
      },
    );
}
