import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTag } from '../../services/connector-runtime/src/bridge/client-tag';
import { startExecutionE2e, type ExecutionE2e } from './execution-helpers';

/**
 * The pre-trade rules of POST /v1/orders over the real stack (gateway, execution, both connectors, broker-sim's
 * terminals): account limits, sizing, base symbol resolution and the margin check, on MT4 and MT5, hedging and
 * netting. A leg a rule refuses must reach no trade server: broker-sim's journal of trade requests says so.
 */

let e2e: ExecutionE2e;
interface Account {
  id: string;
  login: string;
  server: string;
}
const accounts: Record<'alpha' | 'beta' | 'gamma' | 'delta' | 'poor' | 'omega', Account> = {} as never;
let loginSequence = 60_000 + Math.floor(Math.random() * 10_000);

async function connect(platform: 'mt4' | 'mt5', server: string, balance?: number): Promise<Account> {
  const login = String(++loginSequence);
  const password = `pw-${login}`;
  if (balance !== undefined)
    expect((await e2e.control('/control/accounts', 'POST', { server, login, password, balance })).status).toBe(201);
  const response = await e2e.api('POST', '/v1/accounts', { platform, server, login, password });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return { id: response.body.id, login, server };
}

async function settings(account: Account, body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${e2e.stack.gatewayUrl}/v1/accounts/${account.id}/settings`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${e2e.keys.full}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

/** Trade requests the account's trade server has received (broker-sim's journal). */
const requestsOf = async (account: Account) =>
  (await e2e.control(`/control/accounts/${account.server}/${account.login}/requests`)).body.requests as Array<{
    clientId: string;
    symbol: string;
    volume: number;
  }>;
const received = async () => (await e2e.control('/control/stats')).body.trade_requests_received as number;

async function place(body: unknown) {
  const response = await e2e.api('POST', '/v1/orders', body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as {
    batch_id: string;
    results: Array<{ status: string; symbol: string; volume: number; retcode?: number; message: string; ask?: number; sizing?: any }>;
  };
}

beforeAll(async () => {
  // A deadline that leaves the pre-trade reads (half of it) room on a loaded machine.
  e2e = await startExecutionE2e('e2edeskorders', { EXECUTION_DEADLINE_MS: '5000' });
  await e2e.control('/control/prices', 'POST', { frozen_all: true });
  accounts.alpha = await connect('mt5', 'AlphaFX-Live'); // hedging, EURUSD and four account-class variants
  accounts.beta = await connect('mt5', 'BetaMarkets-Server'); // netting, suffix .xx
  accounts.gamma = await connect('mt4', 'GammaTrade-Real'); // suffix m
  accounts.delta = await connect('mt4', 'DeltaPrime-ECN', 20_000); // suffix -ecn, volume min and step 0.1
  accounts.poor = await connect('mt5', 'BetaMarkets-Server', 100);
  accounts.omega = await connect('mt4', 'OmegaCapital-Demo');
}, 240_000);

afterAll(async () => e2e?.close());

describe('sizing', () => {
  it('sizes legs by equity, balance and risk on MT4 and MT5, rounded down to the step, and reports what it used', async () => {
    const batch = await place({
      defaults: { operation: 'buy', sizing: { mode: 'equity', lots_per_1000: 0.0123 } },
      orders: [
        { account_id: accounts.alpha.id, symbol: 'EURUSD' },
        { account_id: accounts.delta.id, symbol: 'EURUSD-ecn', sizing: { mode: 'balance', lots_per_1000: 0.0123 } },
        { account_id: accounts.gamma.id, symbol: 'EURUSDm', stop_loss: 1.0, sizing: { mode: 'risk', percent: 1 } },
      ],
    });
    const [alpha, delta, gamma] = batch.results;
    // 10,000 of equity × 0.0123 / 1,000 = 0.123 lots, 0.12 on a 0.01 step.
    expect(alpha).toMatchObject({ status: 'filled', volume: 0.12, sizing: { mode: 'equity', equity: 10_000, computed_volume: 0.123 } });
    // 20,000 of balance: 0.246 lots, 0.2 on a 0.1 step.
    expect(delta).toMatchObject({ status: 'filled', volume: 0.2, sizing: { mode: 'balance', balance: 20_000, computed_volume: 0.246 } });
    // 1 % of 10,000 lost over (ask − 1.0) / 0.00001 ticks of 1 USD each.
    const lossPerLot = ((gamma!.ask! - 1.0) / 0.00001) * 1;
    expect(gamma).toMatchObject({ status: 'filled', sizing: { mode: 'risk', equity: 10_000 } });
    expect(gamma!.sizing.computed_volume).toBeCloseTo(100 / lossPerLot, 6);
    expect(gamma!.volume).toBe(Math.floor((100 / lossPerLot) * 100 + 1e-9) / 100);
    // The trade servers received exactly those volumes.
    const sent = await requestsOf(accounts.delta);
    expect(sent.map((request) => request.volume)).toEqual([0.2]);
    // The stored batch keeps the same.
    const stored = await e2e.api('GET', `/v1/orders/batches/${batch.batch_id}`);
    expect(stored.body.results[0].sizing).toEqual(alpha!.sizing);
  });

  it('holds a sized volume to the symbol maximum and max_volume_per_order, and refuses one below the minimum unsent', async () => {
    await settings(accounts.gamma, { max_volume_per_order: 0.05 });
    const before = await received();
    const batch = await place({
      orders: [
        // 100 lots per 1,000 would be 1,000 lots: the symbol's 50, then the account's 0.05.
        { account_id: accounts.gamma.id, symbol: 'EURUSDm', operation: 'sell', sizing: { mode: 'equity', lots_per_1000: 100 } },
        // 0.001 per 1,000 of 20,000 is 0.02, under DeltaPrime's 0.1 minimum.
        { account_id: accounts.delta.id, symbol: 'EURUSD-ecn', operation: 'buy', sizing: { mode: 'balance', lots_per_1000: 0.001 } },
      ],
    });
    // Equity moved with the earlier fills: the computed volume is 100 lots per 1,000 of what the terminal reported.
    expect(batch.results[0]).toMatchObject({ status: 'filled', volume: 0.05, sizing: { mode: 'equity' } });
    expect(batch.results[0]!.sizing.computed_volume).toBeCloseTo(batch.results[0]!.sizing.equity / 10, 6);
    expect(batch.results[1]).toMatchObject({ status: 'rejected', retcode: 10014, volume: 0 });
    expect(batch.results[1]!.message).toContain('0.02');
    expect(batch.results[1]!.message).toContain('minimum 0.1');
    expect(await received()).toBe(before + 1);
    await settings(accounts.gamma, { max_volume_per_order: null });
  });

  it('answers volume with sizing, risk without a stop loss and a bad sizing with 400, sending nothing', async () => {
    const before = await received();
    const bad: Array<[unknown, string]> = [
      [{ account_id: accounts.alpha.id, symbol: 'EURUSD', volume: 0.1, sizing: { mode: 'equity', lots_per_1000: 0.01 } }, 'sizing'],
      [{ account_id: accounts.alpha.id, symbol: 'EURUSD', sizing: { mode: 'risk', percent: 1 } }, 'stop_loss'],
      [{ account_id: accounts.alpha.id, symbol: 'EURUSD', sizing: { mode: 'risk', lots_per_1000: 1 } }, 'sizing'],
      [{ account_id: accounts.alpha.id, symbol: 'EURUSD', sizing: { mode: 'equity' } }, 'lots_per_1000'],
      [{ account_id: accounts.alpha.id, symbol: 'EURUSD', sizing: { mode: 'margin', lots_per_1000: 1 } }, 'mode'],
      [{ account_id: accounts.alpha.id, symbol: 'EURUSD', sizing: { mode: 'equity', lots_per_1000: -1 } }, 'lots_per_1000'],
      [{ account_id: accounts.alpha.id, symbol: 'EURUSD', volume: 0.1, symbol_match: 'prefix' }, 'symbol_match'],
      [{ account_id: accounts.alpha.id, symbol: 'EURUSD', volume: 0.1, check_margin: 'yes' }, 'check_margin'],
    ];
    for (const [leg, param] of bad) {
      const response = await e2e.api('POST', '/v1/orders', { orders: [{ operation: 'buy', ...(leg as object) }] });
      expect(response.status, JSON.stringify(leg)).toBe(400);
      expect(`${response.body.error.param} ${response.body.error.message}`).toContain(param);
    }
    const both = await e2e.api('POST', '/v1/orders', {
      defaults: { volume: 0.1, sizing: { mode: 'equity', lots_per_1000: 0.01 } },
      orders: [{ account_id: accounts.alpha.id, symbol: 'EURUSD', operation: 'buy' }],
    });
    expect(both.status).toBe(400);
    expect(await received()).toBe(before);
  });
});

describe('account limits', () => {
  it('refuses every opening leg while trading_enabled is false, and still closes', async () => {
    const seeded = await e2e.control(`/control/accounts/${accounts.beta.server}/${accounts.beta.login}/positions`, 'POST', {
      symbol: 'USDJPY.xx',
      type: 'buy',
      volume: 0.1,
    });
    expect(seeded.status).toBe(201);
    await settings(accounts.beta, { trading_enabled: false });
    const before = await received();
    const batch = await place({
      orders: [
        { account_id: accounts.beta.id, symbol: 'EURUSD.xx', operation: 'buy', volume: 0.1 },
        { account_id: accounts.beta.id, symbol: 'EURUSD', operation: 'sellLimit', price: 2, volume: 0.1, symbol_match: 'base' },
      ],
    });
    for (const result of batch.results) {
      expect(result).toMatchObject({ status: 'rejected', retcode: 10017 });
      expect(result.message).toContain('trading_enabled');
    }
    expect(await received()).toBe(before);
    const closed = await e2e.api('POST', '/v1/orders/close', { accounts: [{ account_id: accounts.beta.id, symbol: 'USDJPY.xx' }] });
    expect(closed.body.results[0]).toMatchObject({ status: 'closed', closed: 1 });
    await settings(accounts.beta, { trading_enabled: true });
  });

  it('holds max_volume_per_order, allowed_symbols and max_open_positions on hedging MT4, leg by leg', async () => {
    await settings(accounts.gamma, { max_volume_per_order: 0.5, allowed_symbols: ['EURUSDm', 'GBPUSD'], max_open_positions: 3 });
    const open = (await e2e.control(`/control/accounts/${accounts.gamma.server}/${accounts.gamma.login}`)).body.positions.length as number;
    await settings(accounts.gamma, { max_open_positions: open + 2 });
    const before = await requestsOf(accounts.gamma);
    const batch = await place({
      defaults: { operation: 'buy', volume: 0.1 },
      orders: [
        { account_id: accounts.gamma.id, symbol: 'EURUSDm', volume: 0.6 },
        { account_id: accounts.gamma.id, symbol: 'USDJPYm' },
        { account_id: accounts.gamma.id, symbol: 'EURUSDm' },
        { account_id: accounts.gamma.id, symbol: 'GBPUSD', symbol_match: 'base' },
        { account_id: accounts.gamma.id, symbol: 'EURUSDm' },
      ],
    });
    expect(batch.results.map((result) => [result.status, result.retcode])).toEqual([
      ['rejected', 10034],
      ['rejected', 10017],
      ['filled', 10009],
      ['filled', 10009],
      ['rejected', 10040],
    ]);
    expect(batch.results[0]!.message).toContain('max_volume_per_order 0.5');
    expect(batch.results[1]!.message).toContain('allowed_symbols');
    expect(batch.results[3]!.symbol).toBe('GBPUSDm');
    expect(batch.results[4]!.message).toContain(`max_open_positions ${open + 2}`);
    const sent = (await requestsOf(accounts.gamma)).slice(before.length);
    expect(sent.map((request) => request.clientId.slice(-11))).toEqual([2, 3].map((leg) => clientTag(`${batch.batch_id}-${leg}`)));
    await settings(accounts.gamma, { max_volume_per_order: null, allowed_symbols: null, max_open_positions: null });
  });

  it('counts a netting account by symbol: adding to a held symbol opens no position, reducing is never refused', async () => {
    await e2e.api('POST', '/v1/orders/close', { accounts: [{ account_id: accounts.beta.id, symbol: '*' }] });
    await place({ orders: [{ account_id: accounts.beta.id, symbol: 'EURUSD.xx', operation: 'buy', volume: 0.3 }] });
    await settings(accounts.beta, { max_open_positions: 1, max_total_volume: 0.4 });
    const before = await received();
    const batch = await place({
      orders: [
        { account_id: accounts.beta.id, symbol: 'EURUSD.xx', operation: 'buy', volume: 0.1 },
        { account_id: accounts.beta.id, symbol: 'GBPUSD.xx', operation: 'buy', volume: 0.1 },
        { account_id: accounts.beta.id, symbol: 'EURUSD.xx', operation: 'buy', volume: 0.1 },
        { account_id: accounts.beta.id, symbol: 'EURUSD.xx', operation: 'sell', volume: 0.2 },
      ],
    });
    expect(batch.results.map((result) => [result.status, result.retcode])).toEqual([
      ['filled', 10009],
      ['rejected', 10040],
      ['rejected', 10034],
      ['filled', 10009],
    ]);
    expect(batch.results[2]!.message).toContain('max_total_volume 0.4');
    expect(await received()).toBe(before + 2);
    const held = (await e2e.control(`/control/accounts/${accounts.beta.server}/${accounts.beta.login}`)).body.positions;
    expect(held.map((position: { symbol: string; volume: number }) => [position.symbol, position.volume])).toEqual([['EURUSD.xx', 0.2]]);
    await settings(accounts.beta, { max_open_positions: null, max_total_volume: null });
  });
});

describe('symbol resolution and the margin check', () => {
  it('resolves a base name per account through the symbol map or the one broker symbol, and refuses ambiguity unsent', async () => {
    const before = await received();
    const batch = await place({
      defaults: { symbol: 'EURUSD', symbol_match: 'base', operation: 'buy', volume: 0.1 },
      orders: [
        { account_id: accounts.beta.id },
        { account_id: accounts.gamma.id },
        { account_id: accounts.alpha.id },
        { account_id: accounts.alpha.id, symbol: 'GOLD' },
      ],
    });
    expect(batch.results.map((result) => [result.status, result.symbol])).toEqual([
      ['filled', 'EURUSD.xx'],
      ['filled', 'EURUSDm'],
      ['rejected', 'EURUSD'],
      ['rejected', 'GOLD'],
    ]);
    for (const candidate of ['EURUSD', 'EURUSD.xx', 'EURUSD-ecn', 'EURUSDm']) expect(batch.results[2]!.message).toContain(candidate);
    expect(batch.results[2]!.message).not.toContain('EURUSDPRO');
    expect(batch.results[3]!.message).toContain('GOLD');
    expect(await received()).toBe(before + 2);

    await settings(accounts.alpha, { symbol_map: { EURUSD: 'EURUSD-ecn', gold: 'XAUUSD' } });
    const mapped = await place({
      defaults: { symbol_match: 'base', operation: 'buy', volume: 0.1 },
      orders: [
        { account_id: accounts.alpha.id, symbol: 'EURUSD' },
        { account_id: accounts.alpha.id, symbol: 'GOLD', sizing: { mode: 'equity', lots_per_1000: 0.01 } },
      ],
    });
    expect(mapped.results.map((result) => [result.status, result.symbol])).toEqual([
      ['filled', 'EURUSD-ecn'],
      ['filled', 'XAUUSD'],
    ]);
    const gold = mapped.results[1]!;
    expect(gold.volume).toBe(Math.floor((gold.sizing.equity * 0.01) / 1000 / 0.01 + 1e-9) / 100);
  });

  it('refuses a leg that would leave negative free margin with TRADE_RETCODE_NO_MONEY, unsent, counting earlier legs', async () => {
    const before = await requestsOf(accounts.poor);
    const batch = await place({
      defaults: { symbol: 'EURUSD.xx', operation: 'buy', check_margin: true },
      orders: [
        // 100 USD at 1:100 carries about 0.09 lots of EURUSD: 0.05 fits, a second 0.05 no longer does.
        { account_id: accounts.poor.id, volume: 0.05 },
        { account_id: accounts.poor.id, volume: 0.05 },
        { account_id: accounts.poor.id, volume: 1 },
        { account_id: accounts.poor.id, volume: 1, check_margin: false },
      ],
    });
    expect(batch.results.map((result) => [result.status, result.retcode])).toEqual([
      ['filled', 10009],
      ['rejected', 10019],
      ['rejected', 10019],
      ['rejected', 10019],
    ]);
    expect(batch.results[1]!.message).toContain('check_margin');
    // Only the first leg and the unchecked one reached the trade server (which refused the latter itself).
    const sent = (await requestsOf(accounts.poor)).slice(before.length);
    expect(sent.map((request) => request.clientId.slice(-11)).sort()).toEqual(
      [0, 3].map((leg) => clientTag(`${batch.batch_id}-${leg}`)).sort(),
    );
  });
});

describe('at most once', () => {
  it('answers a sized batch sent twice with one Idempotency-Key from the first, sending its legs once', async () => {
    const before = await received();
    const body = {
      defaults: { symbol: 'GBPUSD', symbol_match: 'base', operation: 'sell', sizing: { mode: 'equity', lots_per_1000: 0.01 } },
      orders: [{ account_id: accounts.omega.id }, { account_id: accounts.beta.id }],
    };
    const first = await e2e.api('POST', '/v1/orders', body, { 'idempotency-key': 'desk-sized-once' });
    const again = await e2e.api('POST', '/v1/orders', body, { 'idempotency-key': 'desk-sized-once' });
    expect(first.body.summary.filled).toBe(2);
    expect(again.body).toEqual({ ...first.body, idempotent_replay: true });
    expect(await received()).toBe(before + 2);
  });

  it('makes the legs unavailable and sends nothing when the terminal does not answer the pre-trade reads', async () => {
    const terminal = `/control/accounts/${accounts.omega.server}/${accounts.omega.login}/terminal`;
    expect((await e2e.control(terminal, 'PUT', { answers: 'silent' })).status).toBe(200);
    const before = await received();
    try {
      const batch = await place({
        orders: [
          { account_id: accounts.omega.id, symbol: 'EURUSD', symbol_match: 'base', operation: 'buy', volume: 0.1 },
          { account_id: accounts.alpha.id, symbol: 'EURUSD', operation: 'buy', volume: 0.1 },
        ],
      });
      expect(batch.results.map((result) => result.status)).toEqual(['unavailable', 'filled']);
      expect(batch.results[0]!.message).toContain('not sent');
      expect(await received()).toBe(before + 1);
    } finally {
      await e2e.control(terminal, 'DELETE');
    }
  });
});
