import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@mtx/shared/errors';
import type { Subscription } from 'nats';
import { eventually } from '@mtx/shared/testing';
import { plain, startExecutionStack, type ExecutionStack } from './stack';

let stack: ExecutionStack;
const customer = 'cus_exec_main';
const otherCustomer = 'cus_exec_other';
const accounts: Record<string, { id: string; server: string; login: string; platform: string; symbol_suffix: string }> = {};
let loginSequence = 61_000;

async function connect(customerId: string, platform: 'mt4' | 'mt5', server: string, label: string) {
  const login = String(++loginSequence);
  const account = await stack.client.call('CreateAccount', {
    customer_id: customerId,
    platform,
    server,
    login,
    password: `pw-${login}`,
    label,
  });
  return { ...account, login };
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

const received = async () => (await stack.control('/control/stats')).body.trade_requests_received as number;

function place(orders: Array<Record<string, unknown>>, defaults?: Record<string, unknown>, customerId = customer) {
  return stack.client
    .call('PlaceOrders', { customer_id: customerId, defaults, orders: orders.map(({ account_id, ...fields }) => ({ account_id, fields })) })
    .then(plain);
}

/** Rewrites a stored batch as the versions that wrote it ahead stored it: without its outcomes, kept apart. */
async function storeWithoutOutcomes(batchId: string): Promise<void> {
  const { batches } = stack.execution.store;
  const {
    results_json: _results,
    source: _source,
    written_at: _writtenAt,
    ...batch
  } = (await batches.collection.findOne({ _id: batchId }))!;
  await batches.collection.deleteOne({ _id: batchId });
  await batches.collection.insertOne(batch);
}

beforeAll(async () => {
  stack = await startExecutionStack({
    label: 'exec',
    connectorEnv: { BROKER_CALL_DEADLINE_MS: '4000' },
    executionEnv: { BATCHES_IN_FLIGHT_MAX: '2' },
  });
  await stack.control('/control/prices', 'POST', { frozen_all: true });
  await stack.control('/control/prices', 'POST', { symbol: 'EURUSD', bid: 1.1, frozen: true });
  accounts.alpha = await connect(customer, 'mt5', 'AlphaFX-Live', 'alpha hedging');
  accounts.beta = await connect(customer, 'mt5', 'BetaMarkets-Server', 'beta netting');
  accounts.gamma = await connect(customer, 'mt4', 'GammaTrade-Real', 'gamma');
  accounts.delta = await connect(customer, 'mt4', 'DeltaPrime-ECN', 'delta');
  accounts.foreign = await connect(otherCustomer, 'mt5', 'AlphaFX-Live', 'not yours');
});

afterAll(async () => stack?.close());

describe('account registry', () => {
  it("connects accounts with the broker server's symbol suffix and margin mode, and lists them in order", async () => {
    expect([
      accounts.alpha!.symbol_suffix,
      accounts.beta!.symbol_suffix,
      accounts.gamma!.symbol_suffix,
      accounts.delta!.symbol_suffix,
    ]).toEqual(['', '.xx', 'm', '-ecn']);
    expect((accounts.beta as any).margin_mode).toBe('netting');
    const list = await stack.client.call('ListAccounts', { customer_id: customer });
    expect(list.accounts.map((account: { id: string }) => account.id)).toEqual(
      ['alpha', 'beta', 'gamma', 'delta'].map((name) => accounts[name]!.id),
    );
    expect(JSON.stringify(list)).not.toContain('pw-');
    expect((await stack.client.call('ListAccounts', { customer_id: otherCustomer })).accounts).toHaveLength(1);
  });

  it("lists the trade servers the running terminals reach, with each broker's suffix", async () => {
    const { servers } = await stack.client.call('ListServers', {});
    const byName = Object.fromEntries(
      servers.map((server: { name: string; platform: string; symbol_suffix: string }) => [
        server.name,
        [server.platform, server.symbol_suffix],
      ]),
    );
    expect(byName).toEqual({
      'AlphaFX-Live': ['mt5', ''],
      'BetaMarkets-Server': ['mt5', '.xx'],
      'GammaTrade-Real': ['mt4', 'm'],
      'DeltaPrime-ECN': ['mt4', '-ecn'],
      'OmegaCapital-Demo': ['mt4', ''],
    });
  });

  it('stores passwords sealed and never returns them', async () => {
    const stored = await stack.execution.store.accounts.findOne({ _id: accounts.alpha!.id });
    expect(JSON.stringify(stored)).not.toContain(`pw-${accounts.alpha!.login}`);
    expect(stored!.password.tag).toBeTruthy();
    const fetched = await stack.client.call('GetAccount', { customer_id: customer, account_id: accounts.alpha!.id });
    expect(Object.keys(fetched)).not.toContain('password');
  });

  it("answers 404 for another customer's account and refuses bad logins, unknown servers and duplicates", async () => {
    expect((await rejection(stack.client.call('GetAccount', { customer_id: customer, account_id: accounts.foreign!.id }))).code).toBe(
      'not_found',
    );
    expect((await rejection(stack.client.call('DeleteAccount', { customer_id: customer, account_id: accounts.foreign!.id }))).code).toBe(
      'not_found',
    );
    const duplicate = await rejection(
      stack.client.call('CreateAccount', {
        customer_id: customer,
        platform: 'mt5',
        server: 'AlphaFX-Live',
        login: accounts.alpha!.login,
        password: `pw-${accounts.alpha!.login}`,
      }),
    );
    expect(duplicate.code).toBe('conflict');
    const badPassword = await rejection(
      stack.client.call('CreateAccount', {
        customer_id: 'cus_exec_third',
        platform: 'mt5',
        server: 'AlphaFX-Live',
        login: accounts.alpha!.login,
        password: 'wrong',
      }),
    );
    expect([badPassword.code, badPassword.param]).toEqual(['invalid_request', 'password']);
    const unknownServer = await rejection(
      stack.client.call('CreateAccount', { customer_id: customer, platform: 'mt5', server: 'Nowhere-Live', login: '1', password: 'x' }),
    );
    expect([unknownServer.code, unknownServer.param]).toEqual(['invalid_request', 'server']);
    const wrongPlatform = await rejection(
      stack.client.call('CreateAccount', { customer_id: customer, platform: 'mt4', server: 'AlphaFX-Live', login: '77', password: 'x' }),
    );
    expect([wrongPlatform.code, wrongPlatform.param]).toEqual(['invalid_request', 'platform']);
  });

  it('disconnects an account: gone from the list, 404 afterwards, and its login can be connected again', async () => {
    const extra = await connect(customer, 'mt5', 'AlphaFX-Live', 'short-lived');
    const deleted = await stack.client.call('DeleteAccount', { customer_id: customer, account_id: extra.id });
    expect(deleted.id).toBe(extra.id);
    expect((await rejection(stack.client.call('GetAccount', { customer_id: customer, account_id: extra.id }))).code).toBe('not_found');
    const list = await stack.client.call('ListAccounts', { customer_id: customer });
    expect(list.accounts.map((account: { id: string }) => account.id)).not.toContain(extra.id);
    const again = await stack.client.call('CreateAccount', {
      customer_id: customer,
      platform: 'mt5',
      server: 'AlphaFX-Live',
      login: extra.login,
      password: `pw-${extra.login}`,
    });
    await stack.client.call('DeleteAccount', { customer_id: customer, account_id: again.id });
  });
});

describe('placing orders', () => {
  it('fills, places and rejects with the right retcode names, and stores the batch as returned', async () => {
    const response = await place(
      [
        { account_id: accounts.alpha!.id, symbol: 'EURUSD' },
        { account_id: accounts.beta!.id, symbol: 'EURUSD.xx', operation: 'buyLimit', price: 1.05 },
        { account_id: accounts.gamma!.id, symbol: 'EURUSDm', volume: 45 },
        { account_id: accounts.gamma!.id, symbol: 'EURUSDm', stop_loss: 1.2 },
        { account_id: accounts.delta!.id, symbol: 'EURUSD-ecn', volume: 0.15 },
        { account_id: accounts.delta!.id, symbol: 'EURUSD-ecn', operation: 'buyStopLimit', price: 1.2, stop_limit_price: 1.19 },
        { account_id: accounts.alpha!.id, symbol: 'EURUSD', operation: 'sellStopLimit', price: 1.05, stop_limit_price: 1.051 },
      ],
      { operation: 'buy', volume: 0.1 },
    );
    expect(response.results.map((result: any) => [result.status, result.retcode_description ?? null])).toEqual([
      ['filled', 'TRADE_RETCODE_DONE'],
      ['placed', 'TRADE_RETCODE_PLACED'],
      ['rejected', 'TRADE_RETCODE_NO_MONEY'],
      ['rejected', 'TRADE_RETCODE_INVALID_STOPS'],
      ['rejected', 'TRADE_RETCODE_INVALID_VOLUME'],
      ['rejected', 'TRADE_RETCODE_INVALID_ORDER'],
      ['placed', 'TRADE_RETCODE_PLACED'],
    ]);
    expect(response.summary).toEqual({ requested: 7, filled: 1, placed: 2, failed: 4, unknown: 0 });
    expect(response.results[0]).toMatchObject({ platform: 'mt5', price: 1.10012, bid: 1.1, ask: 1.10012, message: '' });
    expect(response.results[0].order).toBeGreaterThan(0);
    expect(response.results[2].price).toBeUndefined();
    const stored = plain(await stack.client.call('GetBatch', { customer_id: customer, batch_id: response.batch_id }));
    expect(stored).toMatchObject({ batch_id: response.batch_id, kind: 'orders', settled: true, orders_summary: response.summary });
    expect(stored.orders).toEqual(response.results);
    expect((await rejection(stack.client.call('GetBatch', { customer_id: otherCustomer, batch_id: response.batch_id }))).code).toBe(
      'not_found',
    );
    // A batch and all of its outcomes are one stored document.
    const recorded = await stack.execution.store.batches.findOne({ _id: response.batch_id });
    expect(recorded?.results).toEqual(JSON.parse(JSON.stringify(response.results)));
    expect(await stack.execution.store.outcomes.countDocuments({ _id: { $regex: `^${response.batch_id}` } })).toBe(0);
    // Stored packed: one JSON field instead of a nested document per leg (FerretDB's cost is per field).
    const rawBatch = await stack.execution.store.batches.collection.findOne({ _id: response.batch_id });
    expect(typeof rawBatch?.results_json).toBe('string');
    expect(rawBatch?.results).toBeUndefined();
    expect(JSON.parse(rawBatch?.legs_json as string)).toHaveLength(7);
  });

  it('answers before its open-batch marker is removed; a marker left behind is cleared by recovery, outcomes untouched', async () => {
    const response = await place([{ account_id: accounts.alpha!.id, symbol: 'EURUSD' }], { operation: 'buy', volume: 0.1 });
    await eventually(async () => (await stack.execution.store.openBatches.findOne({ _id: response.batch_id })) === null, 3_000);
    // As if the removal had been lost (the process stopped right after answering): the marker is back, long past.
    await stack.execution.store.openBatches.collection.insertOne({
      _id: response.batch_id,
      created_at: new Date(Date.now() - 3_600_000),
      deadline_at: new Date(Date.now() - 3_600_000),
    });
    await stack.client.call('Reconcile', { batch_id: response.batch_id });
    expect(await stack.execution.store.openBatches.findOne({ _id: response.batch_id })).toBeNull();
    const stored = plain(await stack.client.call('GetBatch', { customer_id: customer, batch_id: response.batch_id }));
    expect(stored.orders).toEqual(response.results);
    expect(await stack.execution.store.unsettled.countDocuments({ batch_id: response.batch_id })).toBe(0);
  });

  it('keeps open markers in a database of their own, and recovery moves one left where they used to be', async () => {
    const { openBatches, formerOpenBatches, formerOpenMarkers } = stack.execution.store;
    expect(openBatches.collection.dbName).not.toBe(formerOpenBatches.dbName);
    // Markers without their batch, as the versions that wrote the batch apart left them: beside the batches, then
    // in the markers' database.
    for (const former of [formerOpenBatches, formerOpenMarkers]) {
      const response = await place([{ account_id: accounts.alpha!.id, symbol: 'EURUSD' }], { operation: 'buy', volume: 0.1 });
      await eventually(async () => (await openBatches.findOne({ _id: response.batch_id })) === null, 3_000);
      // A batch whose outcomes such a version never stored: its marker is there.
      await storeWithoutOutcomes(response.batch_id);
      await former.insertOne({
        _id: response.batch_id,
        created_at: new Date(Date.now() - 3_600_000),
        deadline_at: new Date(Date.now() - 3_600_000),
      });
      await stack.client.call('Reconcile', { batch_id: response.batch_id });
      expect(await former.countDocuments({ _id: response.batch_id })).toBe(0);
      expect(await openBatches.countDocuments({ _id: response.batch_id })).toBe(0);
      // Recovered: the leg it never stored became unknown, and reconciliation found its fill at the broker.
      await eventually(async () => {
        await stack.client.call('Reconcile', { batch_id: response.batch_id });
        const batch = plain(await stack.client.call('GetBatch', { customer_id: customer, batch_id: response.batch_id }));
        return batch.orders[0].status === 'filled' && batch.settled === true;
      }, 10_000);
      expect(await stack.execution.store.outcomes.collection.countDocuments({ _id: response.batch_id })).toBe(1);
    }
  });

  it('recovers a batch known only by its write-ahead (the process died in the fan-out): stored, its leg reconciled once', async () => {
    const response = await place([{ account_id: accounts.alpha!.id, symbol: 'EURUSD' }], { operation: 'buy', volume: 0.1 });
    expect(response.results[0].status).toBe('filled');
    const { openBatches, batches } = stack.execution.store;
    await eventually(async () => (await openBatches.findOne({ _id: response.batch_id })) === null, 3_000);
    // What a process that died after sending leaves: the batch in flight, whole, and nothing stored.
    const recorded = (await batches.findOne({ _id: response.batch_id }))!;
    expect(recorded.legs).toHaveLength(1);
    await batches.deleteOne({ _id: response.batch_id });
    const past = new Date(Date.now() - 3_600_000);
    const { _id, customer_id, kind, legs } = recorded;
    await openBatches.insertMany([{ _id, customer_id, kind, legs, created_at: past, deadline_at: past }], { ordered: false });
    // Read from its write-ahead meanwhile: its customer's, the leg not yet known.
    const inFlight = plain(await stack.client.call('GetBatch', { customer_id: customer, batch_id: response.batch_id }));
    expect(inFlight.orders[0].status).toBe('unknown');
    await eventually(async () => {
      await stack.client.call('Reconcile', { batch_id: response.batch_id });
      const batch = plain(await stack.client.call('GetBatch', { customer_id: customer, batch_id: response.batch_id }));
      return batch.orders[0].status === 'filled' && batch.settled === true;
    }, 10_000);
    // Stored with its outcomes in one document, as a batch that finished is.
    const stored = await batches.findOne({ _id: response.batch_id });
    expect(stored?.legs).toEqual(recorded.legs);
    expect(stored?.results).toHaveLength(1);
    expect(await stack.execution.store.outcomes.countDocuments({ _id: response.batch_id })).toBe(0);
    expect(await openBatches.findOne({ _id: response.batch_id })).toBeNull();
    expect(await stack.execution.store.settlements.countDocuments({ batch_id: response.batch_id })).toBe(1);
    expect(await stack.execution.store.unsettled.countDocuments({ batch_id: response.batch_id })).toBe(0);
  });

  it('gives an unknown leg stored without its reconciliation row (the store failed mid-write) a row at recovery, and settles it', async () => {
    const response = await place([{ account_id: accounts.alpha!.id, symbol: 'EURUSD' }], { operation: 'buy', volume: 0.1 });
    expect(response.results[0].status).toBe('filled');
    await eventually(async () => (await stack.execution.store.openBatches.findOne({ _id: response.batch_id })) === null, 3_000);
    // What a store that died between the outcome's insert and its unsettled rows leaves: the leg stored as
    // unknown (old per-leg layout, so the test can write it), no row for reconciliation, the marker still there.
    const unknown = { ...JSON.parse(JSON.stringify(response.results[0])), status: 'unknown' };
    await storeWithoutOutcomes(response.batch_id);
    await stack.execution.store.outcomes.collection.insertOne({
      _id: `${response.batch_id}:0`,
      batch_id: response.batch_id,
      index: 0,
      result: unknown,
      source: 'reply',
      written_at: new Date(),
    });
    await stack.execution.store.openBatches.collection.insertOne({
      _id: response.batch_id,
      created_at: new Date(Date.now() - 3_600_000),
      deadline_at: new Date(Date.now() - 3_600_000),
    });
    expect(plain(await stack.client.call('GetBatch', { customer_id: customer, batch_id: response.batch_id })).orders[0].status).toBe(
      'unknown',
    );
    // Recovery gives the leg its row, and reconciliation finds the fill at the broker: filled, once.
    await eventually(async () => {
      await stack.client.call('Reconcile', { batch_id: response.batch_id });
      const batch = plain(await stack.client.call('GetBatch', { customer_id: customer, batch_id: response.batch_id }));
      return batch.orders[0].status === 'filled' && batch.settled === true;
    }, 10_000);
    expect(await stack.execution.store.openBatches.findOne({ _id: response.batch_id })).toBeNull();
    expect(await stack.execution.store.unsettled.countDocuments({ batch_id: response.batch_id })).toBe(0);
    expect(await stack.execution.store.settlements.countDocuments({ batch_id: response.batch_id })).toBe(1);
  });

  it('reads a batch stored with one outcome document per leg and its legs unpacked, as before', async () => {
    const response = await place(
      [
        { account_id: accounts.alpha!.id, symbol: 'EURUSD' },
        { account_id: accounts.gamma!.id, symbol: 'EURUSDm' },
      ],
      { operation: 'buy', volume: 0.1 },
    );
    const results = JSON.parse(JSON.stringify(response.results)) as Array<Record<string, unknown>>;
    // Stored behind the answer: the batch and its outcome are in once its document in flight is gone.
    await eventually(async () => (await stack.execution.store.openBatches.findOne({ _id: response.batch_id })) === null, 3_000);
    // Rewrite the stored outcome in the old layout: `<batch>:<index>` documents.
    await storeWithoutOutcomes(response.batch_id);
    await stack.execution.store.outcomes.collection.insertMany(
      results.map((result, index) => ({
        _id: `${response.batch_id}:${index}`,
        batch_id: response.batch_id,
        index,
        result,
        source: 'reply',
        written_at: new Date(),
      })),
    );
    // And the batch itself with its legs as nested documents.
    const raw = (await stack.execution.store.batches.collection.findOne({ _id: response.batch_id }))!;
    await stack.execution.store.batches.collection.deleteOne({ _id: response.batch_id });
    const { legs_json: legsJson, ...rest } = raw;
    await stack.execution.store.batches.collection.insertOne({ ...rest, legs: JSON.parse(legsJson as string) });
    const stored = plain(await stack.client.call('GetBatch', { customer_id: customer, batch_id: response.batch_id }));
    expect(stored.orders).toEqual(response.results);
    expect(stored.settled).toBe(true);
  });

  it("sends nothing when the batch is invalid, has 21 legs or names another customer's account", async () => {
    const before = await received();
    const legs = Array.from({ length: 21 }, () => ({ account_id: accounts.alpha!.id, symbol: 'EURUSD', operation: 'buy', volume: 0.1 }));
    expect((await rejection(place(legs))).code).toBe('too_many_legs');
    const foreign = await rejection(
      place([
        { account_id: accounts.alpha!.id, symbol: 'EURUSD', operation: 'buy', volume: 0.1 },
        { account_id: accounts.foreign!.id, symbol: 'EURUSD', operation: 'buy', volume: 0.1 },
      ]),
    );
    expect([foreign.code, foreign.param]).toEqual(['unknown_account', 'orders[1].account_id']);
    const missing = await rejection(place([{ account_id: 'acc_doesnotexist', symbol: 'EURUSD', operation: 'buy', volume: 0.1 }]));
    expect(foreign.message.replace(accounts.foreign!.id, 'X')).toBe(missing.message.replace('acc_doesnotexist', 'X'));
    const badLeg = await rejection(
      place([
        { account_id: accounts.alpha!.id, symbol: 'EURUSD', operation: 'buy', volume: 0.1 },
        { account_id: accounts.beta!.id, symbol: 'EURUSD.xx', operation: 'buyLimit', volume: 0.1 },
      ]),
    );
    expect([badLeg.code, badLeg.param]).toEqual(['invalid_request', 'orders[1].price']);
    expect(await received()).toBe(before);
  });

  it('rejects legs of a suspended account without sending them, and trades again once active', async () => {
    await stack.client.call('SetAccountBillingStatus', { customer_id: customer, account_id: accounts.gamma!.id, status: 'suspended' });
    const before = await received();
    const response = await place(
      [
        { account_id: accounts.gamma!.id, symbol: 'EURUSDm' },
        { account_id: accounts.alpha!.id, symbol: 'EURUSD' },
      ],
      { operation: 'buy', volume: 0.1 },
    );
    expect(response.results[0]).toMatchObject({ status: 'rejected', retcode_description: 'TRADE_RETCODE_TRADE_DISABLED' });
    expect(response.results[0].message).toContain('suspended');
    expect(response.results[1].status).toBe('filled');
    expect((await received()) - before).toBe(1);
    const listed = (await stack.client.call('ListAccounts', { customer_id: customer })).accounts.find(
      (account: { id: string }) => account.id === accounts.gamma!.id,
    );
    expect(listed.status).toBe('suspended');
    await stack.client.call('SetAccountBillingStatus', { customer_id: customer, account_id: accounts.gamma!.id, status: 'active' });
    expect((await place([{ account_id: accounts.gamma!.id, symbol: 'EURUSDm', operation: 'buy', volume: 0.1 }])).results[0].status).toBe(
      'filled',
    );
    expect(
      (
        await rejection(
          stack.client.call('SetAccountBillingStatus', { customer_id: customer, account_id: accounts.gamma!.id, status: 'frozen' }),
        )
      ).code,
    ).toBe('invalid_request');
  });

  it('reports legs of a platform without a running terminal as unavailable, at once', async () => {
    await stack.stopConnector('mt4');
    try {
      const started = Date.now();
      const response = await place(
        [
          { account_id: accounts.gamma!.id, symbol: 'EURUSDm' },
          { account_id: accounts.alpha!.id, symbol: 'EURUSD' },
        ],
        { operation: 'buy', volume: 0.1 },
      );
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(response.results[0]).toMatchObject({
        status: 'unavailable',
        order: 0,
        deal: 0,
        retcode_description: 'TRADE_RETCODE_CONNECTION',
      });
      expect(response.results[0].retcode).toBeUndefined();
      expect(response.results[1].status).toBe('filled');
      expect(response.summary).toMatchObject({ filled: 1, failed: 1, unknown: 0 });
    } finally {
      await stack.startConnector('mt4');
    }
  });

  it('reports a leg unknown when the broker hangs past the deadline, and reconciliation settles it from the broker', async () => {
    // The trade server holds its answer past execution's deadline (1.5 s) and past the connector's wait for the
    // terminal (BROKER_CALL_DEADLINE_MS); the terminal, busy with it meanwhile, answers nothing else until then.
    await stack.control(`/control/accounts/AlphaFX-Live/${accounts.alpha!.login}/faults`, 'PUT', { hang_ms: 4_500, remaining: 1 });
    try {
      const response = await place([{ account_id: accounts.alpha!.id, symbol: 'EURUSD', operation: 'buy', volume: 0.1 }]);
      expect(response.results[0]).toMatchObject({ status: 'unknown', order: 0, retcode_description: 'TRADE_RETCODE_TIMEOUT' });
      expect(response.results[0].retcode).toBeUndefined();
      expect(response.summary.unknown).toBe(1);
      const before = plain(await stack.client.call('GetBatch', { customer_id: customer, batch_id: response.batch_id }));
      expect(before.settled).toBe(false);
      // Once the terminal is free again, one pass finds the order at the trade server and settles the leg.
      const pass = await eventually(async () => {
        const attempt = plain(await stack.client.call('Reconcile', { batch_id: response.batch_id }));
        return attempt.settled === 1 ? attempt : undefined;
      }, 10_000);
      expect(pass).toMatchObject({ checked: 1, settled: 1 });
      const after = plain(await stack.client.call('GetBatch', { customer_id: customer, batch_id: response.batch_id }));
      expect(after.settled).toBe(true);
      expect(after.orders[0]).toMatchObject({ status: 'filled', retcode_description: 'TRADE_RETCODE_DONE' });
      expect(after.orders[0].message).toContain('reconciliation');
      // It keeps the time its answer took, as the customer was told, not 0.
      expect(response.results[0].latency_ms).toBeGreaterThan(500);
      expect(after.orders[0].latency_ms).toBe(response.results[0].latency_ms);
      const deals = (await stack.control(`/control/accounts/AlphaFX-Live/${accounts.alpha!.login}/deals`)).body.deals as Array<{
        order: number;
      }>;
      expect(deals.some((deal) => deal.order === after.orders[0].order)).toBe(true);
    } finally {
      await stack.control(`/control/accounts/AlphaFX-Live/${accounts.alpha!.login}/faults`, 'DELETE');
    }
  });

  it('refuses a batch beyond the in-flight bound with 503 before sending anything', async () => {
    // Two batches held at two terminals (a terminal carries out one trade at a time) fill the bound of two.
    await stack.control(`/control/accounts/AlphaFX-Live/${accounts.alpha!.login}/faults`, 'PUT', { delay_ms: 1_000, remaining: 1 });
    await stack.control(`/control/accounts/BetaMarkets-Server/${accounts.beta!.login}/faults`, 'PUT', { delay_ms: 1_000, remaining: 1 });
    const leg = [{ account_id: accounts.alpha!.id, symbol: 'EURUSD', operation: 'buy', volume: 0.1 }];
    const first = place(leg);
    const second = place([{ account_id: accounts.beta!.id, symbol: 'EURUSD.xx', operation: 'buy', volume: 0.1 }]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const before = await received();
    const refused = await rejection(place(leg));
    expect(refused.code).toBe('unavailable');
    expect(await received()).toBe(before);
    expect((await first).results[0].status).toBe('filled');
    expect((await second).results[0].status).toBe('filled');
  });

  it('takes a late reply into the stored batch', async () => {
    await stack.control(`/control/accounts/BetaMarkets-Server/${accounts.beta!.login}/faults`, 'PUT', { delay_ms: 2_200, remaining: 1 });
    const response = await place([{ account_id: accounts.beta!.id, symbol: 'EURUSD.xx', operation: 'buy', volume: 0.1 }]);
    expect(response.results[0].status).toBe('unknown');
    const settled = await eventually(async () => {
      const batch = plain(await stack.client.call('GetBatch', { customer_id: customer, batch_id: response.batch_id }));
      return batch.settled ? batch : undefined;
    }, 8_000);
    expect(settled.orders[0]).toMatchObject({ status: 'filled', retcode_description: 'TRADE_RETCODE_DONE', message: '' });
    // The settlement is inserted first and the leg's reconciliation entry removed right after.
    await eventually(async () => (await stack.execution.store.unsettled.findOne({ _id: `${response.batch_id}:0` })) === null, 3_000);
  });

  it('settles an unknown leg that never reached the broker as not executed, once past the deadline', async () => {
    // A terminal that takes the request and dies before sending it.
    await stack.stopConnector('mt5');
    let swallower: Subscription | undefined;
    try {
      swallower = stack.nats.subscribe(`${stack.subjectRoot}.mt5.${accounts.alpha!.id}.place`, { callback: () => undefined });
      await stack.nats.flush();
      const response = await place([{ account_id: accounts.alpha!.id, symbol: 'EURUSD', operation: 'buy', volume: 0.1 }]);
      expect(response.results[0].status).toBe('unknown');
      swallower.unsubscribe();
      swallower = undefined;
      await stack.startConnector('mt5');
      // The account's terminal dials the restarted connector again; until it is attached the lookup finds no one.
      const batch = await eventually(async () => {
        await stack.client.call('Reconcile', { batch_id: response.batch_id });
        const stored = plain(await stack.client.call('GetBatch', { customer_id: customer, batch_id: response.batch_id }));
        return stored.settled ? stored : undefined;
      }, 10_000);
      expect(batch.orders[0]).toMatchObject({ status: 'rejected', retcode_description: 'TRADE_RETCODE_TIMEOUT' });
      expect(batch.orders[0].message).toContain('not executed');
    } finally {
      swallower?.unsubscribe();
      if (!stack.connectors.mt5) await stack.startConnector('mt5');
    }
  });
});

describe('closing by selector', () => {
  it('closes per account, counts the summary, and refuses up front when require_reachable finds no terminal', async () => {
    const target = await connect(customer, 'mt5', 'AlphaFX-Live', 'closing');
    for (const symbol of ['EURUSD', 'EURUSDm', 'EURUSDPRO'])
      await stack.control(`/control/accounts/AlphaFX-Live/${target.login}/positions`, 'POST', { symbol, type: 'buy', volume: 0.1 });
    await stack.stopConnector('mt4');
    try {
      const before = await received();
      const refused = await rejection(
        stack.client.call('CloseOrders', {
          customer_id: customer,
          defaults: { symbol: 'EURUSD', symbol_match: 'base' },
          accounts: [{ account_id: target.id }, { account_id: accounts.gamma!.id }],
          require_reachable: true,
        }),
      );
      expect(refused.code).toBe('accounts_unreachable');
      expect(refused.details).toEqual({ account_ids: [accounts.gamma!.id] });
      expect(await received()).toBe(before);
      const response = plain(
        await stack.client.call('CloseOrders', {
          customer_id: customer,
          defaults: { symbol: 'EURUSD', symbol_match: 'base' },
          accounts: [{ account_id: target.id }, { account_id: accounts.gamma!.id }],
        }),
      );
      expect(response.results.map((result: any) => [result.status, result.matched, result.closed])).toEqual([
        ['closed', 2, 2],
        ['unavailable', 0, 0],
      ]);
      expect(response.summary).toEqual({
        accounts: 2,
        matched: 2,
        closed: 2,
        failed: 0,
        unknown: 0,
        accounts_unknown: 0,
        accounts_unavailable: 1,
        accounts_failed: 0,
      });
      const stored = plain(await stack.client.call('GetBatch', { customer_id: customer, batch_id: response.batch_id }));
      expect(stored.accounts).toEqual(response.results);
      expect(stored.close_summary).toEqual(response.summary);
    } finally {
      await stack.startConnector('mt4');
    }
    const remaining = (await stack.control(`/control/accounts/AlphaFX-Live/${target.login}`)).body.positions.map(
      (position: { symbol: string }) => position.symbol,
    );
    expect(remaining).toEqual(['EURUSDPRO']);
  });

  it("refuses a close without symbol, a selector with tickets, and another customer's account, sending nothing", async () => {
    const before = await received();
    const noSymbol = await rejection(
      stack.client.call('CloseOrders', { customer_id: customer, accounts: [{ account_id: accounts.alpha!.id }] }),
    );
    expect([noSymbol.code, noSymbol.param]).toEqual(['invalid_request', 'symbol']);
    const both = await rejection(
      stack.client.call('CloseOrders', {
        customer_id: customer,
        accounts: [{ account_id: accounts.alpha!.id, fields: { symbol: 'EURUSD' }, tickets: [1], has_tickets: true }],
      }),
    );
    expect(both.code).toBe('invalid_request');
    const foreign = await rejection(
      stack.client.call('CloseOrders', {
        customer_id: customer,
        defaults: { symbol: '*' },
        accounts: [{ account_id: accounts.foreign!.id }],
      }),
    );
    expect(foreign.code).toBe('unknown_account');
    expect(await received()).toBe(before);
  });

  it('settles a close account that never answered by looking its closes up at the broker', async () => {
    const target = await connect(customer, 'mt4', 'OmegaCapital-Demo', 'hanging close');
    const account = `/control/accounts/OmegaCapital-Demo/${target.login}`;
    for (let index = 0; index < 2; index++)
      await stack.control(`${account}/positions`, 'POST', { symbol: 'GBPUSD', type: 'sell', volume: 0.2 });
    // The EA carries out one request at a time: each close's answer is held 700 ms, so the second close starts
    // well within its ttl and both execute, while the connector's answer is still owed.
    await stack.control(`${account}/faults`, 'PUT', { hang_ms: 700 });
    try {
      const closing = stack.client.call('CloseOrders', {
        customer_id: customer,
        defaults: { symbol: 'GBPUSD' },
        accounts: [{ account_id: target.id }],
      });
      // Both closes executed at the broker; then the connector dies before it answers: the whole answer is lost.
      await eventually(async () => (await stack.control(account)).body.positions.length === 0, 5_000, 20);
      await stack.connectors.mt4!.nats.close();
      const response = plain(await closing);
      expect(response.results[0].status).toBe('unknown');
      expect(response.summary.accounts_unknown).toBe(1);
      await stack.stopConnector('mt4');
      await stack.startConnector('mt4');
      // Once the terminal is back, the closes are read from its history by the batch's client-id prefix.
      await eventually(async () => (await stack.client.call('Reconcile', { batch_id: response.batch_id })).settled === 1, 20_000, 200);
      const stored = plain(await stack.client.call('GetBatch', { customer_id: customer, batch_id: response.batch_id }));
      expect(stored.settled).toBe(true);
      expect(stored.accounts[0]).toMatchObject({ status: 'closed', matched: 2, closed: 2 });
      expect(stored.close_summary).toMatchObject({ closed: 2, accounts_unknown: 0 });
    } finally {
      await stack.control(`${account}/faults`, 'DELETE');
    }
  });
});
