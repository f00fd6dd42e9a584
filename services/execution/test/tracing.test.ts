import { context, propagation, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plain, startExecutionStack, type ExecutionStack } from './stack';

// A real tracer in this test process: the execution service and the connectors run in it, so every span
// they make lands here, and the trace context has to cross NATS headers to connect them.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(provider);

let stack: ExecutionStack;
const customer = 'cus_tracing';
const accounts: Record<string, { id: string; login: string }> = {};

beforeAll(async () => {
  stack = await startExecutionStack({ label: 'trace' });
  await stack.control('/control/prices', 'POST', { frozen_all: true });
  for (const [name, platform, server] of [
    ['alpha', 'mt5', 'AlphaFX-Live'],
    ['gamma', 'mt4', 'GammaTrade-Real'],
    ['delta', 'mt4', 'GammaTrade-Real'],
  ] as const) {
    const login = String(63_000 + Object.keys(accounts).length);
    accounts[name] = {
      ...(await stack.client.call('CreateAccount', { customer_id: customer, platform, server, login, password: 'pw' })),
      login,
    };
  }
});

afterAll(async () => {
  await stack?.close();
  await provider.shutdown();
});

const byName = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('tracing', () => {
  it('makes execution.fanout the parent of one span per connector, across NATS, with the accounts as its columns', async () => {
    exporter.reset();
    const response = plain(
      await stack.client.call('PlaceOrders', {
        customer_id: customer,
        defaults: { operation: 'buy', volume: 0.1 },
        orders: [
          { account_id: accounts.alpha!.id, fields: { symbol: 'EURUSD' } },
          { account_id: accounts.gamma!.id, fields: { symbol: 'EURUSDm' } },
          { account_id: accounts.gamma!.id, fields: { symbol: 'EURUSD' } },
          { account_id: accounts.delta!.id, fields: { symbol: 'EURUSDm' } },
        ],
      }),
    );
    const spans = exporter.getFinishedSpans();
    const [fanout] = byName(spans, 'execution.fanout');
    expect(fanout).toBeDefined();
    expect(fanout!.attributes).toMatchObject({ 'mtx.customer_id': customer, 'mtx.batch_id': response.batch_id, 'mtx.legs': 4 });
    // A request that went well has no execution-side span of its own (execution.terminal.place was merged into
    // the connector span, which carries the same account, legs, statuses and retcodes).
    expect(byName(spans, 'execution.terminal.place')).toHaveLength(0);
    // The two MT4 accounts' messages of this fan-out share their connector's span; the MT5 account has its own.
    const connectorSpans = byName(spans, 'connector.place');
    expect(connectorSpans).toHaveLength(2);
    for (const span of connectorSpans) {
      expect(span.spanContext().traceId).toBe(fanout!.spanContext().traceId);
      expect(parentOf(span)).toBe(fanout!.spanContext().spanId);
      // No event per account: the accounts are the span's columns.
      expect(span.events).toEqual([]);
    }
    const shared = connectorSpans.find((span) => (span.attributes['mtx.account_id'] as string[]).length === 2)!;
    const alone = connectorSpans.find((span) => span !== shared)!;
    // The account, when it was answered, and each leg's outcome; the legs one account after the other, in the
    // accounts' order, `mtx.legs` saying how many each has. The batch is the span's, once. The platform is the
    // connector's service (connector-mt4 or -mt5, the resource every one of its spans shares), not an attribute.
    const sharedAccounts = shared.attributes['mtx.account_id'] as string[];
    expect([...sharedAccounts].sort()).toEqual([accounts.gamma!.id, accounts.delta!.id].sort());
    const gammaFirst = sharedAccounts[0] === accounts.gamma!.id;
    expect(shared.attributes).toEqual({
      'mtx.batch_id': response.batch_id,
      'mtx.account_id': sharedAccounts,
      'mtx.answered_ms': [expect.any(Number), expect.any(Number)],
      'mtx.legs': gammaFirst ? [2, 1] : [1, 2],
      'mtx.leg_index': gammaFirst ? [1, 2, 3] : [3, 1, 2],
      'mtx.status': gammaFirst ? ['filled', 'rejected', 'filled'] : ['filled', 'filled', 'rejected'],
      'mtx.retcode': gammaFirst ? [10009, 10013, 10009] : [10009, 10009, 10013],
    });
    const answered = shared.attributes['mtx.answered_ms'] as number[];
    // Dated from the span's start, in the order answered, within the span.
    const spanMs = (shared.endTime[0] - shared.startTime[0]) * 1_000 + (shared.endTime[1] - shared.startTime[1]) / 1e6;
    expect(answered[0]!).toBeGreaterThan(0);
    expect(answered[1]!).toBeGreaterThanOrEqual(answered[0]!);
    expect(answered[1]!).toBeLessThanOrEqual(spanMs + 1);
    expect(alone.attributes).toMatchObject({
      'mtx.batch_id': response.batch_id,
      'mtx.account_id': [accounts.alpha!.id],
      'mtx.legs': [1],
      'mtx.leg_index': [0],
      'mtx.status': ['filled'],
    });
    // The trace ends at the connector: the EA inside the terminal has no tracer, so the connector's span covers the
    // terminal's round trips, and broker-sim (standing for the trade server behind the terminal) records no span of it.
    expect(spans.filter((span) => span.name.startsWith('grpc.mtx.brokersim.'))).toHaveLength(0);
  });

  it('marks the span of a leg that ends unknown or unavailable as an error with the reason', async () => {
    await stack.stopConnector('mt4');
    try {
      exporter.reset();
      await stack.client.call('PlaceOrders', {
        customer_id: customer,
        orders: [{ account_id: accounts.gamma!.id, fields: { symbol: 'EURUSDm', operation: 'buy', volume: 0.1 } }],
      });
      const spans = exporter.getFinishedSpans();
      const [fanout] = byName(spans, 'execution.fanout');
      const requests = byName(spans, 'execution.terminal.place');
      expect(requests).toHaveLength(1);
      const [request] = requests;
      expect(request!.status.code).toBe(SpanStatusCode.ERROR);
      expect(request!.status.message).toContain('unavailable');
      expect(request!.attributes).toMatchObject({
        'mtx.account_id': accounts.gamma!.id,
        'mtx.platform': 'mt4',
        'mtx.customer_id': customer,
        'mtx.leg_index': [0],
        'mtx.status': ['unavailable'],
      });
      expect(parentOf(request!)).toBe(fanout!.spanContext().spanId);
      // Made once the outcome is known, but dated from the request: it lies within the fan-out span. The SDK
      // anchors every span's clock on Date.now(), so two spans' times agree only to the millisecond.
      const nanoseconds = (time: [number, number]) => BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]);
      const millisecondNs = 1_000_000n;
      expect(nanoseconds(request!.startTime)).toBeGreaterThanOrEqual(nanoseconds(fanout!.startTime) - millisecondNs);
      expect(nanoseconds(request!.endTime)).toBeLessThanOrEqual(nanoseconds(fanout!.endTime) + millisecondNs);
      expect(nanoseconds(request!.endTime)).toBeGreaterThanOrEqual(nanoseconds(request!.startTime));
    } finally {
      await stack.startConnector('mt4');
    }
  });
});
