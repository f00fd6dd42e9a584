import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startServiceProcess, startStack, type ServiceProcess, type Stack } from '@mtx/devstack/services';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import { createLogger } from '@mtx/shared/logger';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { createCustomer, issueKey } from '../../services/gateway/src/app/customers';
import { createGatewayStore } from '../../services/gateway/src/store/gateway-store';

/**
 * Issue 8, horizontal scale in the code: two gateways (each on its own execution replica), two billing
 * replicas and two connector-mt5 replicas as real processes on one NATS and one store. Rate limits and
 * idempotency hold across the gateways, and the connectors of one platform share the load.
 * (Each charge taken once by two billing replicas is proven with a moved clock in
 * services/billing/test/replicas.test.ts, which real-time processes cannot do.)
 */
const prefix = testDatabasePrefix('replicas');
const subjectRoot = `r${crypto.randomBytes(4).toString('hex')}`;
let stack: Stack;
const extra: ServiceProcess[] = [];
let gateways: string[] = [];
let mongo: MongoClient;
let nats: NatsConnection;
let key: string;
let otherKey: string;
const accounts: Array<{ id: string; symbol_suffix: string }> = [];

async function call(gateway: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return callAs(key, gateway, method, path, body, headers);
}

async function callAs(bearer: string, gateway: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

async function brokerRequests(): Promise<number> {
  const response = await fetch(`${stack.env.BROKER_SIM_HTTP_URL}/control/stats`);
  return ((await response.json()) as { trade_requests_received: number }).trade_requests_received;
}

beforeAll(async () => {
  const env = {
    MONGODB_DATABASE_PREFIX: prefix,
    TERMINAL_SUBJECT_ROOT: subjectRoot,
    SEATS_REQUIRED: 'false',
    EXECUTION_DEADLINE_MS: '3000',
    BROKER_SIM_LATENCY_MS: '1',
    PRICE_TICK_MS: '0',
    LOG_LEVEL: 'warn',
    OTEL_SDK_DISABLED: 'true',
  };
  stack = await startStack({
    mongodbUrl: inject('mongodbUrl'),
    natsUrl: inject('natsUrl'),
    dataDirectory: inject('infrastructureDirectory'),
    env,
    services: ['wallet', 'billing', 'execution', 'broker-sim', 'connector-mt4', 'connector-mt5', 'gateway'],
    connectorReplicas: { mt5: 2 },
    // The connectors' own metrics tell which replica took which requests (no span is exported: no endpoint).
    serviceEnv: { 'connector-mt5': { OTEL_SDK_DISABLED: 'false', PROMETHEUS_METRICS: 'true' } },
  });
  const execution2 = await startServiceProcess({ name: 'execution-2', folder: 'execution', env: stack.env });
  extra.push(execution2);
  extra.push(await startServiceProcess({ name: 'billing-2', folder: 'billing', env: stack.env }));
  extra.push(
    await startServiceProcess({
      name: 'connector-mt5-2',
      folder: 'connector-mt5',
      env: {
        ...stack.env,
        TERMINAL_LISTEN_PORT: String(stack.terminalPorts.mt5[1]),
        OTEL_SDK_DISABLED: 'false',
        PROMETHEUS_METRICS: 'true',
      },
    }),
  );
  const gateway2 = await startServiceProcess({
    name: 'gateway-2',
    folder: 'gateway',
    env: { ...stack.env, EXECUTION_GRPC_URL: execution2.address },
  });
  extra.push(gateway2);
  gateways = [stack.gatewayUrl, gateway2.address];
  mongo = await connectMongo(inject('mongodbUrl'));
  const store = createGatewayStore(mongo.db(databaseName(prefix, 'gateway')));
  const customer = await createCustomer(store, 'replicas');
  key = (await issueKey(store, customer.customer_id, 'full')).key;
  const other = await createCustomer(store, 'replicas other');
  otherKey = (await issueKey(store, other.customer_id, 'full')).key;
  nats = await connectNats(inject('natsUrl'), 'replicas-test', createLogger('test', { level: 'silent' }));
  // Consecutive logins: two of the four terminals dial each connector replica first (login mod 2).
  const loginBase = 7_300_000 + 4 * crypto.randomInt(25_000);
  for (const [index, server] of ['AlphaFX-Live', 'BetaMarkets-Server', 'AlphaFX-Live', 'BetaMarkets-Server'].entries()) {
    const created = await callAs(otherKey, gateways[index % 2]!, 'POST', '/v1/accounts', {
      platform: 'mt5',
      server,
      login: String(loginBase + index),
      password: 'replica-pw',
      label: `replica ${index}`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    accounts.push(created.body);
  }
}, 240_000);

afterAll(async () => {
  for (const service of extra.reverse()) await service.stop();
  await stack?.stop();
  await nats?.close();
  for (const service of ['gateway', 'execution', 'broker_sim', 'wallet', 'billing'])
    await mongo
      ?.db(databaseName(prefix, service))
      .dropDatabase()
      .catch(() => undefined);
  await mongo?.close();
});

const batchBody = () => ({
  defaults: { operation: 'buy', volume: 0.1 },
  orders: accounts.map((account) => ({ account_id: account.id, symbol: `EURUSD${account.symbol_suffix}` })),
});

describe('two of everything', () => {
  it('holds the 60/min execution limit across both gateways', async () => {
    // The limit slides: any 60 s, wherever the minute turns, so no waiting for a fresh window.
    // An invalid body is refused after the limiter has counted it, so the test sends nothing to a broker.
    const responses = await Promise.all(
      Array.from({ length: 70 }, (_, index) => call(gateways[index % 2]!, 'POST', '/v1/orders', { orders: [] })),
    );
    const limited = responses.filter((response) => response.status === 429);
    const counted = responses.filter((response) => response.status !== 429);
    // The limit, whichever gateway each request reached (a claim that lands just after a minute turns is not
    // admitted yet still counts, which can only admit fewer).
    expect(counted.length).toBeLessThanOrEqual(60);
    expect(counted.length).toBeGreaterThanOrEqual(58);
    expect(limited.length).toBe(70 - counted.length);
    for (const response of counted) expect(response.status).toBe(400);
    // The first admitted request leaves the minute in about 60 s: that is when the next one passes.
    for (const response of limited) expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(55);
  });

  it('sends a keyed batch once when duplicates arrive at both gateways at once', async () => {
    key = otherKey; // the first test used up this minute's limit of the first customer
    const before = await brokerRequests();
    const idempotencyKey = `replica-${crypto.randomUUID()}`;
    const body = batchBody();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        call(gateways[index % 2]!, 'POST', '/v1/orders', body, { 'idempotency-key': idempotencyKey }),
      ),
    );
    const succeeded = responses.filter((response) => response.status === 200);
    expect(succeeded.length).toBeGreaterThanOrEqual(1);
    for (const response of responses) expect([200, 409]).toContain(response.status);
    expect(new Set(succeeded.map((response) => response.body.batch_id)).size).toBe(1);
    const replay = await call(gateways[1]!, 'POST', '/v1/orders', body, { 'idempotency-key': idempotencyKey });
    expect(replay.status).toBe(200);
    expect(replay.body.idempotent_replay).toBe(true);
    expect((await brokerRequests()) - before).toBe(accounts.length);
  });

  it("spreads one platform's requests over both connector replicas", async () => {
    for (let round = 0; round < 12; round++) {
      const response = await call(gateways[round % 2]!, 'POST', '/v1/orders', batchBody());
      expect(response.status).toBe(200);
    }
    // Each replica takes the requests of the accounts whose terminals attached to it, and the terminals spread
    // over the replicas by login (the accounts' logins alternate in parity).
    const handled: number[] = [];
    for (const replica of [stack.services.get('connector-mt5')!, extra.find((service) => service.name === 'connector-mt5-2')!]) {
      const metrics = await (await fetch(`${replica.metricsUrl}/metrics`)).text();
      const line = metrics
        .split('\n')
        .find((entry) => entry.startsWith('mtx_connector_requests_total') && entry.includes('mtx_op="place"'));
      handled.push(Number(line?.split(' ').at(-1) ?? 0));
    }
    expect(handled.length).toBe(2);
    for (const count of handled) expect(count).toBeGreaterThan(0);
  });
});
