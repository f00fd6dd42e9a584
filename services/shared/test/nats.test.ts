import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../src/telemetry/logger';
import {
  connectNats,
  extractTraceContext,
  injectTraceHeaders,
  natsHeaders,
  sharedTraceHeaders,
  type NatsConnection,
} from '../src/messaging/nats';

let connection: NatsConnection;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new BasicTracerProvider());
  connection = await connectNats(inject('natsUrl'), 'shared-test', createLogger('test', { level: 'silent' }));
});

afterAll(async () => {
  await connection?.close();
});

describe('NATS trace context', () => {
  it('carries the W3C trace context from a requester to a responder over a real server', async () => {
    const subject = `test.trace.${Date.now()}`;
    const subscription = connection.subscribe(subject, {
      callback: (_error, message) => {
        const extracted = extractTraceContext(message.headers);
        const spanContext = trace.getSpanContext(extracted);
        message.respond(new TextEncoder().encode(JSON.stringify({ traceId: spanContext?.traceId, spanId: spanContext?.spanId })));
      },
    });
    const tracer = trace.getTracer('test');
    const span = tracer.startSpan('execution.fanout');
    const reply = await context.with(trace.setSpan(context.active(), span), () =>
      connection.request(subject, new Uint8Array(), { timeout: 2_000, headers: injectTraceHeaders(natsHeaders()) }),
    );
    span.end();
    const received = JSON.parse(new TextDecoder().decode(reply.data)) as { traceId: string; spanId: string };
    expect(received.traceId).toBe(span.spanContext().traceId);
    expect(received.spanId).toBe(span.spanContext().spanId);
    subscription.unsubscribe();
  });

  it('writes a fan-out’s trace context once and carries it on each of its messages; none without a span', async () => {
    const subject = `test.shared.${Date.now()}`;
    const seen: Array<string | undefined> = [];
    const subscription = connection.subscribe(subject, {
      callback: (_error, message) => {
        seen.push(trace.getSpanContext(extractTraceContext(message.headers))?.spanId);
        message.respond(new Uint8Array());
      },
    });
    expect(sharedTraceHeaders(context.active())).toBeUndefined();
    const span = trace.getTracer('test').startSpan('execution.fanout');
    const other = trace.getTracer('test').startSpan('execution.fanout');
    await context.with(trace.setSpan(context.active(), span), async () => {
      const headers = sharedTraceHeaders();
      expect(headers).toBeDefined();
      expect(sharedTraceHeaders()).toBe(headers);
      await Promise.all(
        [1, 2, 3].map(() => connection.request(subject, new Uint8Array(), { timeout: 2_000, headers: sharedTraceHeaders()! })),
      );
    });
    const otherHeaders = sharedTraceHeaders(trace.setSpan(context.active(), other));
    await connection.request(subject, new Uint8Array(), { timeout: 2_000, headers: otherHeaders! });
    span.end();
    other.end();
    const spanId = span.spanContext().spanId;
    expect(seen).toEqual([spanId, spanId, spanId, other.spanContext().spanId]);
    subscription.unsubscribe();
  });

  it('reports no responders at once instead of waiting for the timeout', async () => {
    const started = Date.now();
    const error = await connection
      .request(`test.nobody.${Date.now()}`, new Uint8Array(), { timeout: 5_000 })
      .catch((caught: unknown) => caught);
    expect((error as { code?: string }).code).toBe('503');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
