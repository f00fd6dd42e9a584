import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startStack, type Stack } from '@mtx/devstack/services';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { eventually, startOtlpReceiver, testDatabasePrefix, type ReceivedSpan } from '@mtx/shared/testing';
import { createCustomer, issueKey } from '../../services/gateway/src/app/customers';
import { createGatewayStore } from '../../services/gateway/src/store/gateway-store';

/**
 * Issue 6 against real processes: every service exports OTLP/JSON to an in-process receiver; the test follows
 * one REST call through gateway → execution → NATS → both connectors → broker-sim, and one provider postback
 * through gateway → payments → wallet, and searches every span and log line for the seeded secrets.
 */
const postbackSecret = `whsec_${crypto.randomBytes(16).toString('hex')}`;
const accountPassword = `pw-${crypto.randomBytes(8).toString('hex')}`;
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let stack: Stack;
let mongo: MongoClient;
let keys: { full: string; read: string };
const logLines: Array<{ service: string; line: string }> = [];
const prefix = testDatabasePrefix('otel');

async function api(method: string, path: string, body?: unknown, key = keys.full) {
  const response = await fetch(`${stack.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, requestId: response.headers.get('x-request-id')!, body: (await response.json()) as any };
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  stack = await startStack({
    mongodbUrl: inject('mongodbUrl'),
    natsUrl: inject('natsUrl'),
    dataDirectory: inject('infrastructureDirectory'),
    env: {
      MONGODB_DATABASE_PREFIX: prefix,
      TERMINAL_SUBJECT_ROOT: `o${crypto.randomBytes(4).toString('hex')}`,
      SEATS_REQUIRED: 'false',
      EXECUTION_DEADLINE_MS: '2000',
      BROKER_SIM_LATENCY_MS: '1',
      PRICE_TICK_MS: '0',
      POSTBACK_SECRET: postbackSecret,
      LOG_LEVEL: 'info',
      OTEL_SDK_DISABLED: 'false',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRIC_EXPORT_INTERVAL: '1000',
    },
    onLine: (service, line) => logLines.push({ service, line }),
  });
  mongo = await connectMongo(inject('mongodbUrl'));
  const store = createGatewayStore(mongo.db(databaseName(prefix, 'gateway')));
  const customer = await createCustomer(store, 'observability');
  keys = {
    full: (await issueKey(store, customer.customer_id, 'full')).key,
    read: (await issueKey(store, customer.customer_id, 'read')).key,
  };
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  for (const service of ['gateway', 'execution', 'broker_sim', 'wallet', 'payments', 'crypto_sandbox', 'billing'])
    await mongo
      ?.db(databaseName(prefix, service))
      .dropDatabase()
      .catch(() => undefined);
  await mongo?.close();
  await receiver?.close();
});

function traceOf(traceId: string): ReceivedSpan[] {
  return receiver.spans.filter((span) => span.traceId === traceId);
}

/**
 * Whether every parent a span names has arrived. A parent ends after its children and each process exports in
 * batches, so a trace is complete only once this holds; waiting on it keeps a busy machine from failing the test.
 */
function parentsArrived(spans: ReceivedSpan[]): boolean {
  const ids = new Set(spans.map((span) => span.spanId));
  return spans.every((span) => !span.parentSpanId || ids.has(span.parentSpanId));
}

/** Every span but the root has its parent inside the same trace: no broken links across processes. */
function expectConnected(spans: ReceivedSpan[]): ReceivedSpan {
  const ids = new Set(spans.map((span) => span.spanId));
  const roots = spans.filter((span) => !span.parentSpanId);
  expect(roots.length, `roots: ${roots.map((span) => `${span.service}/${span.name}`).join(', ')}`).toBe(1);
  for (const span of spans)
    if (span.parentSpanId) expect(ids.has(span.parentSpanId), `${span.service}/${span.name} has a parent outside the trace`).toBe(true);
  return roots[0]!;
}

function ancestors(span: ReceivedSpan, spans: ReceivedSpan[]): ReceivedSpan[] {
  const byId = new Map(spans.map((candidate) => [candidate.spanId, candidate]));
  const chain: ReceivedSpan[] = [];
  let current = byId.get(span.parentSpanId);
  while (current) {
    chain.push(current);
    current = byId.get(current.parentSpanId);
  }
  return chain;
}

function gatewaySpanFor(requestId: string): ReceivedSpan | undefined {
  return receiver.spans.find((span) => span.service === 'gateway' && span.attributes['mtx.request_id'] === requestId);
}

describe('one trace per request', () => {
  let batchTraceId = '';
  let batchRequestId = '';

  it('follows a 3-account mixed batch from the gateway to the connectors in one connected trace', async () => {
    const mt4 = await api('POST', '/v1/accounts', {
      platform: 'mt4',
      server: 'GammaTrade-Real',
      login: '7100001',
      password: accountPassword,
      label: 'trace mt4',
    });
    const mt5a = await api('POST', '/v1/accounts', {
      platform: 'mt5',
      server: 'AlphaFX-Live',
      login: '7100002',
      password: accountPassword,
      label: 'trace mt5 a',
    });
    const mt5b = await api('POST', '/v1/accounts', {
      platform: 'mt5',
      server: 'BetaMarkets-Server',
      login: '7100003',
      password: accountPassword,
      label: 'trace mt5 b',
    });
    for (const created of [mt4, mt5a, mt5b]) expect(created.status, JSON.stringify(created.body)).toBe(201);
    const batch = await api('POST', '/v1/orders', {
      defaults: { operation: 'buy', volume: 0.1 },
      orders: [
        { account_id: mt4.body.id, symbol: `EURUSD${mt4.body.symbol_suffix}` },
        { account_id: mt5a.body.id, symbol: `EURUSD${mt5a.body.symbol_suffix}` },
        { account_id: mt5b.body.id, symbol: `EURUSD${mt5b.body.symbol_suffix}` },
      ],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.summary.filled).toBe(3);
    batchRequestId = batch.requestId;

    const root = await eventually(async () => gatewaySpanFor(batch.requestId), 15_000);
    batchTraceId = root.traceId;
    const spans = await eventually(async () => {
      const current = traceOf(batchTraceId);
      const services = new Set(current.map((span) => span.service));
      const complete = ['gateway', 'execution', 'connector-mt4', 'connector-mt5'].every((service) => services.has(service));
      const legsTraced =
        current
          .filter((span) => span.name === 'connector.place')
          .flatMap((span) => (span.attributes['mtx.account_id'] as string[] | undefined) ?? []).length >= 3;
      const journalled = ['insert batches_in_flight', 'insert batches'].every((name) => current.some((span) => span.name === name));
      return complete && legsTraced && journalled && parentsArrived(current) ? current : undefined;
    }, 15_000);
    expect(expectConnected(spans).service).toBe('gateway');
    // The gateway's request span is named by its route template, as the dashboards' trace searches expect.
    expect(root.name).toBe('POST /v1/orders');
    expect(root.attributes).toMatchObject({ 'http.route': '/v1/orders', 'http.response.status_code': 200 });
    const fanout = spans.find((span) => span.name === 'execution.fanout');
    expect(fanout, 'execution.fanout span').toBeDefined();
    expect(fanout!.attributes['mtx.batch_id']).toBe(batch.body.batch_id);
    const connectorSpans = spans.filter((span) => span.service.startsWith('connector-') && span.name.startsWith('connector.place'));
    expect(new Set(connectorSpans.map((span) => span.service))).toEqual(new Set(['connector-mt4', 'connector-mt5']));
    for (const span of connectorSpans) {
      expect(
        ancestors(span, spans).map((ancestor) => ancestor.spanId),
        `${span.service}/${span.name} descends from execution.fanout`,
      ).toContain(fanout!.spanId);
    }
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    // Each connector span continues execution.fanout across NATS (execution makes no request span of its own
    // for an account that answered: execution.terminal.place is only made for a request that failed).
    for (const span of connectorSpans)
      expect(byId.get(span.parentSpanId)?.name, `${span.service}/${span.name} parent`).toBe('execution.fanout');
    // The trace ends at the connectors: the EA inside a terminal has no tracer, so each connector span covers its
    // terminals' round trips, its accounts as columns (each account, when it was answered, its legs' statuses and
    // retcodes); nothing below it is traced. The two MT5 accounts of the fan-out share their connector's span.
    expect(connectorSpans).toHaveLength(2);
    const tracedAccounts = connectorSpans.flatMap((span) => span.attributes['mtx.account_id'] as string[]);
    expect(tracedAccounts.sort()).toEqual([mt4.body.id, mt5a.body.id, mt5b.body.id].sort());
    expect(spans.filter((span) => span.service === 'broker-sim')).toEqual([]);
    const connectorSpanIds = new Set(connectorSpans.map((span) => span.spanId));
    expect(spans.filter((span) => connectorSpanIds.has(span.parentSpanId))).toEqual([]);
    for (const span of connectorSpans) {
      const accountCount = (span.attributes['mtx.account_id'] as string[]).length;
      expect(span.events, `${span.service}'s span has no event per account`).toEqual([]);
      expect(span.attributes, `${span.service}'s span carries its legs' outcomes`).toMatchObject({
        'mtx.batch_id': batch.body.batch_id,
        'mtx.legs': new Array(accountCount).fill(1),
        'mtx.leg_index': expect.any(Array),
        'mtx.status': new Array(accountCount).fill('filled'),
        'mtx.retcode': new Array(accountCount).fill(10009),
      });
      expect(span.attributes['mtx.answered_ms']).toHaveLength(accountCount);
    }
    // The hop from the gateway to execution is one span, the server's, child of the gateway's request span: a
    // call that was answered makes no client span (only one no server answered does).
    const served = spans.find((span) => span.service === 'execution' && span.name === 'grpc.mtx.execution.v1.ExecutionService/PlaceOrders');
    expect(served?.kind, 'execution server span').toBe(2);
    expect(served!.parentSpanId).toBe(root.spanId);
    expect(byId.get(fanout!.parentSpanId)?.spanId).toBe(served!.spanId);
    const grpcClientSpans = spans.filter((span) => span.kind === 3 && span.name.startsWith('grpc.'));
    expect(grpcClientSpans.map((span) => `${span.service}/${span.name}`)).toEqual([]);
    // The batch's durable record (its write-ahead in flight, then the batch stored with its outcomes) is traced by
    // the store's group commits, a span per caller in the caller's trace (covering its wait for the command it
    // shared); writes derived from it (the in-flight document's removal, the listing) and the rate limiter's slot
    // make none, and no command is traced a second time.
    const names = new Set(spans.map((span) => span.name));
    for (const untraced of ['delete batches_in_flight', 'insert batch_listing', 'insert rate_limit_slots'])
      expect(names.has(untraced), `${untraced} is not traced`).toBe(false);
    const batchInserts = spans.filter((span) => span.service === 'execution' && span.name === 'insert batches_in_flight');
    const outcomeInserts = spans.filter((span) => span.service === 'execution' && span.name === 'insert batches');
    expect([batchInserts.length, outcomeInserts.length]).toEqual([1, 1]);
    expect(batchInserts[0]!.parentSpanId, 'the write-ahead is part of the call, before the fan-out').toBe(served!.spanId);
    expect(outcomeInserts[0]!.parentSpanId, 'the batch and its outcomes are stored inside the fan-out').toBe(fanout!.spanId);
    for (const insert of [...batchInserts, ...outcomeInserts]) {
      expect(insert.kind, `${insert.name} is a client span`).toBe(3);
      expect(insert.attributes).toMatchObject({
        'db.system.name': 'mongodb',
        'db.operation.name': 'insert',
        'db.collection.name': insert.name.slice('insert '.length),
        'db.operation.batch.size': expect.any(Number),
      });
      // A database span names the command, never the documents' values.
      expect(JSON.stringify(insert.attributes)).not.toContain(mt4.body.id);
    }
  });

  it('writes the gateway log lines of that request with the same trace id', () => {
    const lines = logLines
      .filter((entry) => entry.service === 'gateway' && entry.line.includes(batchRequestId))
      .map((entry) => JSON.parse(entry.line) as { trace_id?: string; span_id?: string });
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line.trace_id).toBe(batchTraceId);
      expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);
    }
  });

  it('follows a provider postback to its inbox record in one trace, and on to the wallet credit of the batch that took it', async () => {
    const assets = await api('GET', '/v1/wallet/assets?amount_eur_cents=2000');
    expect(assets.status).toBe(200);
    const pair = assets.body.find((row: { is_stable: boolean }) => row.is_stable) ?? assets.body[0];
    const topup = await api('POST', '/v1/wallet/topup', {
      amount_eur_cents: 2000,
      asset_code: pair.asset_code,
      blockchain_code: pair.blockchain_code,
    });
    expect(topup.status).toBe(201);
    const deposit = await fetch(`${stack.sandboxUrl}/sandbox/deposits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        address: topup.body.deposit_address,
        asset_code: topup.body.asset_code,
        blockchain_code: topup.body.blockchain_code,
        amount: topup.body.deposit_amount,
      }),
    });
    expect(deposit.status).toBeLessThan(300);
    await eventually(async () => (await api('GET', `/v1/wallet/topup/${topup.body.id}`)).body.status === 'paid', 15_000);
    // The sandbox sends a postback per confirmation stage; the one that confirms the payment is recorded in the
    // inbox, and the crediting worker's batch span continues that trace (a batch of one) or links to it.
    const { hookSpans, creditSpans } = await eventually(async () => {
      const recorded = receiver.spans.filter(
        (span) => span.service === 'payments' && span.name === 'payments.postback' && span.attributes['mtx.outcome'] === 'recorded',
      );
      for (const candidate of recorded) {
        const current = traceOf(candidate.traceId);
        const ids = new Set(current.map((span) => span.spanId));
        const batch = receiver.spans.find(
          (span) =>
            span.service === 'payments' &&
            span.name === 'payments.credit_batch' &&
            (span.traceId === candidate.traceId || span.links.some((link) => ids.has(link.spanId))),
        );
        if (!batch || !parentsArrived(current)) continue;
        const creditSpans = traceOf(batch.traceId);
        if (creditSpans.some((span) => span.service === 'wallet' && span.name === 'wallet.credit_many') && parentsArrived(creditSpans))
          return { hookSpans: current, creditSpans };
      }
      return undefined;
    }, 15_000);
    expectConnected(hookSpans);
    const postback = hookSpans.find((span) => span.service === 'payments' && span.name === 'payments.postback')!;
    // The sandbox posts to payments' hook listener, as the ingress routes a provider: the postback's span sits
    // under payments' own HTTP server span for that request, which the listener makes itself (with its route).
    const hookSpan = ancestors(postback, hookSpans).find((ancestor) => ancestor.service === 'payments' && ancestor.kind === 2);
    expect(hookSpan, 'the HTTP server span of the hook request').toBeDefined();
    expect(hookSpan!.attributes).toMatchObject({ 'http.route': '/v1/hooks/payments/:provider', 'http.response.status_code': 200 });
    expectConnected(creditSpans);
    const batch = creditSpans.find((span) => span.name === 'payments.credit_batch')!;
    const credit = creditSpans.find((span) => span.name === 'wallet.credit_many')!;
    expect(credit.attributes['mtx.outcome.applied']).toBeGreaterThanOrEqual(1);
    expect(ancestors(credit, creditSpans).some((ancestor) => ancestor.spanId === batch.spanId)).toBe(true);
  });

  it('serves metrics and readiness detail on the operations port only; the API port says ok or not and nothing more', async () => {
    const operations = stack.services.get('gateway')!.metricsUrl;
    const onApi = await fetch(`${stack.gatewayUrl}/metrics`);
    expect(onApi.status).toBe(404);
    expect(await onApi.text()).not.toMatch(/process_command|host_name|process_pid/);
    expect((await fetch(`${stack.gatewayUrl}/readyz`)).status).toBe(404);
    const health = await fetch(`${stack.gatewayUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const scraped = await fetch(`${operations}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(/mtx_gateway_request_duration/);
    const ready = await fetch(`${operations}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ ready: true, checks: { store: true, wallet: true, payments: true } });
    // Every other service has its own operations listener.
    for (const [name, service] of stack.services) {
      const answer = await fetch(`${service.metricsUrl}/healthz`);
      expect(answer.status, name).toBe(200);
    }
  });

  it('exports metrics over OTLP and serves them as Prometheus text on the gateway', async () => {
    const text = await (await fetch(`${stack.services.get('gateway')!.metricsUrl}/metrics`)).text();
    expect(text).toMatch(/mtx_gateway_request_duration/);
    // The read model's answers by outcome: a second read in a row (no change announced between) is a hit.
    const readModelHits = async () => {
      await api('GET', '/v1/wallet');
      await api('GET', '/v1/wallet');
      const metrics = await (await fetch(`${stack.services.get('gateway')!.metricsUrl}/metrics`)).text();
      const line = metrics
        .split('\n')
        .find(
          (entry) =>
            entry.startsWith('mtx_gateway_read_model_reads') &&
            entry.includes('mtx_outcome="hit"') &&
            entry.includes('mtx_read_model="wallet"'),
        );
      return line ? Number(line.trim().split(' ').at(-1)) : 0;
    };
    expect(await eventually(async () => ((await readModelHits()) > 0 ? true : undefined), 10_000)).toBe(true);
    const expected: Array<[string, string]> = [
      ['gateway', 'mtx.gateway.request.duration'],
      ['execution', 'mtx.execution.fanout.duration'],
      ['execution', 'mtx.execution.leg.outcomes'],
      ['wallet', 'mtx.wallet.movements'],
      ['wallet', 'mtx.wallet.movement.amount'],
      ['payments', 'mtx.payments.postbacks'],
    ];
    await eventually(
      async () =>
        expected.every(([service, name]) => receiver.metrics.some((metric) => metric.service === service && metric.name === name)),
      15_000,
    ).catch(() => {
      const missing = expected.filter(
        ([service, name]) => !receiver.metrics.some((metric) => metric.service === service && metric.name === name),
      );
      throw new Error(`metrics never exported: ${missing.map((pair) => pair.join('/')).join(', ')}`);
    });
  });

  it('never puts an API key, an account password or the postback secret in a span or a log line', async () => {
    // Give the batch span processors time to flush the last spans.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const secrets = [keys.full, keys.read, accountPassword, postbackSecret];
    const everything = [...receiver.rawBodies, ...logLines.map((entry) => entry.line)];
    expect(receiver.rawBodies.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      const leaks = everything.filter((text) => text.includes(secret));
      expect(leaks.length, `secret ${secret.slice(0, 4)}… found in: ${leaks[0]?.slice(0, 300)}`).toBe(0);
    }
  });
});
