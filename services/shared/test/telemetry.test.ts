import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { context, createContextKey, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  batchSpanProcessorSettings,
  inHttpServerSpan,
  samplerWithExporter,
  statementShape,
  SynchronousContextManager,
  traceHttpServer,
  withoutHttpAutoInstrumentation,
} from '../src/telemetry/telemetry';

describe('statementShape (db.query.text of database spans)', () => {
  it('keeps the fields of a command two levels deep and replaces every value, so no data reaches a span', () => {
    const shape = statementShape({ find: 'accounts', filter: { _id: 'acc_secret', customer_id: { $in: ['cus_a', 'cus_b'] } }, limit: 1 });
    expect(JSON.parse(shape)).toEqual({ find: '?', filter: { _id: '?', customer_id: '?' }, limit: '?' });
    expect(shape).not.toContain('acc_secret');
    expect(shape).not.toContain('cus_a');
  });

  it('writes an array as its length and a non-plain value (date, id, buffer) as a placeholder', () => {
    const document = {
      _id: 'bat_1',
      created_at: new Date(),
      payload: Buffer.from('password'),
      legs: [{ password: 'pw-1' }, { password: 'pw-2' }],
    };
    expect(JSON.parse(statementShape(document))).toEqual({ _id: '?', created_at: '?', payload: '?', legs: '[2]' });
  });

  it('bounds the number of fields it writes per level', () => {
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`field${index}`, index]));
    const shape = JSON.parse(statementShape(wide)) as Record<string, unknown>;
    expect(Object.keys(shape)).toHaveLength(17);
    expect(shape['…']).toBe('?');
  });
});

describe('batchSpanProcessorSettings', () => {
  it('defaults to a deep queue, and large exports for JSON', () => {
    expect(batchSpanProcessorSettings({})).toEqual({ maxQueueSize: 8_192, maxExportBatchSize: 2_048, scheduledDelayMillis: 1_000 });
    // Protobuf's encoder costs more per span in large requests: its exports stay small.
    expect(batchSpanProcessorSettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toMatchObject({ maxExportBatchSize: 256 });
  });

  it('honours the OTEL_BSP_* variables and ignores values that are not positive integers', () => {
    expect(
      batchSpanProcessorSettings({
        OTEL_BSP_MAX_QUEUE_SIZE: '4096',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '512',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      }),
    ).toEqual({
      maxQueueSize: 4_096,
      maxExportBatchSize: 512,
      scheduledDelayMillis: 100,
    });
    expect(batchSpanProcessorSettings({ OTEL_BSP_MAX_QUEUE_SIZE: 'lots', OTEL_BSP_SCHEDULE_DELAY: '-5' })).toEqual({
      maxQueueSize: 8_192,
      maxExportBatchSize: 2_048,
      scheduledDelayMillis: 1_000,
    });
  });
});

describe('samplerWithExporter', () => {
  it("keeps every root and follows the caller's decision, so a trace is kept or dropped whole", () => {
    const seen = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ sampler: samplerWithExporter({}), spanProcessors: [new SimpleSpanProcessor(seen)] });
    const tracer = provider.getTracer('test');
    const root = tracer.startSpan('POST /v1/orders');
    const child = tracer.startSpan('execution.fanout', {}, trace.setSpan(ROOT_CONTEXT, root));
    // A caller that dropped its trace (traceparent flags 00): the callee records nothing of it either.
    const unsampledCaller = trace.wrapSpanContext({
      traceId: 'a'.repeat(32),
      spanId: 'b'.repeat(16),
      traceFlags: TraceFlags.NONE,
      isRemote: true,
    });
    const dropped = tracer.startSpan('connector.place', {}, trace.setSpan(ROOT_CONTEXT, unsampledCaller));
    for (const span of [dropped, child, root]) span.end();
    expect(seen.getFinishedSpans().map((span) => span.name)).toEqual(['execution.fanout', 'POST /v1/orders']);
    expect(dropped.spanContext().traceId).toBe('a'.repeat(32));
  });

  it('leaves the choice to the SDK when OTEL_TRACES_SAMPLER is set', () => {
    expect(samplerWithExporter({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' })).toBeUndefined();
  });
});

describe('SynchronousContextManager (the per-leg services: connectors and broker-sim)', () => {
  const key = createContextKey('request');
  const requestContext = ROOT_CONTEXT.setValue(key, 'req-1');

  it('makes a context active while `with` runs, nested, and restores the previous one after, even on a throw', () => {
    const manager = new SynchronousContextManager();
    expect(manager.active()).toBe(ROOT_CONTEXT);
    const inner = requestContext.setValue(key, 'req-2');
    const seen = manager.with(requestContext, () => [
      manager.active().getValue(key),
      manager.with(inner, () => manager.active().getValue(key)),
      manager.active().getValue(key),
    ]);
    expect(seen).toEqual(['req-1', 'req-2', 'req-1']);
    expect(manager.active()).toBe(ROOT_CONTEXT);
    expect(() =>
      manager.with(requestContext, () => {
        throw new Error('handler failed');
      }),
    ).toThrow('handler failed');
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it('passes `this` and the arguments through, and binds a function to a context', () => {
    const manager = new SynchronousContextManager();
    const target = {
      factor: 3,
      times(value: number) {
        return [this.factor * value, manager.active().getValue(key)];
      },
    };
    expect(manager.with(requestContext, target.times, target, 2)).toEqual([6, 'req-1']);
    const bound = manager.bind(requestContext, (value: number) => [value, manager.active().getValue(key)]);
    expect(bound(5)).toEqual([5, 'req-1']);
    expect(manager.active()).toBe(ROOT_CONTEXT);
    expect(manager.bind(requestContext, 'not a function')).toBe('not a function');
  });

  it('forgets the context at the first await, which is why those services carry it by hand', async () => {
    const manager = new SynchronousContextManager();
    const afterAwait = await manager.with(requestContext, async () => {
      expect(manager.active().getValue(key)).toBe('req-1');
      await Promise.resolve();
      return manager.active().getValue(key);
    });
    expect(afterAwait).toBeUndefined();
  });
});

describe('inHttpServerSpan (a listener that makes its own server spans)', () => {
  const traced = async (work: () => Promise<unknown>, headers: Record<string, string> = {}) => {
    const seen = new InMemorySpanExporter();
    trace.disable();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(seen)] }));
    propagation.disable();
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    try {
      await inHttpServerSpan('test', { method: 'POST', headers }, '/v1/hooks/:name', { 'mtx.kind': 'probe' }, statusOf, work).catch(
        () => undefined,
      );
    } finally {
      trace.disable();
      propagation.disable();
    }
    return seen.getFinishedSpans();
  };
  const statusOf = (error: unknown) => (error as { status?: number }).status ?? 503;

  it("continues the caller's trace as a server span and records the status answered", async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const [span, ...others] = await traced(async () => 'ok', { traceparent: `00-${traceId}-b7ad6b7169203331-01` });
    expect(others).toEqual([]);
    expect(span!.name).toBe('POST /v1/hooks/:name');
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.spanContext().traceId).toBe(traceId);
    expect(span!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(span!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/hooks/:name',
      'mtx.kind': 'probe',
      'http.response.status_code': 200,
    });
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('marks a server error failed and a refusal not, each with its status', async () => {
    const [refused] = await traced(async () => Promise.reject(Object.assign(new Error('bad signature'), { status: 401 })));
    expect(refused!.attributes['http.response.status_code']).toBe(401);
    expect(refused!.status.code).toBe(SpanStatusCode.UNSET);
    expect(refused!.parentSpanContext).toBeUndefined();
    const [failed] = await traced(async () => Promise.reject(new Error('store down')));
    expect(failed!.attributes['http.response.status_code']).toBe(503);
    expect(failed!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'store down' });
  });
});

describe('withoutHttpAutoInstrumentation', () => {
  it("gives a server the plain EventEmitter's emit, ahead of whatever wraps http.Server.prototype.emit", async () => {
    const wrapped = http.Server.prototype.emit;
    const seenByWrapper: string[] = [];
    http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
      seenByWrapper.push(event);
      return (wrapped as (...parameters: unknown[]) => boolean).apply(this, [event, ...args]);
    } as typeof wrapped;
    try {
      const plain = http.createServer();
      const untraced = http.createServer();
      withoutHttpAutoInstrumentation(untraced);
      plain.emit('probe');
      untraced.emit('probe');
      expect(seenByWrapper).toEqual(['probe']);
      let heard = 0;
      untraced.on('probe', () => (heard += 1));
      untraced.emit('probe');
      expect(heard).toBe(1);
    } finally {
      http.Server.prototype.emit = wrapped;
    }
  });
});

describe('traceHttpServer (server spans without the HTTP auto-instrumentation)', () => {
  it("continues the caller's trace in the request's and the response's events and ends with the status answered", async () => {
    const seen = new InMemorySpanExporter();
    const contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(seen)] }));
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const finishedIn: Array<string | undefined> = [];
    // The body is read from the request's own events, as Fastify's body parser reads it: those events come from
    // the socket, outside the context the request started in, unless the server binds them.
    const server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', async () => {
        const atEnd = trace.getActiveSpan();
        await new Promise((resolve) => setTimeout(resolve, 5));
        const afterWait = trace.getActiveSpan();
        response.on('finish', () => finishedIn.push(trace.getActiveSpan()?.spanContext().spanId));
        response.statusCode = body === 'fail' ? 503 : 200;
        response.end(JSON.stringify({ atEnd: atEnd?.spanContext().spanId, afterWait: afterWait?.spanContext().spanId }));
      });
    });
    traceHttpServer(server, 'test');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    try {
      expect(server.emit).not.toBe(http.Server.prototype.emit);
      const answered = (await (
        await fetch(`${base}/v1/orders`, { method: 'POST', body: 'ok', headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } })
      ).json()) as { atEnd?: string; afterWait?: string };
      const failed = await fetch(`${base}/v1/orders`, { method: 'POST', body: 'fail' });
      expect(failed.status).toBe(503);
      await fetch(`${base}/healthz`, { method: 'POST', body: 'ok' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const spans = seen.getFinishedSpans();
      expect(spans).toHaveLength(2);
      const [served, refused] = spans;
      expect(served!.kind).toBe(SpanKind.SERVER);
      expect(served!.name).toBe('POST');
      expect(served!.spanContext().traceId).toBe(traceId);
      expect(served!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
      expect(served!.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200 });
      expect(served!.status.code).toBe(SpanStatusCode.UNSET);
      // The handler saw the span in the body's 'end' event, after an await, and in the response's 'finish'.
      expect(answered).toEqual({ atEnd: served!.spanContext().spanId, afterWait: served!.spanContext().spanId });
      expect(finishedIn[0]).toBe(served!.spanContext().spanId);
      expect(refused!.parentSpanContext).toBeUndefined();
      expect(refused!.attributes['http.response.status_code']).toBe(503);
      expect(refused!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'answered 503' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
      trace.disable();
      propagation.disable();
      context.disable();
    }
  });
});
