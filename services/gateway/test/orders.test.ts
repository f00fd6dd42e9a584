import SwaggerParser from '@apidevtools/swagger-parser';
import { AppError } from '@mtx/shared/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExecutionStack, type ExecutionStack } from '../../execution/test/stack';
import { createCustomer, issueKey } from '../src/app/customers';
import { startGatewayHarness, type GatewayHarness } from './helpers';

let stack: ExecutionStack;
let harness: GatewayHarness;
const accounts: Record<string, { id: string; login: string; symbol_suffix: string; server: string; platform: string }> = {};
let loginSequence = 72_000;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

function call(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  return harness.app.inject({
    method,
    url,
    headers: {
      ...bearer(options.key ?? harness.customer.full_key),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
  });
}

const received = async () => (await stack.control('/control/stats')).body.trade_requests_received as number;

async function connect(platform: 'mt4' | 'mt5', server: string, key = harness.customer.full_key) {
  const login = String(++loginSequence);
  const response = await call('POST', '/v1/accounts', {
    key,
    body: { platform, server, login, password: `pw-${login}`, label: `${server} ${login}` },
  });
  expect(response.statusCode, response.body).toBe(201);
  return { ...response.json(), login };
}

beforeAll(async () => {
  stack = await startExecutionStack({ label: 'gworders' });
  await stack.control('/control/prices', 'POST', { frozen_all: true });
  harness = await startGatewayHarness({ env: { EXECUTION_GRPC_URL: stack.executionAddress, EXECUTION_DEADLINE_MS: '1500' } });
  accounts.alpha = await connect('mt5', 'AlphaFX-Live');
  accounts.beta = await connect('mt5', 'BetaMarkets-Server');
  accounts.gamma = await connect('mt4', 'GammaTrade-Real');
});

afterAll(async () => {
  await harness?.close();
  await stack?.close();
});

describe('accounts routes', () => {
  it("connects, lists and disconnects accounts, with the broker's symbol suffix and without the password", async () => {
    expect([accounts.alpha!.symbol_suffix, accounts.beta!.symbol_suffix, accounts.gamma!.symbol_suffix]).toEqual(['', '.xx', 'm']);
    expect(Object.keys(accounts.alpha!).sort()).toEqual(
      ['bonus_seat', 'created_at', 'id', 'label', 'login', 'margin_mode', 'platform', 'server', 'status', 'symbol_suffix'].sort(),
    );
    const list = await call('GET', '/v1/accounts', { key: harness.customer.read_key });
    expect(list.statusCode).toBe(200);
    expect(list.json().accounts.map((account: { id: string }) => account.id)).toEqual([
      accounts.alpha!.id,
      accounts.beta!.id,
      accounts.gamma!.id,
    ]);
    expect(list.body).not.toContain('pw-');
    const extra = await connect('mt4', 'DeltaPrime-ECN');
    const deleted = await call('DELETE', `/v1/accounts/${extra.id}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toMatchObject({ id: extra.id, deleted: true });
    expect((await call('DELETE', `/v1/accounts/${extra.id}`)).statusCode).toBe(404);
  });

  it("refuses unknown fields, bad credentials, read-only keys and another customer's account", async () => {
    const unknown = await call('POST', '/v1/accounts', {
      body: { platform: 'mt5', server: 'AlphaFX-Live', login: '1', password: 'x', colour: 'red' },
    });
    expect(unknown.json().error).toMatchObject({ code: 'unknown_field', param: 'colour' });
    await stack.control('/control/accounts', 'POST', { server: 'AlphaFX-Live', login: '72999', password: 'the-real-one' });
    const wrongPassword = await call('POST', '/v1/accounts', {
      body: { platform: 'mt5', server: 'AlphaFX-Live', login: '72999', password: 'nope' },
    });
    expect(wrongPassword.statusCode).toBe(400);
    expect(wrongPassword.json().error.param).toBe('password');
    expect(
      (
        await call('POST', '/v1/accounts', {
          key: harness.customer.read_key,
          body: { platform: 'mt5', server: 'AlphaFX-Live', login: '1', password: 'x' },
        })
      ).statusCode,
    ).toBe(403);
    const other = await createCustomer(harness.connected.dependencies.store, 'Other', harness.clock);
    const otherKey = await issueKey(harness.connected.dependencies.store, other.customer_id, 'full', harness.clock);
    expect((await call('DELETE', `/v1/accounts/${accounts.alpha!.id}`, { key: otherKey.key })).statusCode).toBe(404);
    expect((await call('GET', '/v1/accounts', { key: otherKey.key })).json().accounts).toEqual([]);
  });
});

describe('POST /v1/orders', () => {
  it('places a batch and answers in the documented shape; the batch reads back the same', async () => {
    const response = await call('POST', '/v1/orders', {
      body: {
        defaults: { operation: 'BUY', volume: 0.1, slippage: 0 },
        orders: [
          { account_id: accounts.alpha!.id, symbol: 'EURUSD' },
          { account_id: accounts.beta!.id, symbol: 'EURUSD.xx', operation: 'buyLimit', price: 1.0 },
          { account_id: accounts.gamma!.id, symbol: 'EURUSD' },
        ],
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['ratelimit-limit']).toBe('60');
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['batch_id', 'idempotent_replay', 'results', 'summary']);
    expect(body.idempotent_replay).toBe(false);
    expect(body.summary).toEqual({ requested: 3, filled: 1, placed: 1, failed: 1, unknown: 0 });
    expect(Object.keys(body.results[0]).sort()).toEqual(
      [
        'account_id',
        'ask',
        'bid',
        'deal',
        'latency_ms',
        'message',
        'operation',
        'order',
        'platform',
        'price',
        'retcode',
        'retcode_description',
        'status',
        'symbol',
        'volume',
      ].sort(),
    );
    expect(body.results[2]).toMatchObject({
      status: 'rejected',
      retcode: 10013,
      retcode_description: 'TRADE_RETCODE_INVALID',
      order: 0,
      deal: 0,
    });
    expect(body.results[2].message).toContain('end in m');
    const batch = await call('GET', `/v1/orders/batches/${body.batch_id}`, { key: harness.customer.read_key });
    expect(batch.statusCode).toBe(200);
    expect(batch.json()).toMatchObject({
      batch_id: body.batch_id,
      kind: 'orders',
      settled: true,
      summary: body.summary,
      results: body.results,
    });
    expect((await call('GET', '/v1/orders/batches/bat_doesnotexist')).statusCode).toBe(404);
  });

  it('answers 400 for unknown fields, 21 legs and bad legs, and 403 for a read-only key, sending nothing', async () => {
    const before = await received();
    const leg = { account_id: accounts.alpha!.id, symbol: 'EURUSD', operation: 'buy', volume: 0.1 };
    const unknownLegField = await call('POST', '/v1/orders', { body: { orders: [{ ...leg, colour: 'red' }] } });
    expect(unknownLegField.statusCode).toBe(400);
    expect(unknownLegField.json().error).toMatchObject({ code: 'unknown_field', param: 'orders[0].colour' });
    const unknownTop = await call('POST', '/v1/orders', { body: { orders: [leg], dry_run: true } });
    expect(unknownTop.json().error).toMatchObject({ code: 'unknown_field', param: 'dry_run' });
    const tooMany = await call('POST', '/v1/orders', { body: { orders: Array.from({ length: 21 }, () => leg) } });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.code).toBe('too_many_legs');
    const zeroVolume = await call('POST', '/v1/orders', { body: { orders: [leg, { ...leg, volume: 0 }] } });
    expect(zeroVolume.statusCode).toBe(400);
    const noPrice = await call('POST', '/v1/orders', { body: { orders: [leg, { ...leg, operation: 'sellStop' }] } });
    expect(noPrice.json().error).toMatchObject({ code: 'invalid_request', param: 'orders[1].price' });
    const foreign = await call('POST', '/v1/orders', { body: { orders: [{ ...leg, account_id: 'acc_notmine' }] } });
    expect(foreign.json().error).toMatchObject({ code: 'unknown_account', param: 'orders[0].account_id' });
    const readOnly = await call('POST', '/v1/orders', { key: harness.customer.read_key, body: { orders: [leg] } });
    expect(readOnly.statusCode).toBe(403);
    expect(readOnly.json().error.code).toBe('forbidden');
    const stringVolume = await call('POST', '/v1/orders', { body: { orders: [{ ...leg, volume: '0.1' }] } });
    expect(stringVolume.statusCode).toBe(400);
    expect(await received()).toBe(before);
  });

  it('names the field the client sent when execution refuses a value inherited from defaults, sending nothing', async () => {
    const before = await received();
    const leg = { account_id: accounts.alpha!.id, symbol: 'EURUSD' };
    const badOperation = await call('POST', '/v1/orders', { body: { defaults: { operation: 'hold', volume: 0.1 }, orders: [leg] } });
    expect(badOperation.statusCode).toBe(400);
    expect(badOperation.json().error).toMatchObject({ code: 'invalid_request', param: 'defaults.operation' });
    expect(badOperation.json().error.message).toMatch(/^defaults\.operation must be one of/);
    // Given on the leg itself, the leg is named.
    const onLeg = await call('POST', '/v1/orders', { body: { defaults: { volume: 0.1 }, orders: [{ ...leg, operation: 'hold' }] } });
    expect(onLeg.json().error).toMatchObject({ code: 'invalid_request', param: 'orders[0].operation' });
    const pastExpiry = await call('POST', '/v1/orders', {
      body: {
        defaults: { operation: 'buyLimit', volume: 0.1, price: 1, expiration: '2020-01-31T17:00:00Z' },
        orders: [leg, { ...leg, account_id: accounts.beta!.id }],
      },
    });
    expect(pastExpiry.json().error).toMatchObject({ code: 'invalid_request', param: 'defaults.expiration' });
    expect(await received()).toBe(before);
  });
});

describe('POST /v1/orders/close', () => {
  it('closes by selector with top-level or default fields and refuses a missing symbol with 400 param symbol', async () => {
    await stack.control(`/control/accounts/AlphaFX-Live/${accounts.alpha!.login}/positions`, 'POST', {
      symbol: 'GBPUSD',
      type: 'sell',
      volume: 0.1,
    });
    const missing = await call('POST', '/v1/orders/close', { body: { accounts: [{ account_id: accounts.alpha!.id }] } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'invalid_request', param: 'symbol' });
    const twice = await call('POST', '/v1/orders/close', {
      body: { symbol: 'GBPUSD', defaults: { symbol: 'EURUSD' }, accounts: [{ account_id: accounts.alpha!.id }] },
    });
    expect(twice.json().error).toMatchObject({ code: 'invalid_request', param: 'symbol' });
    const bothWays = await call('POST', '/v1/orders/close', {
      body: { accounts: [{ account_id: accounts.alpha!.id, symbol: 'GBPUSD', tickets: [1] }] },
    });
    expect(bothWays.statusCode).toBe(400);
    const tooMany = await call('POST', '/v1/orders/close', {
      body: { symbol: '*', accounts: Array.from({ length: 21 }, (_, index) => ({ account_id: `acc_${index}` })) },
    });
    expect(tooMany.json().error.code).toBe('too_many_accounts');
    const closed = await call('POST', '/v1/orders/close', {
      body: {
        symbol: 'GBPUSD',
        side: 'short',
        accounts: [{ account_id: accounts.alpha!.id }, { account_id: accounts.gamma!.id, symbol: 'GBPUSDm' }],
      },
    });
    expect(closed.statusCode, closed.body).toBe(200);
    const body = closed.json();
    expect(Object.keys(body).sort()).toEqual(['batch_id', 'idempotent_replay', 'results', 'summary']);
    expect(body.results.map((result: { status: string }) => result.status)).toEqual(['closed', 'nothing_matched']);
    expect(body.summary).toEqual({
      accounts: 2,
      matched: 1,
      closed: 1,
      failed: 0,
      unknown: 0,
      accounts_unknown: 0,
      accounts_unavailable: 0,
      accounts_failed: 0,
    });
    expect(Object.keys(body.results[0].results[0]).sort()).toEqual(
      ['kind', 'message', 'price', 'retcode', 'retcode_description', 'status', 'symbol', 'ticket', 'type', 'volume'].sort(),
    );
    const batch = (await call('GET', `/v1/orders/batches/${body.batch_id}`)).json();
    expect(batch).toMatchObject({ kind: 'close', settled: true, summary: body.summary, results: body.results });
  });
});

describe('Idempotency-Key', () => {
  const body = () => ({ orders: [{ account_id: accounts.alpha!.id, symbol: 'EURUSD', operation: 'buy', volume: 0.1 }] });

  it('replays the original response with idempotent_replay true and sends nothing; another body gives 409', async () => {
    const key = `replay-${Date.now()}`;
    const first = await call('POST', '/v1/orders', { body: body(), headers: { 'idempotency-key': key } });
    expect(first.statusCode).toBe(200);
    const before = await received();
    const replay = await call('POST', '/v1/orders', { body: body(), headers: { 'idempotency-key': key } });
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual({ ...first.json(), idempotent_replay: true });
    expect(await received()).toBe(before);
    const different = await call('POST', '/v1/orders', {
      body: { ...body(), defaults: { comment: 'changed' } },
      headers: { 'idempotency-key': key },
    });
    expect(different.statusCode).toBe(409);
    expect(different.json().error.code).toBe('idempotency_key_reused');
    // A key names one request of the customer, whatever the route (docs/architecture.md, "API rules"): on /close it is refused.
    const openPositions = async () =>
      (await stack.control(`/control/accounts/AlphaFX-Live/${accounts.alpha!.login}`)).body.positions.length as number;
    const openBefore = await openPositions();
    expect(openBefore).toBeGreaterThan(0);
    const closeScope = await call('POST', '/v1/orders/close', {
      body: { symbol: '*', accounts: [{ account_id: accounts.alpha!.id }] },
      headers: { 'idempotency-key': key },
    });
    expect(closeScope.statusCode).toBe(409);
    expect(closeScope.json().error.code).toBe('idempotency_key_reused');
    expect(await openPositions()).toBe(openBefore);
    const closeKey = `${key}-close`;
    const closed = await call('POST', '/v1/orders/close', {
      body: { symbol: 'NOTHING', accounts: [{ account_id: accounts.alpha!.id }] },
      headers: { 'idempotency-key': closeKey },
    });
    expect(closed.statusCode).toBe(200);
    const closeReplay = await call('POST', '/v1/orders/close', {
      body: { symbol: 'NOTHING', accounts: [{ account_id: accounts.alpha!.id }] },
      headers: { 'idempotency-key': closeKey },
    });
    expect(closeReplay.json()).toEqual({ ...closed.json(), idempotent_replay: true });
    expect(await received()).toBe(before);
    const tooLong = await call('POST', '/v1/orders', { body: body(), headers: { 'idempotency-key': 'k'.repeat(129) } });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().error.param).toBe('Idempotency-Key');
  });

  it('sends a batch once when duplicates race', async () => {
    const key = `race-${Date.now()}`;
    const before = await received();
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => call('POST', '/v1/orders', { body: body(), headers: { 'idempotency-key': key } })),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
    const batchIds = new Set(responses.filter((response) => response.statusCode === 200).map((response) => response.json().batch_id));
    expect(batchIds.size).toBe(1);
    expect(responses.filter((response) => response.statusCode === 200 && response.json().idempotent_replay === false)).toHaveLength(1);
    expect(
      responses
        .filter((response) => response.statusCode === 409)
        .every((response) => response.json().error.code === 'idempotency_key_in_progress'),
    ).toBe(true);
    expect((await received()) - before).toBe(1);
  });

  it('treats a key past its 15 minutes as a new request: a new batch id, sent, filled again', async () => {
    const key = `expiry-${Date.now()}`;
    const first = await call('POST', '/v1/orders', { body: body(), headers: { 'idempotency-key': key } });
    expect(first.json().results[0].status).toBe('filled');
    const before = await received();
    harness.clock.advanceMs(15 * 60_000 - 1_000);
    const inside = await call('POST', '/v1/orders', { body: body(), headers: { 'idempotency-key': key } });
    expect(inside.json()).toEqual({ ...first.json(), idempotent_replay: true });
    expect(await received()).toBe(before);
    harness.clock.advanceMs(1_000);
    const after = await call('POST', '/v1/orders', { body: body(), headers: { 'idempotency-key': key } });
    expect(after.statusCode).toBe(200);
    const answer = after.json();
    expect(answer.idempotent_replay).toBe(false);
    expect(answer.batch_id).not.toBe(first.json().batch_id);
    expect(answer.results[0]).toMatchObject({ status: 'filled', message: '' });
    expect(answer.results[0].order).not.toBe(first.json().results[0].order);
    expect((await received()) - before).toBe(1);
    // The new request is itself protected for its own 15 minutes.
    expect((await call('POST', '/v1/orders', { body: body(), headers: { 'idempotency-key': key } })).json()).toEqual({
      ...answer,
      idempotent_replay: true,
    });
    expect((await received()) - before).toBe(1);
  });

  it('retries a batch whose answer was lost (a 5xx after it was sent) on the same batch id, sending nothing again', async () => {
    const key = `lost-${Date.now()}`;
    const execution = harness.connected.dependencies.clients.execution;
    const realCall = execution.call.bind(execution);
    let answered: Record<string, any> | undefined;
    // The batch reaches execution and the broker; its answer is lost on the way back, as after a gRPC deadline.
    (execution as { call: typeof execution.call }).call = (async (method: string, request: unknown, options: unknown) => {
      answered = (await realCall(method as never, request as never, options as never)) as Record<string, any>;
      throw new AppError('unavailable', 'execution did not answer by the deadline');
    }) as typeof execution.call;
    const before = await received();
    let lost: Awaited<ReturnType<typeof call>>;
    try {
      lost = await call('POST', '/v1/orders', { body: body(), headers: { 'idempotency-key': key } });
    } finally {
      (execution as { call: typeof execution.call }).call = realCall;
    }
    expect(lost.statusCode).toBe(503);
    expect(answered?.results?.[0]?.status).toBe('filled');
    expect((await received()) - before).toBe(1);
    const retry = await call('POST', '/v1/orders', { body: body(), headers: { 'idempotency-key': key } });
    expect(retry.statusCode).toBe(200);
    const answer = retry.json();
    expect(answer.batch_id).toBe(answered!.batch_id);
    expect(answer.idempotent_replay).toBe(false);
    expect(answer.results[0]).toMatchObject({ status: 'filled', order: Number(answered!.results[0].order) });
    expect(answer.results[0].message).toContain('not sent again');
    expect((await received()) - before).toBe(1);
  });
});

describe('rate limit', () => {
  it('allows 60 execution requests a minute across both endpoints, answers the 61st with 429, and leaves the rest of the API alone', async () => {
    const customer = await createCustomer(harness.connected.dependencies.store, 'Busy trader', harness.clock);
    const key = (await issueKey(harness.connected.dependencies.store, customer.customer_id, 'full', harness.clock)).key;
    const remaining: number[] = [];
    for (let index = 0; index < 60; index++) {
      const url = index % 2 === 0 ? '/v1/orders' : '/v1/orders/close';
      const response = await call('POST', url, { key, body: {} });
      expect(response.statusCode, `request ${index + 1}`).toBe(400);
      remaining.push(Number(response.headers['ratelimit-remaining']));
    }
    expect(remaining[0]).toBe(59);
    expect(remaining[59]).toBe(0);
    const limited = await call('POST', '/v1/orders', { key, body: {} });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit-limit']).toBe('60');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect((await call('GET', '/v1/accounts', { key })).statusCode).toBe(200);
    harness.clock.advanceMs(61_000);
    expect((await call('POST', '/v1/orders/close', { key, body: {} })).statusCode).toBe(400);
  });
});

describe('OpenAPI', () => {
  it('documents the execution and account routes in a valid OpenAPI document', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    await SwaggerParser.validate(structuredClone(document)).catch((error: { details?: unknown }) => {
      throw new Error(`invalid OpenAPI document: ${JSON.stringify(error.details ?? error).slice(0, 2_000)}`);
    });
    for (const [path, method] of [
      ['/v1/orders', 'post'],
      ['/v1/orders/close', 'post'],
      ['/v1/orders/batches/{batch_id}', 'get'],
      ['/v1/accounts', 'get'],
      ['/v1/accounts', 'post'],
      ['/v1/accounts/{account_id}', 'delete'],
    ] as const) {
      const operation = document.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeTruthy();
      expect(operation.summary).toBeTruthy();
      expect(operation.description).toBeTruthy();
    }
    // Links from what creates a resource to what reads or removes it, by operationId.
    const operationIds = new Map<string, string>();
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, { operationId?: string }>>))
      for (const [method, operation] of Object.entries(item))
        if (operation.operationId) operationIds.set(operation.operationId, `${method} ${path}`);
    const linkTarget = (path: string, method: string, status: string, name: string) =>
      operationIds.get(document.paths[path][method].responses[status].links[name].operationId);
    expect(linkTarget('/v1/wallet/topup', 'post', '201', 'GetTopup')).toBe('get /v1/wallet/topup/{id}');
    expect(linkTarget('/v1/orders', 'post', '200', 'GetBatch')).toBe('get /v1/orders/batches/{batch_id}');
    expect(linkTarget('/v1/orders/close', 'post', '200', 'GetBatch')).toBe('get /v1/orders/batches/{batch_id}');
    expect(linkTarget('/v1/servers', 'post', '201', 'CancelServer')).toBe('delete /v1/servers/{id}');
    expect(linkTarget('/v1/accounts', 'post', '201', 'DisconnectAccount')).toBe('delete /v1/accounts/{account_id}');
    expect(document.paths['/v1/orders'].post.responses['200'].links.GetBatch.parameters).toEqual({ batch_id: '$response.body#/batch_id' });
    const orderBody = document.paths['/v1/orders'].post.requestBody.content['application/json'].schema;
    expect(orderBody.additionalProperties).toBe(false);
    expect(orderBody.properties.orders.maxItems).toBe(20);
  });
});
