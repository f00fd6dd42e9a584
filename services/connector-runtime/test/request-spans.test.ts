import { propagation, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { beforeEach, describe, expect, it } from 'vitest';
import { injectTraceHeaders, natsHeaders } from '@mtx/shared/nats';
import { RequestSpans } from '../src/request-spans';

// A real tracer in this process: what the connector's spans hold is read back from what the SDK exports.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(provider);
const callerTracer = provider.getTracer('caller');

/** The headers of a fan-out's messages: the caller's span as their W3C context. */
function fanoutHeaders() {
  const fanout = callerTracer.startSpan('execution.fanout');
  return { fanout, headers: injectTraceHeaders(natsHeaders(), trace.setSpan(ROOT_CONTEXT, fanout)) };
}

describe('connector request spans', () => {
  beforeEach(() => exporter.reset());

  it('shares one span among a fan-out’s accounts, their legs as columns in the order they were answered', () => {
    const spans = new RequestSpans();
    const { fanout, headers } = fanoutHeaders();
    const first = spans.begin('place', headers, 'acc_a');
    const second = spans.begin('place', headers, 'acc_b');
    expect(spans.openSpans).toBe(1);
    for (const request of [first, second]) request.record.setSpanAttribute('mtx.batch_id', 'bat_1');
    second.record.setAttribute('mtx.leg_index', [1, 2]);
    second.record.setAttribute('mtx.status', ['filled', 'rejected']);
    second.record.setAttribute('mtx.retcode', [10009, 10013]);
    second.record.setStatus({ code: SpanStatusCode.ERROR, message: 'rejected: no money' });
    second.end();
    // Not ended while another account holds it.
    expect(exporter.getFinishedSpans()).toEqual([]);
    first.record.setAttribute('mtx.leg_index', [0]);
    first.record.setAttribute('mtx.status', ['filled']);
    first.record.setAttribute('mtx.retcode', [10009]);
    first.end();
    expect(spans.openSpans).toBe(0);

    const [span, ...others] = exporter.getFinishedSpans();
    expect(others).toEqual([]);
    expect(span!.name).toBe('connector.place');
    expect(span!.parentSpanContext?.spanId).toBe(fanout.spanContext().spanId);
    expect(span!.events).toEqual([]);
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'rejected: no money' });
    const answered = span!.attributes['mtx.answered_ms'] as number[];
    expect(span!.attributes).toEqual({
      'mtx.batch_id': 'bat_1',
      'mtx.account_id': ['acc_b', 'acc_a'],
      'mtx.answered_ms': answered,
      'mtx.legs': [2, 1],
      'mtx.leg_index': [1, 2, 0],
      'mtx.status': ['filled', 'rejected', 'filled'],
      'mtx.retcode': [10009, 10013, 10009],
    });
    expect(answered).toHaveLength(2);
    expect(answered[0]!).toBeGreaterThanOrEqual(0);
    expect(answered[1]!).toBeGreaterThanOrEqual(answered[0]!);
  });

  it('gives an account that failed before recording the columns’ empty values, and records its exception', () => {
    const spans = new RequestSpans();
    const { headers } = fanoutHeaders();
    const failed = spans.begin('close', headers, 'acc_failed');
    const closed = spans.begin('close', headers, 'acc_closed');
    const legless = spans.begin('place', headers, 'acc_other_op');
    closed.record.setAttribute('mtx.status', 'closed');
    closed.record.setAttribute('mtx.matched', 2);
    closed.record.setAttribute('mtx.closed', 2);
    closed.end();
    failed.fail(new Error('terminal socket reset'));
    failed.end();
    legless.end();

    const spansByName = new Map(exporter.getFinishedSpans().map((span) => [span.name, span]));
    const close = spansByName.get('connector.close')!;
    expect(close.attributes).toEqual({
      'mtx.account_id': ['acc_closed', 'acc_failed'],
      'mtx.answered_ms': expect.any(Array),
      'mtx.status': ['closed', ''],
      'mtx.matched': [2, 0],
      'mtx.closed': [2, 0],
    });
    expect(close.status.code).toBe(SpanStatusCode.ERROR);
    expect(close.events.map((event) => event.name)).toEqual(['exception']);
    // Another operation of the same fan-out is a span of its own.
    expect(spansByName.get('connector.place')!.attributes).toEqual({
      'mtx.account_id': ['acc_other_op'],
      'mtx.answered_ms': expect.any(Array),
    });
  });

  it('makes a message without a trace context a span of its own', () => {
    const spans = new RequestSpans();
    const one = spans.begin('positions', undefined, 'acc_a');
    const two = spans.begin('positions', undefined, 'acc_b');
    expect(spans.openSpans).toBe(0);
    one.end();
    two.end();
    const finished = exporter.getFinishedSpans();
    expect(finished.map((span) => span.attributes['mtx.account_id'])).toEqual([['acc_a'], ['acc_b']]);
    expect(new Set(finished.map((span) => span.spanContext().traceId)).size).toBe(2);
  });
});
