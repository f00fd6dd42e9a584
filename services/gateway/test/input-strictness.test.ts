import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from './helpers';

/**
 * Input is read the same strict way on every route: integers in decimal digits only, no query parameter a route
 * does not declare, empty lists refused as such, and messages that state the rule. The backends are absent here,
 * so a request that passed validation would answer 503: every refusal below happens before anything is sent.
 */
let harness: GatewayHarness;

beforeAll(async () => {
  harness = await startGatewayHarness();
});

afterAll(async () => {
  await harness?.close();
});

const request = (method: 'GET' | 'POST', url: string, options: { body?: unknown; authorization?: string } = {}) =>
  harness.app.inject({
    method,
    url,
    headers: {
      authorization: options.authorization ?? `Bearer ${harness.customer.full_key}`,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
  });

describe('input strictness', () => {
  it('takes integer query parameters in decimal digits only', async () => {
    for (const written of ['1e3', '0x3e8', '%2B1000', '1000.0', '1000abc', '%201000']) {
      const response = await request('GET', `/v1/wallet/assets?amount_eur_cents=${written}`);
      expect(response.statusCode, written).toBe(400);
      expect(response.json().error, written).toMatchObject({ code: 'invalid_request', param: 'amount_eur_cents' });
    }
    const outOfRange = await request('GET', '/v1/wallet/assets?amount_eur_cents=999');
    expect(outOfRange.json().error.code).toBe('amount_out_of_range');
    // Well written and in range: validation passes, and the absent payments service answers.
    expect((await request('GET', '/v1/wallet/assets?amount_eur_cents=1000')).statusCode).toBe(503);
  });

  it('refuses a query parameter the route does not declare, on every kind of route', async () => {
    for (const url of [
      '/v1/wallet?expand=all',
      '/v1/subscription?x=1',
      '/v1/accounts?limit=5',
      '/v1/wallet/assets?amount_eur_cents=1000&currency=usd',
    ]) {
      const response = await request('GET', url);
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error.code, url).toBe('unknown_field');
    }
    expect((await request('GET', '/v1/wallet/assets?amount_eur_cents=1000&currency=usd')).json().error.param).toBe('currency');
  });

  it('refuses an empty list as invalid_request "at least 1", not as too many', async () => {
    const noLegs = await request('POST', '/v1/orders', { body: { orders: [] } });
    expect(noLegs.statusCode).toBe(400);
    expect(noLegs.json().error).toMatchObject({ code: 'invalid_request', param: 'orders' });
    expect(noLegs.json().error.message).toContain('at least 1');
    const noAccounts = await request('POST', '/v1/orders/close', { body: { symbol: 'EURUSD', accounts: [] } });
    expect(noAccounts.json().error).toMatchObject({ code: 'invalid_request', param: 'accounts' });
    expect(noAccounts.json().error.message).toContain('at least 1');
    // Too many is still too many.
    const leg = { account_id: 'acc_x', symbol: 'EURUSD', operation: 'buy', volume: 0.1 };
    expect((await request('POST', '/v1/orders', { body: { orders: Array.from({ length: 21 }, () => leg) } })).json().error.code).toBe(
      'too_many_legs',
    );
  });

  it('refuses a close selector field given both at the top level and in defaults, naming it, as documented', async () => {
    for (const [name, value] of [
      ['symbol', 'EURUSD'],
      ['side', 'long'],
      ['kind', 'any'],
      ['magic', 3],
      ['symbol_match', 'base'],
    ] as const) {
      const response = await request('POST', '/v1/orders/close', {
        body: { symbol: 'EURUSD', [name]: value, defaults: { [name]: value }, accounts: [{ account_id: 'acc_x' }] },
      });
      expect(response.statusCode, name).toBe(400);
      expect(response.json().error, name).toMatchObject({ code: 'invalid_request', param: name });
      expect(response.json().error.message, name).toContain('both at the top level and in defaults');
    }
    const document = (await harness.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.paths['/v1/orders/close'].post.requestBody.content['application/json'].schema.description).toContain('never both');
  });

  it('states the server plans as the closed set they are (SERVER_PLANS), and refuses another before calling billing', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const plan = document.paths['/v1/servers'].post.requestBody.content['application/json'].schema.properties.plan;
    expect(plan.enum).toEqual(['vps-small', 'vps-large']);
    for (const unknown of ['0', 'vps-huge', 'VPS-SMALL']) {
      const response = await request('POST', '/v1/servers', { body: { plan: unknown, label: 'x' } });
      expect(response.statusCode, unknown).toBe(400);
      expect(response.json().error, unknown).toMatchObject({ code: 'invalid_request', param: 'plan' });
    }
    // A listed plan passes validation; the absent billing service answers.
    expect((await request('POST', '/v1/servers', { body: { plan: 'vps-large', label: 'x' } })).statusCode).toBe(503);
  });

  it('states the volume rule as it is: greater than 0', async () => {
    const response = await request('POST', '/v1/orders', {
      body: { orders: [{ account_id: 'acc_x', symbol: 'EURUSD', operation: 'buy', volume: -1 }] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('greater than 0');
    expect(response.json().error.message).not.toContain('>=');
    const close = await request('POST', '/v1/orders/close', {
      body: { symbol: 'EURUSD', volume: -0.5, accounts: [{ account_id: 'acc_x' }] },
    });
    expect(close.json().error.message).toContain('greater than 0');
  });

  it('reads the Bearer scheme in any case, and the key exactly', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR']) {
      expect(
        (await request('GET', '/v1/accounts', { authorization: `${scheme} ${harness.customer.read_key}` })).statusCode,
        scheme,
      ).not.toBe(401);
    }
    expect((await request('GET', '/v1/accounts', { authorization: `Bearer ${harness.customer.read_key.toUpperCase()}` })).statusCode).toBe(
      401,
    );
    expect((await request('GET', '/v1/accounts', { authorization: `Basic ${harness.customer.read_key}` })).statusCode).toBe(401);
  });
});
