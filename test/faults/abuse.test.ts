/**
 * Bad input and abuse against the running system, under load: schemathesis (from PyPI) fuzzing /openapi.json with
 * a full and a read-only key, a property-based suite (fast-check) of malformed requests that must all be refused
 * with 4xx and leave nothing written, and the security properties: keys stored hashed, a read-only key refused on
 * every write route of the OpenAPI document, another customer's resources invisible everywhere, and a validly
 * signed postback refused once its body is changed.
 */
import crypto from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseName } from '@mtx/shared/mongo';
import { redeliver, startLoad, type LoadOptions } from './load';
import { errorKind, FaultStack, type Customer, type HttpAnswer, type TopupForPostbacks } from './stack';
import { printSummary, seedFromEnvironment } from './summary';
import { recordAndAssert, tally, verifyAfterFault } from './verify';

const schemathesisVersion = '4.32.5';

let stack: FaultStack;
let loadCustomers: Customer[];
let loadTopups: TopupForPostbacks[];
/** Owns a resource of every kind with an id; the stranger must see none of them. */
let owner: Customer;
let stranger: Customer;
let owned: { topupId: number; serverId: string; accountId: string; batchId: string; webhookEndpointId: string };
let schemathesis: string;
let openapi: { paths: Record<string, Record<string, { security?: unknown[]; parameters?: Array<{ in: string; name: string }> }>> };

beforeAll(async () => {
  schemathesis = ensureSchemathesis();
  stack = await FaultStack.start({ label: 'abuse' });
  ({ customers: loadCustomers, topups: loadTopups } = await stack.loadCustomers(['abusea', 'abuseb']));
  owner = await stack.newCustomer('owner', { accountsPerServer: 1, balanceEurCents: 20_000 });
  stranger = await stack.newCustomer('stranger', { accountsPerServer: 1, balanceEurCents: 20_000 });
  const topup = await stack.createTopup(owner, 5_000);
  const server = await stack.api(owner.fullKey, 'POST', '/v1/servers', { plan: 'vps-small', label: 'owner server' });
  expect(server.status, JSON.stringify(server.body)).toBe(201);
  const batch = await stack.api(owner.fullKey, 'POST', '/v1/orders', {
    orders: [{ account_id: owner.accounts[0]!.id, symbol: owner.accounts[0]!.symbol, operation: 'buy', volume: 0.1 }],
  });
  expect(batch.status).toBe(200);
  const endpoint = await stack.api(owner.fullKey, 'POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/owner-hooks' });
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  owned = {
    topupId: topup.id,
    serverId: server.body.id,
    accountId: owner.accounts[0]!.id,
    batchId: batch.body.batch_id,
    webhookEndpointId: endpoint.body.id,
  };
  openapi = (await stack.request('GET', `${stack.gatewayUrl}/openapi.json`)).body;
}, 240_000);

afterAll(async () => {
  if (stack?.serviceErrors.length)
    process.stdout.write(`[faults/abuse] service error lines (see ${stack.logFile}):\n${stack.serviceErrors.slice(-15).join('\n')}\n`);
  await stack?.close();
  printSummary();
});

function loadOptions(seed: number, overrides: Partial<LoadOptions> = {}): LoadOptions {
  return {
    customers: loadCustomers,
    seed,
    concurrency: 2,
    durationMs: 120_000,
    requestsMax: 2_000,
    pauseMs: 25,
    topups: loadTopups,
    mix: { wallet: 3, orders: 2, credit: 2, debit: 1, subscription: 1 },
    ...overrides,
  };
}

/** What a customer has, as far as writes go: a bad request must leave every part of it unchanged. */
async function footprint(customer: Customer): Promise<Record<string, unknown>> {
  const database = (service: string) => stack.mongo.db(databaseName(stack.prefix, service));
  const [ledger, topups, batches, servers, accounts, subscription, brokerRequests] = await Promise.all([
    database('wallet').collection('ledger').countDocuments({ wallet_id: customer.id }),
    database('payments')
      .collection('customer_topups')
      .countDocuments({ _id: { $regex: `^${customer.id}:` } as never }),
    database('execution').collection('batches').countDocuments({ customer_id: customer.id }),
    stack
      .api(customer.readKey, 'GET', '/v1/servers')
      .then((answer) =>
        (answer.body.servers as Array<{ id: string; cancel_at_period_end: boolean }>)
          .map((server) => `${server.id}:${server.cancel_at_period_end}`)
          .sort(),
      ),
    stack
      .api(customer.readKey, 'GET', '/v1/accounts')
      .then((answer) => (answer.body.accounts as Array<{ id: string }>).map((account) => account.id).sort()),
    stack
      .api(customer.readKey, 'GET', '/v1/subscription')
      .then((answer) => ({ cancel: answer.body.cancel_at_period_end, seats: answer.body.seats })),
    Promise.all(
      customer.accounts.map((account) =>
        stack
          .control<{ requests: unknown[] }>(`/control/accounts/${account.server}/${account.login}/requests`)
          .then((answer) => answer.requests.length),
      ),
    ),
  ]);
  return { ledger, topups, batches, servers, accounts, subscription, brokerRequests };
}

/** A JSON body in which some values are raw literals JSON.stringify cannot write (1e309, -0.5e999, …). */
function rawBody(value: unknown, literals: Record<string, string>): string {
  let text = JSON.stringify(value);
  for (const [token, literal] of Object.entries(literals)) text = text.replace(JSON.stringify(token), literal);
  return text;
}

const rawToken = '__raw_literal__';

// ---- arbitraries of values a field of each type must refuse ----

/** Anything but an integer from 1000 to 50000 (the top-up bounds), raw number literals included. */
const invalidAmount: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: -1_000_000_000, max: 999 }),
  fc.integer({ min: 50_001, max: Number.MAX_SAFE_INTEGER }),
  fc.double({ min: 1_000, max: 50_000, noNaN: true }).filter((value) => !Number.isInteger(value)),
  fc.constantFrom('NaN', 'Infinity', '-Infinity', '5000', '1e309', '', ' 5000', '0x1388', 'null'),
  fc.constantFrom(
    `${rawToken}1e309`,
    `${rawToken}-1e309`,
    `${rawToken}5000.5`,
    `${rawToken}9007199254740993`,
    `${rawToken}1E400`,
    `${rawToken}-0.0`,
  ),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
);

/** Anything but a positive number of lots up to 100000. */
const invalidVolume: fc.Arbitrary<unknown> = fc.oneof(
  fc.double({ max: 0, noNaN: true, noDefaultInfinity: true }),
  fc.double({ min: 100_001, max: 1e300, noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom('NaN', '0.1', 'lots', '', 'Infinity'),
  fc.constantFrom(`${rawToken}1e309`, `${rawToken}-1e309`, `${rawToken}1E400`),
  fc.boolean(),
  fc.array(fc.double(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
);

const invalidCloseVolume: fc.Arbitrary<unknown> = fc.oneof(
  fc.double({ max: 0, noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom('NaN', '0.1', '', `${rawToken}1e309`, `${rawToken}-1e309`),
  fc.boolean(),
  fc.array(fc.double(), { maxLength: 2 }),
);

const invalidString: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.string(), { maxKeys: 2 }),
);

/** Every field name some request schema knows: an "unknown field" must be none of them. */
const knownFieldNames = new Set([
  ...[
    'amount_eur_cents',
    'asset_code',
    'blockchain_code',
    'is_evm',
    'plan',
    'label',
    'cancel_at_period_end',
    'platform',
    'server',
    'login',
    'password',
  ],
  ...[
    'orders',
    'defaults',
    'account_id',
    'symbol',
    'operation',
    'volume',
    'price',
    'slippage',
    'stop_loss',
    'take_profit',
    'stop_limit_price',
    'expiration',
    'comment',
    'expert_id',
  ],
  ...['accounts', 'tickets', 'require_reachable', 'symbol_match', 'side', 'kind', 'magic'],
  ...['__proto__', 'constructor', 'prototype'],
]);
const unknownFieldName = fc.string({ minLength: 1, maxLength: 24 }).filter((name) => !knownFieldNames.has(name));

const jsonValue = fc.jsonValue({ maxDepth: 3 });

interface BadRequest {
  method: string;
  path: string;
  body: string;
  description: string;
}

/** Replaces a value that is the raw-literal token by its literal, turning the request body into text. */
function bodyOf(value: Record<string, unknown>): string {
  const literals: Record<string, string> = {};
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string' && node.startsWith(rawToken)) {
      const token = `${rawToken}${Object.keys(literals).length}`;
      literals[token] = node.slice(rawToken.length);
      return token;
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item)]));
    return node;
  };
  return rawBody(walk(value), literals);
}

function badRequests(customer: Customer, foreignAccountId: string): fc.Arbitrary<BadRequest> {
  const account = customer.accounts[0]!;
  const leg = { account_id: account.id, symbol: account.symbol, operation: 'buy', volume: 0.1 };
  const topup = fc
    .oneof(
      invalidAmount.map((amount) => ({ amount_eur_cents: amount, asset_code: 'USDT', blockchain_code: 'TRON', why: 'amount' })),
      fc.tuple(fc.constantFrom('asset_code', 'blockchain_code', 'is_evm'), invalidString).map(([field, value]) => ({
        amount_eur_cents: 5_000,
        asset_code: 'USDT',
        blockchain_code: 'TRON',
        [field]: field === 'is_evm' && typeof value === 'boolean' ? 'yes' : value,
        why: field,
      })),
      fc.tuple(unknownFieldName, jsonValue).map(([field, value]) => ({
        amount_eur_cents: 5_000,
        asset_code: 'USDT',
        blockchain_code: 'TRON',
        [field]: value,
        why: 'unknown field',
      })),
      fc.constantFrom('amount_eur_cents', 'asset_code', 'blockchain_code').map((missing) => {
        const body: Record<string, unknown> = { amount_eur_cents: 5_000, asset_code: 'USDT', blockchain_code: 'TRON', why: 'missing' };
        delete body[missing];
        return body;
      }),
    )
    .map(({ why, ...body }) => ({
      method: 'POST',
      path: '/v1/wallet/topup',
      body: bodyOf(body),
      description: `top-up, bad ${String(why)}`,
    }));
  const orders = fc
    .oneof(
      invalidVolume.map((volume) => ({ orders: [{ ...leg, volume }], why: 'volume' })),
      invalidVolume.map((volume) => ({
        defaults: { volume },
        orders: [{ account_id: account.id, symbol: account.symbol, operation: 'buy' }],
        why: 'default volume',
      })),
      fc.tuple(unknownFieldName, jsonValue).map(([field, value]) => ({ orders: [{ ...leg, [field]: value }], why: 'unknown leg field' })),
      fc.tuple(unknownFieldName, jsonValue).map(([field, value]) => ({ orders: [leg], [field]: value, why: 'unknown field' })),
      fc
        .constantFrom('hold', 'BUYY', '', 'buy;drop', 'sellStopLimitX')
        .map((operation) => ({ orders: [{ ...leg, operation }], why: 'operation' })),
      fc.integer({ min: 21, max: 60 }).map((count) => ({ orders: Array.from({ length: count }, () => leg), why: 'too many legs' })),
      fc.constant({ orders: [], why: 'no legs' }),
      fc.constant({ orders: [{ ...leg, account_id: foreignAccountId }], why: "another customer's account" }),
      invalidString.map((symbol) => ({ orders: [{ ...leg, symbol }], why: 'symbol' })),
    )
    .map(({ why, ...body }) => ({ method: 'POST', path: '/v1/orders', body: bodyOf(body), description: `orders, bad ${why}` }));
  const close = fc
    .oneof(
      fc.constant({ accounts: [{ account_id: account.id }], why: 'no symbol' }),
      fc.constant({ accounts: [{ account_id: foreignAccountId, symbol: '*' }], why: "another customer's account" }),
      fc.constant({ accounts: [{ account_id: account.id, symbol: '*', tickets: [1] }], why: 'selector and tickets' }),
      // A close volume has no upper bound of its own (it is capped by each position), so only non-positive and wrong types.
      invalidCloseVolume.map((volume) => ({ accounts: [{ account_id: account.id, symbol: '*', volume }], why: 'volume' })),
      fc
        .tuple(unknownFieldName, jsonValue)
        .map(([field, value]) => ({ accounts: [{ account_id: account.id, symbol: '*', [field]: value }], why: 'unknown field' })),
      fc.integer({ min: 21, max: 40 }).map((count) => ({
        accounts: Array.from({ length: count }, () => ({ account_id: account.id, symbol: '*' })),
        why: 'too many accounts',
      })),
    )
    .map(({ why, ...body }) => ({ method: 'POST', path: '/v1/orders/close', body: bodyOf(body), description: `close, bad ${why}` }));
  const servers = fc
    .oneof(
      invalidString.map((plan) => ({ plan, label: 'x', why: 'plan type' })),
      fc
        .string({ maxLength: 20 })
        .filter((plan) => !['vps-small', 'vps-large'].includes(plan))
        .map((plan) => ({ plan, label: 'x', why: 'unknown plan' })),
      fc
        .oneof(invalidString, fc.constant(''), fc.constant(' '), fc.string({ minLength: 65, maxLength: 200 }))
        .map((label) => ({ plan: 'vps-small', label, why: 'label' })),
      fc
        .tuple(unknownFieldName, jsonValue)
        .map(([field, value]) => ({ plan: 'vps-small', label: 'x', [field]: value, why: 'unknown field' })),
    )
    .map(({ why, ...body }) => ({ method: 'POST', path: '/v1/servers', body: bodyOf(body), description: `servers, bad ${why}` }));
  const subscription = fc
    .oneof(
      fc
        .oneof(fc.integer(), fc.string(), fc.constant(null), fc.array(fc.boolean(), { maxLength: 2 }))
        .map((value) => ({ cancel_at_period_end: value, why: 'flag' })),
      fc
        .tuple(unknownFieldName, jsonValue)
        .map(([field, value]) => ({ cancel_at_period_end: false, [field]: value, why: 'unknown field' })),
    )
    .map(({ why, ...body }) => ({
      method: 'PATCH',
      path: '/v1/subscription',
      body: bodyOf(body),
      description: `subscription, bad ${why}`,
    }));
  const accounts = fc
    .oneof(
      fc.tuple(fc.constantFrom('platform', 'server', 'login', 'password'), invalidString).map(([field, value]) => ({
        platform: 'mt5',
        server: 'AlphaFX-Live',
        login: '123456',
        password: 'secret',
        [field]: value,
        why: field,
      })),
      fc
        .constantFrom('mt6', 'MT5', '', 'ctrader')
        .map((platform) => ({ platform, server: 'AlphaFX-Live', login: '123456', password: 'secret', why: 'platform' })),
      fc.tuple(unknownFieldName, jsonValue).map(([field, value]) => ({
        platform: 'mt5',
        server: 'AlphaFX-Live',
        login: '123456',
        password: 'secret',
        [field]: value,
        why: 'unknown field',
      })),
    )
    .map(({ why, ...body }) => ({ method: 'POST', path: '/v1/accounts', body: bodyOf(body), description: `accounts, bad ${why}` }));
  const deep = fc.integer({ min: 33, max: 100_000 }).chain((depth) =>
    fc.constantFrom('/v1/orders', '/v1/wallet/topup', '/v1/servers').map((route) => ({
      method: 'POST',
      path: route,
      body: `{"orders":${'['.repeat(depth)}${']'.repeat(depth)}}`,
      description: `${route}, nested ${depth} deep`,
    })),
  );
  return fc.oneof(topup, orders, close, servers, subscription, accounts, deep);
}

describe('fault suite: bad input and security', () => {
  it('9. bad input, fuzzed: fast-check properties and schemathesis (every check but positive_data_acceptance) give 4xx, no 5xx, no failed check, nothing written', async () => {
    const seed = seedFromEnvironment('bad input');
    const startedAtMs = Date.now();
    const fuzz = await stack.newCustomer('fuzz', { accountsPerServer: 1, balanceEurCents: 20_000 });
    const before = await footprint(fuzz);
    const ownerBefore = await footprint(owner);
    const load = startLoad(stack, loadOptions(seed));
    const kinds: Record<string, number> = {};
    let requests = 0;
    const wrong: string[] = [];
    const send = async (request: { method: string; path: string; body?: string; headers?: Record<string, string>; key?: string }) => {
      const answer = await stack.request(request.method, `${stack.gatewayUrl}${request.path}`, {
        key: request.key ?? fuzz.fullKey,
        headers: { ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}), ...request.headers },
        ...(request.body !== undefined ? { rawBody: request.body } : {}),
      });
      requests += 1;
      tally(kinds, errorKind(answer));
      return answer;
    };
    const isClientError = (answer: HttpAnswer) => answer.status >= 400 && answer.status < 500;

    // Malformed bodies on every write route.
    await fc.assert(
      fc.asyncProperty(badRequests(fuzz, stranger.accounts[0]!.id), async (request) => {
        const answer = await send(request);
        if (!isClientError(answer))
          wrong.push(
            `${request.description}: ${answer.status || answer.networkError} ${JSON.stringify(answer.body).slice(0, 200)} for ${request.body.slice(0, 200)}`,
          );
        return isClientError(answer);
      }),
      { seed, numRuns: 300, endOnFailure: true },
    );
    // Query and path values out of their types or bounds.
    await fc.assert(
      fc.asyncProperty(
        fc
          .oneof(
            fc.string({ maxLength: 12 }),
            fc.constantFrom('NaN', '1e309', '-1', '999', '50001', '1000.5', 'Infinity', '99999999999999999999'),
          )
          .filter((value) => {
            const number = Number(value);
            return !(value.trim() !== '' && Number.isInteger(number) && number >= 1_000 && number <= 50_000);
          }),
        fc.constantFrom('assets', 'topup'),
        async (value, route) => {
          const target =
            route === 'assets'
              ? `/v1/wallet/assets?amount_eur_cents=${encodeURIComponent(value)}`
              : `/v1/wallet/topup/${encodeURIComponent(value) || '%20'}`;
          const answer = await send({ method: 'GET', path: target });
          if (!isClientError(answer)) wrong.push(`GET ${target}: ${answer.status || answer.networkError}`);
          return isClientError(answer);
        },
      ),
      { seed, numRuns: 120, endOnFailure: true },
    );
    // Oversized bodies and headers, wrong media types, invalid and poisoned JSON.
    const fixed: Array<{ method: string; path: string; body?: string; headers?: Record<string, string>; expected: number[] }> = [
      {
        method: 'POST',
        path: '/v1/orders',
        body: JSON.stringify({
          orders: [{ account_id: fuzz.accounts[0]!.id, symbol: 'EURUSD', operation: 'buy', volume: 0.1, comment: 'x'.repeat(300_000) }],
        }),
        expected: [413],
      },
      {
        method: 'POST',
        path: '/v1/wallet/topup',
        body: JSON.stringify({ amount_eur_cents: 5_000, asset_code: 'USDT', blockchain_code: 'TRON', pad: 'y'.repeat(300_000) }),
        expected: [413],
      },
      { method: 'POST', path: '/v1/hooks/payments/sandbox', body: JSON.stringify({ pad: 'z'.repeat(100_000) }), expected: [413] },
      { method: 'GET', path: '/v1/wallet', headers: { 'x-padding': 'p'.repeat(40_000) }, expected: [431] },
      { method: 'POST', path: '/v1/orders', body: '{}', headers: { 'idempotency-key': 'k'.repeat(129) }, expected: [400] },
      {
        method: 'POST',
        path: '/v1/wallet/topup',
        body: 'amount_eur_cents=5000',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        expected: [415],
      },
      { method: 'POST', path: '/v1/wallet/topup', body: '{"amount_eur_cents": 5000,', expected: [400] },
      {
        method: 'POST',
        path: '/v1/wallet/topup',
        body: '{"__proto__": {"admin": true}, "amount_eur_cents": 5000, "asset_code": "USDT", "blockchain_code": "TRON"}',
        expected: [400],
      },
      {
        method: 'POST',
        path: '/v1/servers',
        body: '{"constructor": {"prototype": {"x": 1}}, "plan": "vps-small", "label": "x"}',
        expected: [400],
      },
      { method: 'POST', path: '/v1/orders', body: '', expected: [400] },
      { method: 'POST', path: '/v1/orders', body: 'null', expected: [400] },
      { method: 'POST', path: '/v1/orders', body: '[]', expected: [400] },
    ];
    for (const request of fixed) {
      const answer = await send(request);
      if (!request.expected.includes(answer.status))
        wrong.push(
          `${request.method} ${request.path} (${Object.keys(request.headers ?? {}).join(',') || 'body'}): ${answer.status || answer.networkError}, expected ${request.expected.join('/')}`,
        );
    }
    // Another customer's ids are not found, whichever route takes them.
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('topup', 'server', 'account', 'batch'), async (kind) => {
        const request = {
          topup: { method: 'GET', path: `/v1/wallet/topup/${owned.topupId}` },
          server: { method: 'DELETE', path: `/v1/servers/${owned.serverId}` },
          account: { method: 'DELETE', path: `/v1/accounts/${owned.accountId}` },
          batch: { method: 'GET', path: `/v1/orders/batches/${owned.batchId}` },
        }[kind];
        const answer = await send({ ...request, key: fuzz.fullKey });
        if (answer.status !== 404) wrong.push(`${request.method} ${request.path} by another customer: ${answer.status}`);
        return answer.status === 404;
      }),
      { seed, numRuns: 20, endOnFailure: true },
    );
    const afterProperties = await footprint(fuzz);
    const ownerAfter = await footprint(owner);

    // schemathesis against the published document, with a full key (writes allowed) and a read-only key.
    const target = await stack.newCustomer('schemathesis', { accountsPerServer: 1, balanceEurCents: 50_000 });
    const runs = [];
    for (const [label, key, examples] of [
      ['full key', target.fullKey, 60],
      ['read-only key', target.readKey, 25],
    ] as const) {
      let run = await runSchemathesis(schemathesis, key, examples, seed);
      // A crash inside the tool itself (CPython 3.11's ast failing in hypothesis's own code while it describes a
      // strategy of the coverage phase, "AST constructor recursion depth mismatch") says nothing about the API.
      // It recurs for the same operation, so the run is repeated once with the next seed and without the coverage
      // phase; examples, fuzzing and the stateful phase still run every check. Any failed check fails the test.
      if (run.exitCode !== 0 && toolCrashedWithoutFindings(run.output))
        run = await runSchemathesis(schemathesis, key, examples, seed + 1, 'examples,fuzzing,stateful');
      // The assertion shows the report's tail only; the whole of it stays beside the services' log.
      if (run.exitCode !== 0)
        fs.writeFileSync(path.join(path.dirname(stack.logFile), `schemathesis-${label.replace(/\W+/g, '-')}.txt`), run.output);
      runs.push({ label, ...run });
    }
    const report = await load.stop();
    const loadRedelivered = await redeliver(stack, report.undelivered);
    const verdict = await verifyAfterFault(stack, {
      customers: [...loadCustomers, fuzz],
      batchIds: report.batchIds,
      credits: [...report.acknowledgedCredits, ...loadRedelivered],
      debits: report.acknowledgedDebits,
    });
    const schemathesisCases = runs.reduce((sum, run) => sum + run.cases, 0);
    recordAndAssert(stack, {
      fault: '9. bad input: fast-check properties + schemathesis --checks all',
      seed,
      startedAtMs,
      load: report,
      scenarioRequests: requests + schemathesisCases,
      scenarioErrors: kinds,
      verdict,
      notes: runs
        .map(
          (run) =>
            `schemathesis ${run.label} (examples, coverage, fuzzing and stateful phases, every check but positive_data_acceptance): exit ${run.exitCode}, ${run.summary}`,
        )
        .join('; '),
    });
    expect(wrong).toEqual([]);
    expect(Object.keys(kinds).filter((kind) => !/^4\d\d/.test(kind))).toEqual([]);
    expect(afterProperties).toEqual(before);
    expect(ownerAfter).toEqual(ownerBefore);
    for (const run of runs) expect(run.exitCode, `schemathesis with the ${run.label}:\n${run.output.slice(-6_000)}`).toBe(0);
    // Its work is a fixed number of examples, not a time: on a busy machine it takes longer than the suite's 180 s.
  }, 360_000);

  it('10. security: keys hashed, read-only key refused on every write route, other customers invisible, changed postbacks refused', async () => {
    const seed = seedFromEnvironment('security');
    const startedAtMs = Date.now();
    const load = startLoad(stack, loadOptions(seed));
    const kinds: Record<string, number> = {};
    let requests = 0;
    const call = async (key: string, method: string, route: string, body?: unknown) => {
      const answer = await stack.api(key, method, route, body);
      requests += 1;
      if (answer.status >= 400 || answer.status === 0) tally(kinds, errorKind(answer));
      return answer;
    };

    // Keys are stored as SHA-256 digests only: no collection of any service holds a key in clear.
    const keys = [owner.fullKey, owner.readKey, stranger.fullKey, stranger.readKey];
    for (const key of keys) {
      const stored = await stack.gatewayStore.apiKeys.findOne({ _id: crypto.createHash('sha256').update(key).digest('hex') });
      expect(stored, 'a key is found by its digest').not.toBeNull();
    }
    const leaks: string[] = [];
    for (const service of ['gateway', 'wallet', 'payments', 'billing', 'execution', 'broker_sim', 'crypto_sandbox']) {
      const database = stack.mongo.db(databaseName(stack.prefix, service));
      for (const { name } of await database.listCollections({}, { nameOnly: true }).toArray()) {
        for await (const document of database.collection(name).find({})) {
          const text = JSON.stringify(document);
          for (const key of keys)
            if (text.includes(key) || text.includes(key.slice(3))) leaks.push(`${service}.${name} ${String(document._id)}`);
        }
      }
    }
    const logText = fs.readFileSync(stack.logFile, 'utf8');
    for (const key of keys) if (logText.includes(key.slice(3))) leaks.push(`service log contains a key`);

    // Every write route of the OpenAPI document refuses a read-only key, and changes nothing.
    const ownerBefore = await footprint(owner);
    const exampleBodies: Record<string, unknown> = {
      'POST /v1/wallet/topup': { amount_eur_cents: 1_000, asset_code: 'USDT', blockchain_code: 'TRON' },
      'PATCH /v1/subscription': { cancel_at_period_end: true },
      'POST /v1/servers': { plan: 'vps-small', label: 'read-only attempt' },
      'POST /v1/accounts': { platform: 'mt5', server: 'AlphaFX-Live', login: '99887766', password: 'secret' },
      'POST /v1/orders': { orders: [{ account_id: owned.accountId, symbol: owner.accounts[0]!.symbol, operation: 'buy', volume: 0.1 }] },
      'POST /v1/orders/close': { accounts: [{ account_id: owned.accountId, symbol: '*' }] },
      'PATCH /v1/accounts/{account_id}/settings': { max_open_positions: 5 },
    };
    const idsByPath: Record<string, Record<string, string | number>> = {
      '/v1/wallet/topup/{id}': { id: owned.topupId },
      '/v1/servers/{id}': { id: owned.serverId },
      '/v1/accounts/{account_id}': { account_id: owned.accountId },
      '/v1/accounts/{account_id}/state': { account_id: owned.accountId },
      '/v1/accounts/{account_id}/settings': { account_id: owned.accountId },
      '/v1/orders/batches/{batch_id}': { batch_id: owned.batchId },
      '/v1/webhook_endpoints/{id}': { id: owned.webhookEndpointId },
      '/v1/webhook_endpoints/{id}/test': { id: owned.webhookEndpointId },
      '/v1/hooks/payments/{provider}': { provider: 'sandbox' },
    };
    const fill = (template: string) => {
      const values = idsByPath[template];
      return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
        if (!values || values[name] === undefined)
          throw new Error(`the suite has no id for {${name}} in ${template}: add the route to idsByPath so it is checked`);
        return String(values[name]);
      });
    };
    const writeOperations: string[] = [];
    const publicWrites: string[] = [];
    const readOnlyAnswers: string[] = [];
    for (const [template, methods] of Object.entries(openapi.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (!['post', 'put', 'patch', 'delete'].includes(method)) continue;
        const name = `${method.toUpperCase()} ${template}`;
        if (Array.isArray(operation.security) && operation.security.length === 0) {
          publicWrites.push(name);
          continue;
        }
        writeOperations.push(name);
        const answer = await call(owner.readKey, method.toUpperCase(), fill(template), exampleBodies[name] ?? {});
        readOnlyAnswers.push(`${name} → ${answer.status} ${answer.body?.error?.code ?? ''}`.trim());
      }
    }
    const ownerAfterReadOnly = await footprint(owner);

    // Every path with an id, from the document: another customer gets 404 with either key and changes nothing.
    const crossAnswers: string[] = [];
    for (const [template, methods] of Object.entries(openapi.paths)) {
      if (!template.includes('{')) continue;
      for (const [method, operation] of Object.entries(methods)) {
        if (Array.isArray(operation.security) && operation.security.length === 0) continue;
        const key = method === 'get' ? stranger.readKey : stranger.fullKey;
        const body = method === 'get' || method === 'delete' ? undefined : (exampleBodies[`${method.toUpperCase()} ${template}`] ?? {});
        const answer = await call(key, method.toUpperCase(), fill(template), body);
        crossAnswers.push(`${method.toUpperCase()} ${template} → ${answer.status}`);
        if (method === 'get') {
          const own = await call(owner.readKey, 'GET', fill(template));
          crossAnswers.push(`(owner) GET ${template} → ${own.status}`);
        }
      }
    }
    // References inside bodies: another customer's account in a batch is refused before anything is sent.
    const foreignOrders = await call(stranger.fullKey, 'POST', '/v1/orders', {
      orders: [{ account_id: owned.accountId, symbol: owner.accounts[0]!.symbol, operation: 'buy', volume: 0.1 }],
    });
    const foreignClose = await call(stranger.fullKey, 'POST', '/v1/orders/close', {
      accounts: [{ account_id: owned.accountId, symbol: '*' }],
    });
    const ownerAfterCross = await footprint(owner);

    // The postback endpoint: a valid signature over a changed body, or an old one replayed, is refused and writes nothing.
    const topup = await stack.createTopup(owner, 2_000);
    const transactionId = `replay-${seed}-${crypto.randomBytes(3).toString('hex')}`;
    const genuine = stack.postbackBody(topup, transactionId, topup.depositUnits / 2n, 'confirmed');
    const signature = stack.sign(genuine);
    const changedBodies = [
      genuine.replace(`"amount":"${topup.depositUnits / 2n}"`, `"amount":"${topup.depositUnits}"`),
      genuine.replace(transactionId, `${transactionId}x`),
      `${genuine} `,
      genuine.replace('"status":"confirmed"', '"status":"confirmed" '),
    ];
    const replayAnswers: string[] = [];
    for (const body of changedBodies) {
      const answer = await stack.postback(body, signature);
      requests += 1;
      tally(kinds, errorKind(answer));
      replayAnswers.push(`${answer.status}`);
    }
    const ledgerBeforeGenuine = await stack.ledgerEntries({ entry_id: { $regex: `^topup:sandbox:${transactionId}` } });
    const accepted = await stack.postback(genuine, signature);
    const exactReplay = await stack.postback(genuine, signature);
    const stale = JSON.stringify({
      ...(JSON.parse(genuine) as object),
      timestamp: new Date(Date.now() - 10 * 60_000).toISOString(),
      transaction: { ...(JSON.parse(genuine) as { transaction: object }).transaction, id: `${transactionId}-stale` },
    });
    const staleAnswer = await stack.postback(stale, stack.sign(stale));
    requests += 3;
    tally(kinds, errorKind(staleAnswer));
    // The genuine postback's credit follows its acknowledgement from the inbox.
    await stack.inboxDrained(15_000);
    const ledgerAfter = await stack.ledgerEntries({ entry_id: { $regex: `^topup:sandbox:${transactionId}` } });

    const report = await load.stop();
    const loadRedelivered = await redeliver(stack, report.undelivered);
    const verdict = await verifyAfterFault(stack, {
      customers: [...loadCustomers, owner, stranger],
      batchIds: [...report.batchIds, owned.batchId],
      credits: [...report.acknowledgedCredits, ...loadRedelivered],
      debits: report.acknowledgedDebits,
    });
    recordAndAssert(stack, {
      fault: '10. security: hashed keys, read-only writes, cross-customer, postback replay',
      seed,
      startedAtMs,
      load: report,
      scenarioRequests: requests,
      scenarioErrors: kinds,
      verdict,
      notes: `${writeOperations.length} write operations refused to a read-only key; public writes: ${publicWrites.join(', ')}; ${crossAnswers.length} cross-customer checks`,
    });
    expect(leaks).toEqual([]);
    expect(writeOperations.length).toBeGreaterThanOrEqual(Object.keys(exampleBodies).length + 2);
    expect(readOnlyAnswers).toEqual(writeOperations.map((name) => `${name} → 403 forbidden`));
    // The provider's postback is the only write without a key; a new public write route fails here until reviewed.
    expect(publicWrites).toEqual(['POST /v1/hooks/payments/{provider}']);
    expect(ownerAfterReadOnly).toEqual(ownerBefore);
    for (const line of crossAnswers) {
      if (line.startsWith('(owner)')) expect(line).toMatch(/→ 200$/);
      else expect(line).toMatch(/→ 404$/);
    }
    expect(errorKind(foreignOrders)).toBe('400 unknown_account');
    expect(errorKind(foreignClose)).toBe('400 unknown_account');
    expect(ownerAfterCross).toEqual(ownerBefore);
    expect(replayAnswers).toEqual(changedBodies.map(() => '401'));
    expect(ledgerBeforeGenuine).toEqual([]);
    expect(accepted.status).toBe(200);
    expect(exactReplay.status).toBe(200);
    expect(accepted.body.outcome).toBe('recorded');
    expect(exactReplay.body.outcome).toBe('duplicate');
    expect(errorKind(staleAnswer)).toBe('401 unauthenticated');
    expect(ledgerAfter.map((entry) => entry.entry_id)).toEqual([`topup:sandbox:${transactionId}`]);
  });

  it('11. unauthenticated floods: made-up keys cost no lookup and no more than malformed ones, past the per-address limit 429, legitimate reads unharmed', async () => {
    const seed = seedFromEnvironment('key floods');
    const startedAtMs = Date.now();
    const authFailuresPerMinute = 30;
    // A gateway replica as deployed behind a proxy: the per-address limit on, metrics served, X-Forwarded-For believed.
    const gateway = await stack.startReplica('gateway', 'gateway-flood', {
      AUTH_FAILURES_PER_MINUTE: String(authFailuresPerMinute),
      TRUSTED_PROXIES: '127.0.0.1',
      OTEL_SDK_DISABLED: 'false',
      PROMETHEUS_METRICS: 'true',
      API_KEY_CACHE_MS: '60000',
    });
    const load = startLoad(stack, loadOptions(seed, { durationMs: 15_000, concurrency: 1 }));
    const cpuMs = () => {
      const fields = fs.readFileSync(`/proc/${gateway.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    };
    const lookups = async () => {
      const text = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
      const line = text.split('\n').find((entry) => entry.startsWith('mtx_gateway_auth_lookups'));
      return Number(line?.split(' ').pop() ?? Number.NaN);
    };
    const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const madeUp = () => `sk_${Array.from(crypto.randomBytes(46), (byte) => base62[byte % 62]).join('')}`;
    const malformed = () => `sk_${crypto.randomBytes(8).toString('hex')}!`;
    // Past the per-address limit, so every flooding address is refused 429 in the end.
    const floodPerAddressMin = authFailuresPerMinute + 5;
    const get = (key: string, client: string) =>
      stack.request('GET', `${gateway.address}/v1/wallet`, { key, headers: { 'x-forwarded-for': client } });

    /**
     * 4 legitimate readers, and 32 flooding connections from 64 addresses of `network` when `flood` makes keys, for
     * `durationMs`; a flood goes on (up to 5 times as long) until every address has sent more than the per-address
     * limit, so a machine slow enough to send fewer in the time still meets the limit.
     */
    async function phase(durationMs: number, flood?: () => string, network = '') {
      const until = Date.now() + durationMs;
      const hardStop = Date.now() + durationMs * 5;
      const perAddress = new Array<number>(64).fill(0);
      const floodGoesOn = () => Date.now() < until || (Date.now() < hardStop && Math.min(...perAddress) <= floodPerAddressMin);
      const legit: number[] = [];
      let legitErrors = 0;
      const floodStatuses: Record<string, number> = {};
      let floodRequests = 0;
      const cpuBefore = cpuMs();
      const lookupsBefore = await lookups();
      const readers = Array.from({ length: 4 }, async () => {
        while (flood ? floodGoesOn() : Date.now() < until) {
          const started = performance.now();
          const answer = await get(owner.readKey, '198.51.100.1');
          legit.push(performance.now() - started);
          if (answer.status !== 200) legitErrors += 1;
        }
      });
      const flooders = flood
        ? Array.from({ length: 32 }, async (_, worker) => {
            for (let index = 0; floodGoesOn(); index++) {
              const address = (worker * 2 + (index % 2)) % 64;
              perAddress[address] = (perAddress[address] ?? 0) + 1;
              const answer = await get(flood(), `${network}.${address}`);
              floodRequests += 1;
              tally(floodStatuses, String(answer.status));
            }
          })
        : [];
      await Promise.all([...readers, ...flooders]);
      const sorted = legit.sort((left, right) => left - right);
      const at = (fraction: number) =>
        Math.round((sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN) * 10) / 10;
      return {
        legitP50: at(0.5),
        legitP99: at(0.99),
        legitReads: sorted.length,
        legitErrors,
        floodRequests,
        floodStatuses,
        cpuPerFloodRequestMs: floodRequests ? (cpuMs() - cpuBefore) / floodRequests : 0,
        lookups: (await lookups()) - lookupsBefore,
      };
    }

    await get(owner.readKey, '198.51.100.1'); // the legitimate key is looked up once and cached
    const alone = await phase(3_000);
    // Each flood from addresses of its own, so the second does not start already past the limit.
    const malformedFlood = await phase(4_000, malformed, '203.0.113');
    const madeUpFlood = await phase(4_000, madeUp, '192.0.2');
    await stack.stopReplica(gateway.name);
    const report = await load.stop();
    const verdict = await verifyAfterFault(stack, {
      customers: loadCustomers,
      batchIds: report.batchIds,
      credits: report.acknowledgedCredits,
      debits: report.acknowledgedDebits,
    });
    const kinds: Record<string, number> = {};
    for (const [status, count] of Object.entries({ ...malformedFlood.floodStatuses })) kinds[`malformed ${status}`] = count;
    for (const [status, count] of Object.entries({ ...madeUpFlood.floodStatuses })) kinds[`made-up ${status}`] = count;
    recordAndAssert(stack, {
      fault: '11. unauthenticated floods (32 connections, 64 addresses)',
      seed,
      startedAtMs,
      load: report,
      scenarioRequests:
        alone.legitReads + malformedFlood.legitReads + madeUpFlood.legitReads + malformedFlood.floodRequests + madeUpFlood.floodRequests,
      scenarioErrors: kinds,
      verdict,
      notes:
        `legitimate GET /v1/wallet p50/p99 ms: alone ${alone.legitP50}/${alone.legitP99}, malformed flood ${malformedFlood.legitP50}/${malformedFlood.legitP99}, made-up flood ${madeUpFlood.legitP50}/${madeUpFlood.legitP99}; ` +
        `gateway CPU per flood request ${malformedFlood.cpuPerFloodRequestMs.toFixed(3)} ms malformed, ${madeUpFlood.cpuPerFloodRequestMs.toFixed(3)} ms made-up; store lookups during the made-up flood ${madeUpFlood.lookups}`,
    });
    expect([alone.legitErrors, malformedFlood.legitErrors, madeUpFlood.legitErrors]).toEqual([0, 0, 0]);
    expect(madeUpFlood.lookups).toBe(0);
    expect(madeUpFlood.floodStatuses['429'] ?? 0).toBeGreaterThan(0);
    expect(Object.keys(madeUpFlood.floodStatuses).sort()).toEqual(['401', '429']);
    // The checksum is one SHA-256 of 46 bytes more than the pattern check: within the noise of a shared machine.
    expect(madeUpFlood.cpuPerFloodRequestMs).toBeLessThanOrEqual(malformedFlood.cpuPerFloodRequestMs * 1.5 + 0.02);
  });
});

/** The `st` executable of a pinned schemathesis, installed from PyPI with pip when it is missing. */
function ensureSchemathesis(): string {
  const installed = spawnSync(
    'python3',
    ['-c', 'import schemathesis, sysconfig; print(schemathesis.__version__); print(sysconfig.get_path("scripts"))'],
    { encoding: 'utf8' },
  );
  const [version, scripts] = installed.stdout.trim().split('\n');
  if (installed.status !== 0 || version !== schemathesisVersion) {
    const pip = spawnSync(
      'python3',
      ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', `schemathesis==${schemathesisVersion}`],
      { encoding: 'utf8', timeout: 240_000 },
    );
    if (pip.status !== 0) throw new Error(`could not install schemathesis ${schemathesisVersion} from PyPI: ${pip.stderr.slice(-2_000)}`);
    return ensureSchemathesis();
  }
  const executable = path.join(scripts!, 'st');
  if (!fs.existsSync(executable)) throw new Error(`schemathesis ${schemathesisVersion} is installed but ${executable} is missing`);
  return executable;
}

/** schemathesis stopped on an exception in its own Python code (hypothesis, ast) before reporting any failed check. */
function toolCrashedWithoutFindings(output: string): boolean {
  const crashedInTool = /Runtime Error/.test(output) && /site-packages\/hypothesis\/|lib\/python3\.\d+\/ast\.py/.test(output);
  return crashedInTool && !/=+ FAILURES =+/.test(output) && !/❌/.test(output);
}

/** One bounded schemathesis run; a process that overruns its budget is killed and reported as a failure. */
async function runSchemathesis(
  executable: string,
  key: string,
  examples: number,
  seed: number,
  phases = 'examples,coverage,fuzzing,stateful',
): Promise<{ exitCode: number | null; output: string; cases: number; summary: string }> {
  // A negative case may be refused for its size before any schema is read: 413 (body), 414 (a path segment past
  // the router's limit) and 431 (request line and headers past the HTTP parser's) are documented rejections too,
  // which schemathesis's default list for negative_data_rejection leaves out.
  const configFile = path.join(os.tmpdir(), `schemathesis-${process.pid}.toml`);
  fs.writeFileSync(
    configFile,
    '[checks.negative_data_rejection]\nexpected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "414", "415", "422", "428", "429", "431", "5xx"]\n',
  );
  const args = [
    '--config-file',
    configFile,
    'run',
    `${stack.gatewayUrl}/openapi.json`,
    '--url',
    stack.gatewayUrl,
    // Every check but positive_data_acceptance, which would need every valid-looking request to be accepted:
    // refusals that depend on state the schema cannot know (a balance that cannot pay, an account that is
    // not the customer's, a top-up's asset/chain pair not offered for that amount) are documented 4xx instead.
    '--checks',
    'all',
    '--exclude-checks',
    'positive_data_acceptance',
    // The stateful phase follows the document's links: top-up → its status, batch → stored batch, server and
    // account → their removal.
    '--phases',
    phases,
    '--header',
    `Authorization: Bearer ${key}`,
    '--max-examples',
    String(examples),
    '--seed',
    String(seed),
    '--workers',
    '2',
    '--request-timeout',
    '15',
    '--no-color',
  ];
  const child = spawn(executable, args, {
    env: { ...process.env, SCHEMATHESIS_TELEMETRY: 'false', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  clearTimeout(timer);
  fs.rmSync(configFile, { force: true });
  const generated = /(\d+) generated/.exec(output);
  const summaryLine =
    output
      .split('\n')
      .find((line) => / generated, /.test(line))
      ?.trim() ?? 'no summary';
  // Output never shows the key in full (schemathesis sanitizes Authorization), but strip it anyway before printing.
  return { exitCode, output: output.replaceAll(key, '<key>'), cases: generated ? Number(generated[1]) : 0, summary: summaryLine };
}
