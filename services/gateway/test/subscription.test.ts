import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createLogger } from '@mtx/shared/logger';
import { databaseName } from '@mtx/shared/mongo';
import { createPaymentsApp, type PaymentsApp } from '../../payments/src/app';
import { loadPaymentsConfig } from '../../payments/src/config';
import { eventually } from '@mtx/shared/testing';
import { customerIdFor, startBillingHarness, type BillingHarness } from '../../billing/test/helpers';
import { startGatewayHarness, type GatewayHarness } from './helpers';

/**
 * GET/PATCH /v1/subscription and /v1/servers through the real gateway app, backed by the real billing,
 * wallet and payments services (in-process, over gRPC sockets, on the real store).
 */
let backends: BillingHarness;
let payments: PaymentsApp | undefined;
let gateway: GatewayHarness;
let customer: string;

beforeAll(async () => {
  backends = await startBillingHarness({ execution: { setAccountBillingStatus: async () => undefined } });
  const paymentsConfig = loadPaymentsConfig({
    HOOKS_PORT: '0',
    HOOKS_HOST: '127.0.0.1',
    MONGODB_URL: inject('mongodbUrl'),
    MONGODB_DATABASE_PREFIX: backends.prefix,
    LOG_LEVEL: 'silent',
    CRYPTO_SANDBOX_URL: 'http://127.0.0.1:1',
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: '0',
  });
  const paymentsApp = await createPaymentsApp({
    config: paymentsConfig,
    database: backends.mongo.db(databaseName(backends.prefix, 'payments')),
    clock: { now: () => new Date() },
    logger: createLogger('payments', { level: 'silent' }),
    wallet: backends.wallet.client,
    nats: backends.nats,
    backgroundWork: false,
  });
  await paymentsApp.start();
  payments = paymentsApp;
  gateway = await startGatewayHarness({
    env: {
      WALLET_GRPC_URL: backends.wallet.address,
      BILLING_GRPC_URL: backends.billing.address,
      PAYMENTS_GRPC_URL: `127.0.0.1:${paymentsApp.port}`,
      GRPC_DEADLINE_MS: '10000',
    },
  });
  customer = gateway.customer.customer_id;
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await payments?.stop(1_000);
  await backends?.mongo
    .db(databaseName(backends.prefix, 'payments'))
    .dropDatabase()
    .catch(() => undefined);
  await backends?.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const read = () => bearer(gateway.customer.read_key);
const full = () => bearer(gateway.customer.full_key);

async function get(url: string, headers = read()) {
  return gateway.app.inject({ method: 'GET', url, headers });
}

describe('GET /v1/subscription', () => {
  it('answers every field for a customer with nothing, with a read-only key', async () => {
    const response = await get('/v1/subscription');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      plan: 'none',
      status: 'inactive',
      paid_access: false,
      billing_provider: 'balance',
      cancel_at_period_end: false,
      seats: { total: 0, used: 0, bonus: 0 },
      seat_details: [],
      current_period_end: null,
      grace_ends_at: null,
      wallet: { balance_eur_cents: 0, next_charge_eur_cents: null, next_charge_at: null, covers_next_charge: true },
    });
    expect(response.headers['ratelimit-limit']).toBeDefined();
  });

  it('shows seats with their own dates, an empty slot with account_id null, and the wallet summary', async () => {
    await backends.credit(customer, 5000);
    backends.clock.set('2027-03-10T09:00:00Z');
    const first = await backends.billing.client.call('AssignSeat', {
      customer_id: customer,
      account_id: 'acc_one',
      label: 'One',
      bonus: false,
    });
    backends.clock.set('2027-03-20T15:00:00Z');
    const second = await backends.billing.client.call('AssignSeat', {
      customer_id: customer,
      account_id: 'acc_two',
      label: 'Two',
      bonus: false,
    });
    await backends.billing.client.call('ReleaseSeat', { customer_id: customer, account_id: 'acc_two' });
    backends.clock.set('2027-03-25T00:00:00Z');
    const body = (await get('/v1/subscription')).json();
    expect(body).toEqual({
      plan: 'per_account',
      status: 'active',
      paid_access: true,
      billing_provider: 'balance',
      cancel_at_period_end: false,
      seats: { total: 2, used: 1, bonus: 0 },
      seat_details: [
        { id: first.id, paid_until: '2027-04-10T09:00:00.000Z', status: 'active', account_id: 'acc_one', bonus: false },
        { id: second.id, paid_until: '2027-04-20T15:00:00.000Z', status: 'active', account_id: null, bonus: false },
      ],
      current_period_end: '2027-04-10T09:00:00.000Z',
      grace_ends_at: null,
      wallet: {
        balance_eur_cents: 2600,
        next_charge_eur_cents: 1200,
        next_charge_at: '2027-04-10T09:00:00.000Z',
        covers_next_charge: true,
      },
    });
  });

  it('gives GET /v1/wallet the upcoming charges: the empty slot is not owed, and shortfall/covers are right when short', async () => {
    // The third account takes the paid empty slot (nothing charged); the fourth and fifth buy seats. Then
    // 4 × 12 = 48 EUR is owed in the next 30 days against 26 − 24 = 2 EUR.
    const third = await backends.billing.client.call('AssignSeat', {
      customer_id: customer,
      account_id: 'acc_three',
      label: 'Three',
      bonus: false,
    });
    expect(await backends.balance(customer)).toBe(2600);
    await backends.billing.client.call('AssignSeat', { customer_id: customer, account_id: 'acc_four', label: 'Four', bonus: false });
    await backends.billing.client.call('AssignSeat', { customer_id: customer, account_id: 'acc_five', label: 'Five', bonus: false });
    // A day later the 30-day window reaches the renewals of the seats bought today.
    backends.clock.set('2027-03-26T00:00:00Z');
    const wallet = (await get('/v1/wallet')).json();
    expect(wallet.balance_eur_cents).toBe(200);
    expect(wallet.upcoming).toEqual([
      { when: '2027-04-10T09:00:00.000Z', amount_eur_cents: 1200, kind: 'seat', label: 'One' },
      { when: third.paid_until, amount_eur_cents: 1200, kind: 'seat', label: 'Three' },
      { when: '2027-04-25T00:00:00.000Z', amount_eur_cents: 1200, kind: 'seat', label: 'Five' },
      { when: '2027-04-25T00:00:00.000Z', amount_eur_cents: 1200, kind: 'seat', label: 'Four' },
    ]);
    expect(third.paid_until).toBe('2027-04-20T15:00:00.000Z');
    expect(wallet.upcoming_total_eur_cents).toBe(4800);
    expect(wallet.shortfall_eur_cents).toBe(4600);
    expect(wallet.covers_upcoming).toBe(false);
    const subscription = (await get('/v1/subscription')).json();
    expect(subscription.wallet).toEqual({
      balance_eur_cents: 200,
      next_charge_eur_cents: 1200,
      next_charge_at: '2027-04-10T09:00:00.000Z',
      covers_next_charge: false,
    });
  });
});

describe('PATCH /v1/subscription', () => {
  it('needs the full key (403 with a read-only key, nothing changed)', async () => {
    const response = await gateway.app.inject({
      method: 'PATCH',
      url: '/v1/subscription',
      headers: read(),
      payload: { cancel_at_period_end: true },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('forbidden');
    expect((await get('/v1/subscription')).json().cancel_at_period_end).toBe(false);
  });

  it('rejects bad bodies with 400 and changes nothing', async () => {
    for (const [payload, code] of [
      [{ cancel_at_period_end: 'yes' }, 'invalid_request'],
      [{ cancel_at_period_end: 1 }, 'invalid_request'],
      [{}, 'invalid_request'],
      [{ cancel_at_period_end: true, extra: 1 }, 'unknown_field'],
    ] as const) {
      const response = await gateway.app.inject({ method: 'PATCH', url: '/v1/subscription', headers: full(), payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error.code).toBe(code);
    }
    expect((await get('/v1/subscription')).json().cancel_at_period_end).toBe(false);
  });

  it('sets and clears cancel_at_period_end; while set, nothing is owed', async () => {
    const cancelled = await gateway.app.inject({
      method: 'PATCH',
      url: '/v1/subscription',
      headers: full(),
      payload: { cancel_at_period_end: true },
    });
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json()).toMatchObject({
      cancel_at_period_end: true,
      status: 'active',
      wallet: { next_charge_eur_cents: null, covers_next_charge: true },
    });
    expect((await get('/v1/wallet')).json()).toMatchObject({
      upcoming: [],
      upcoming_total_eur_cents: 0,
      shortfall_eur_cents: 0,
      covers_upcoming: true,
    });
    const resumed = await gateway.app.inject({
      method: 'PATCH',
      url: '/v1/subscription',
      headers: full(),
      payload: { cancel_at_period_end: false },
    });
    expect(resumed.json().cancel_at_period_end).toBe(false);
    expect((await get('/v1/wallet')).json().upcoming_total_eur_cents).toBe(4800);
  });
});

describe('GET /v1/subscription read model', () => {
  it("answers repeated reads from memory and follows billing's and the wallet's announcements and its own writes", async () => {
    // A window no test outlasts, so every change seen below arrived by announcement or by this gateway's own write.
    const cached = await startGatewayHarness({
      env: {
        WALLET_GRPC_URL: backends.wallet.address,
        BILLING_GRPC_URL: backends.billing.address,
        PAYMENTS_GRPC_URL: `127.0.0.1:${payments?.port}`,
        GRPC_DEADLINE_MS: '10000',
        SUBSCRIPTION_READ_FRESH_MS: '60000',
      },
    });
    try {
      const owner = cached.customer.customer_id;
      const readCached = async () => {
        const response = await cached.app.inject({ method: 'GET', url: '/v1/subscription', headers: bearer(cached.customer.read_key) });
        expect(response.statusCode).toBe(200);
        return response.json();
      };
      const model = cached.connected.dependencies.readModels.subscription;
      const first = await readCached();
      expect(first).toMatchObject({ status: 'inactive', seats: { total: 0 }, wallet: { balance_eur_cents: 0 } });
      const loadsBefore = model.stats.loads;
      for (let index = 0; index < 5; index += 1) expect(await readCached()).toEqual(first);
      expect(model.stats.loads).toBe(loadsBefore);
      // Served from the text kept with the answer: the same bytes and the JSON content type every time.
      const texts = new Set<string>();
      for (let index = 0; index < 3; index += 1) {
        const response = await cached.app.inject({ method: 'GET', url: '/v1/subscription', headers: bearer(cached.customer.read_key) });
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        texts.add(response.body);
      }
      expect(texts.size).toBe(1);
      expect(JSON.parse([...texts][0]!)).toEqual(first);

      // A credit behind the gateway: the wallet announces the movement.
      await backends.credit(owner, 3000);
      await eventually(async () => (await readCached()).wallet.balance_eur_cents === 3000, 5_000);
      // A seat bought behind the gateway: billing announces the customer's new revision.
      const seat = await backends.billing.client.call('AssignSeat', {
        customer_id: owner,
        account_id: 'acc_cached',
        label: 'Cached',
        bonus: false,
      });
      const withSeat = await eventually(async () => {
        const body = await readCached();
        return body.seats.total === 1 ? body : undefined;
      }, 5_000);
      expect(withSeat).toMatchObject({
        status: 'active',
        seat_details: [{ id: seat.id, account_id: 'acc_cached', status: 'active' }],
        wallet: { balance_eur_cents: 1800 },
      });
      // This gateway's own write is seen by the very next read, announcement or not.
      const patched = await cached.app.inject({
        method: 'PATCH',
        url: '/v1/subscription',
        headers: bearer(cached.customer.full_key),
        payload: { cancel_at_period_end: true },
      });
      expect(patched.statusCode).toBe(200);
      expect((await readCached()).cancel_at_period_end).toBe(true);
    } finally {
      await cached.close();
    }
  });
});

describe('accounts and keys', () => {
  it('refuses to connect an account with a read-only key (403) while the subscription stays readable', async () => {
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/v1/accounts',
      headers: read(),
      payload: { platform: 'mt5', server: 'AlphaFX-Live', login: '1001', password: 'secret' },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('forbidden');
    expect((await get('/v1/subscription')).statusCode).toBe(200);
  });
});

describe('/v1/servers', () => {
  it('lists the plans', async () => {
    const response = await get('/v1/servers/plans');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      plans: [
        { plan: 'vps-small', price_eur_cents: 1500 },
        { plan: 'vps-large', price_eur_cents: 3500 },
      ],
    });
  });

  it('buys from the balance (402 when short, nothing bought), validates input, and needs the full key', async () => {
    backends.clock.set('2027-03-31T12:00:00Z');
    const poor = await gateway.app.inject({
      method: 'POST',
      url: '/v1/servers',
      headers: full(),
      payload: { plan: 'vps-small', label: 'London' },
    });
    expect(poor.statusCode).toBe(402);
    expect(poor.json().error.code).toBe('insufficient_balance');
    expect((await get('/v1/servers')).json()).toEqual({ servers: [] });

    await backends.credit(customer, 4000);
    for (const [payload, code] of [
      [{ plan: 'vps-mega', label: 'x' }, 'invalid_request'],
      [{ plan: 'vps-small' }, 'invalid_request'],
      [{ plan: 'vps-small', label: '' }, 'invalid_request'],
      [{ plan: 'vps-small', label: 'x', colour: 'red' }, 'unknown_field'],
    ] as const) {
      const response = await gateway.app.inject({ method: 'POST', url: '/v1/servers', headers: full(), payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error.code).toBe(code);
    }
    const forbidden = await gateway.app.inject({
      method: 'POST',
      url: '/v1/servers',
      headers: read(),
      payload: { plan: 'vps-small', label: 'London' },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(await backends.balance(customer)).toBe(4200);

    const headers = { ...full(), 'idempotency-key': 'buy-london-1' };
    const bought = await gateway.app.inject({
      method: 'POST',
      url: '/v1/servers',
      headers,
      payload: { plan: 'vps-small', label: 'London' },
    });
    expect(bought.statusCode).toBe(201);
    const server = bought.json();
    expect(server).toEqual({
      id: expect.stringMatching(/^srv_/),
      plan: 'vps-small',
      label: 'London',
      price_eur_cents: 1500,
      status: 'active',
      paid_until: '2027-04-30T12:00:00.000Z',
      cancel_at_period_end: false,
      grace_ends_at: null,
      created_at: '2027-03-31T12:00:00.000Z',
    });
    const replay = await gateway.app.inject({
      method: 'POST',
      url: '/v1/servers',
      headers,
      payload: { plan: 'vps-small', label: 'London' },
    });
    expect(replay.statusCode).toBe(201);
    expect(replay.json().id).toBe(server.id);
    expect(await backends.balance(customer)).toBe(2700);
    expect((await get('/v1/servers')).json().servers).toEqual([server]);
    const upcoming = (await get('/v1/wallet')).json().upcoming as Array<{ kind: string; label: string }>;
    expect(upcoming.filter((item) => item.kind === 'server').map((item) => item.label)).toEqual(['London']);
  });

  it("stops a server's renewal with DELETE, and answers 404 for an unknown or another customer's server", async () => {
    const [server] = (await get('/v1/servers')).json().servers;
    const intruder = customerIdFor('intruder');
    await backends.credit(intruder, 2000);
    const theirs = await backends.billing.client.call('CreateServer', { customer_id: intruder, plan: 'vps-small', label: 'Theirs' });
    for (const id of [theirs.id, 'srv_doesnotexist']) {
      const response = await gateway.app.inject({ method: 'DELETE', url: `/v1/servers/${id}`, headers: full() });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
    expect((await gateway.app.inject({ method: 'DELETE', url: `/v1/servers/${server.id}`, headers: read() })).statusCode).toBe(403);
    const deleted = await gateway.app.inject({ method: 'DELETE', url: `/v1/servers/${server.id}`, headers: full() });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toMatchObject({ id: server.id, cancel_at_period_end: true, status: 'active' });
    expect((await get('/v1/servers')).json().servers[0].cancel_at_period_end).toBe(true);
    const upcoming = (await get('/v1/wallet')).json().upcoming as Array<{ kind: string }>;
    expect(upcoming.some((item) => item.kind === 'server')).toBe(false);
    expect((await backends.billing.client.call('ListServers', { customer_id: intruder })).servers).toHaveLength(1);
  });
});

describe('OpenAPI', () => {
  it('documents the subscription and server routes in a valid document', async () => {
    const document = (await gateway.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    await SwaggerParser.validate(structuredClone(document));
    for (const [path, method] of [
      ['/v1/subscription', 'get'],
      ['/v1/subscription', 'patch'],
      ['/v1/servers', 'get'],
      ['/v1/servers', 'post'],
      ['/v1/servers/{id}', 'delete'],
      ['/v1/servers/plans', 'get'],
    ] as const) {
      const operation = document.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation.summary).toBeTruthy();
      expect(operation.description).toBeTruthy();
    }
    const subscription = document.paths['/v1/subscription'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(subscription.properties)).toEqual([
      'plan',
      'status',
      'paid_access',
      'billing_provider',
      'cancel_at_period_end',
      'seats',
      'seat_details',
      'current_period_end',
      'grace_ends_at',
      'wallet',
    ]);
    expect(subscription.properties.wallet.nullable).toBe(true);
  });
});
