import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mtx/shared/testing';
import { startExecutionE2e, type ExecutionE2e } from './execution-helpers';

let e2e: ExecutionE2e;
type Account = Awaited<ReturnType<ExecutionE2e['connect']>>;
const accounts: Record<'alpha' | 'beta' | 'gamma' | 'delta' | 'omega', Account> = {} as never;

const stats = async () => (await e2e.control('/control/stats')).body as { trade_requests_received: number };

beforeAll(async () => {
  e2e = await startExecutionE2e('e2eexec');
  await e2e.control('/control/prices', 'POST', { frozen_all: true });
  accounts.alpha = await e2e.connect('mt5', 'AlphaFX-Live');
  accounts.beta = await e2e.connect('mt5', 'BetaMarkets-Server');
  accounts.gamma = await e2e.connect('mt4', 'GammaTrade-Real');
  accounts.delta = await e2e.connect('mt4', 'DeltaPrime-ECN');
  accounts.omega = await e2e.connect('mt4', 'OmegaCapital-Demo');
}, 240_000);

afterAll(async () => e2e?.close());

describe('POST /v1/orders across brokers and platforms', () => {
  it("fills a mixed 20-leg mt4/mt5 batch whose symbols are overridden per leg for each broker's suffix", async () => {
    const listed = (await e2e.api('GET', '/v1/accounts')).body.accounts as Array<{ id: string; symbol_suffix: string; platform: string }>;
    const suffixOf = new Map(listed.map((account) => [account.id, account.symbol_suffix]));
    expect(new Set(listed.map((account) => account.symbol_suffix))).toEqual(new Set(['', '.xx', 'm', '-ecn']));
    const order = [accounts.alpha, accounts.beta, accounts.gamma, accounts.delta, accounts.omega];
    const bases = ['EURUSD', 'GBPUSD', 'USDJPY', 'XAUUSD'];
    const legs = Array.from({ length: 20 }, (_, index) => {
      const account = order[index % order.length]!;
      return {
        account_id: account.id,
        symbol: `${bases[index % bases.length]}${suffixOf.get(account.id)}`,
        operation: index % 2 === 0 ? 'buy' : 'Sell',
      };
    });
    const before = await stats();
    const response = await e2e.api('POST', '/v1/orders', { defaults: { volume: 0.1, slippage: 50 }, orders: legs });
    expect(response.status).toBe(200);
    expect(response.body.summary).toEqual({ requested: 20, filled: 20, placed: 0, failed: 0, unknown: 0 });
    expect(new Set(response.body.results.map((result: { platform: string }) => result.platform))).toEqual(new Set(['mt4', 'mt5']));
    response.body.results.forEach((result: Record<string, unknown>, index: number) => {
      expect(result).toMatchObject({
        account_id: legs[index]!.account_id,
        symbol: legs[index]!.symbol,
        status: 'filled',
        retcode_description: 'TRADE_RETCODE_DONE',
      });
    });
    expect((await stats()).trade_requests_received - before.trade_requests_received).toBe(20);
    for (const account of order) {
      const deals = (await e2e.control(`/control/accounts/${account.server}/${account.login}/deals`)).body.deals as Array<{
        order: number;
      }>;
      const mine = response.body.results.filter((result: { account_id: string }) => result.account_id === account.id);
      for (const result of mine)
        expect(
          deals.filter((deal) => deal.order === result.order),
          `${account.server} order ${result.order}`,
        ).toHaveLength(1);
    }
  });

  it('fails in part when one defaults.symbol is sent to brokers with different suffixes', async () => {
    const order = [accounts.alpha, accounts.beta, accounts.gamma, accounts.delta, accounts.omega];
    const response = await e2e.api('POST', '/v1/orders', {
      defaults: { symbol: 'EURUSD', operation: 'buy', volume: 0.1 },
      orders: order.map((account) => ({ account_id: account.id })),
    });
    expect(response.status).toBe(200);
    expect(response.body.results.map((result: { status: string }) => result.status)).toEqual([
      'filled',
      'rejected',
      'rejected',
      'rejected',
      'filled',
    ]);
    expect(response.body.summary).toEqual({ requested: 5, filled: 2, placed: 0, failed: 3, unknown: 0 });
    for (const [index, suffix] of [
      [1, '.xx'],
      [2, 'm'],
      [3, '-ecn'],
    ] as const) {
      expect(response.body.results[index]).toMatchObject({
        retcode: 10013,
        retcode_description: 'TRADE_RETCODE_INVALID',
        order: 0,
        deal: 0,
      });
      expect(response.body.results[index].message).toContain(`end in ${suffix}`);
    }
  });

  it('answers 21 legs with 400 too_many_legs and sends nothing', async () => {
    const before = await stats();
    const response = await e2e.api('POST', '/v1/orders', {
      orders: Array.from({ length: 21 }, () => ({ account_id: accounts.alpha.id, symbol: 'EURUSD', operation: 'buy', volume: 0.1 })),
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('too_many_legs');
    expect(response.body.request_id).toMatch(/^req_/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await stats()).trade_requests_received).toBe(before.trade_requests_received);
  });
});

describe('every leg status, for real', () => {
  it("reaches filled, placed and rejected with the platform's errors under their TRADE_RETCODE names", async () => {
    await e2e.control(`/control/accounts/OmegaCapital-Demo/${accounts.omega.login}/faults`, 'PUT', { requote: true, remaining: 1 });
    await e2e.control(`/control/accounts/DeltaPrime-ECN/${accounts.delta.login}/faults`, 'PUT', { reject_code: 132, remaining: 1 });
    const response = await e2e.api('POST', '/v1/orders', {
      defaults: { operation: 'buy', volume: 0.1 },
      orders: [
        { account_id: accounts.alpha.id, symbol: 'EURUSD' },
        { account_id: accounts.beta.id, symbol: 'GBPUSD.xx', operation: 'sellLimit', price: 2 },
        { account_id: accounts.gamma.id, symbol: 'EURUSDm', volume: 45 },
        { account_id: accounts.gamma.id, symbol: 'EURUSDm', stop_loss: 5 },
        { account_id: accounts.omega.id, symbol: 'EURUSD' },
        { account_id: accounts.delta.id, symbol: 'EURUSD-ecn' },
        { account_id: accounts.gamma.id, symbol: 'EURUSDm', operation: 'sellStopLimit', price: 0.5, stop_limit_price: 0.6 },
        { account_id: accounts.alpha.id, symbol: 'EURUSD', volume: 0.015 },
      ],
    });
    expect(response.status).toBe(200);
    expect(
      response.body.results.map((result: { status: string; retcode_description?: string }) => [result.status, result.retcode_description]),
    ).toEqual([
      ['filled', 'TRADE_RETCODE_DONE'],
      ['placed', 'TRADE_RETCODE_PLACED'],
      ['rejected', 'TRADE_RETCODE_NO_MONEY'],
      ['rejected', 'TRADE_RETCODE_INVALID_STOPS'],
      ['rejected', 'TRADE_RETCODE_REQUOTE'],
      ['rejected', 'TRADE_RETCODE_MARKET_CLOSED'],
      ['rejected', 'TRADE_RETCODE_INVALID_ORDER'],
      ['rejected', 'TRADE_RETCODE_INVALID_VOLUME'],
    ]);
    expect(response.body.summary).toEqual({ requested: 8, filled: 1, placed: 1, failed: 6, unknown: 0 });
  });

  it('reaches unavailable for the legs of a platform whose connector is stopped, and recovers when it is back', async () => {
    const connector = e2e.stack.services.get('connector-mt4')!;
    await connector.stop();
    try {
      const response = await e2e.api('POST', '/v1/orders', {
        defaults: { operation: 'buy', volume: 0.1 },
        orders: [
          { account_id: accounts.gamma.id, symbol: 'EURUSDm' },
          { account_id: accounts.alpha.id, symbol: 'EURUSD' },
        ],
      });
      expect(response.body.results.map((result: { status: string }) => result.status)).toEqual(['unavailable', 'filled']);
      expect(response.body.results[0].retcode).toBeUndefined();
      expect(response.body.results[0].message).toContain('no mt4 terminal');
    } finally {
      await connector.restart();
    }
    // The account's terminal dials the restarted connector again (backing off at most 2 s): trading resumes then.
    const again = await eventually(async () => {
      const answer = await e2e.api('POST', '/v1/orders', {
        orders: [{ account_id: accounts.gamma.id, symbol: 'EURUSDm', operation: 'buy', volume: 0.1 }],
      });
      return answer.body.results[0].status === 'unavailable' ? undefined : answer;
    }, 10_000);
    expect(again.body.results[0].status).toBe('filled');
  });

  it('reaches unknown when the broker hangs past the deadline, and reconciliation settles it in the stored batch', async () => {
    // Held past the connector's wait for the terminal (BROKER_CALL_DEADLINE_MS 4 s): the terminal, busy with it,
    // answers the reconciliation's lookup once the trade server has answered.
    await e2e.control(`/control/accounts/BetaMarkets-Server/${accounts.beta.login}/faults`, 'PUT', { hang_ms: 5_000, remaining: 1 });
    try {
      const response = await e2e.api('POST', '/v1/orders', {
        orders: [{ account_id: accounts.beta.id, symbol: 'EURUSD.xx', operation: 'buy', volume: 0.1 }],
      });
      expect(response.status).toBe(200);
      expect(response.body.results[0]).toMatchObject({ status: 'unknown', order: 0 });
      expect(response.body.results[0].retcode).toBeUndefined();
      expect(response.body.summary.unknown).toBe(1);
      const settled = await eventually(
        async () => {
          const batch = await e2e.api('GET', `/v1/orders/batches/${response.body.batch_id}`);
          return batch.body.settled ? batch.body : undefined;
        },
        15_000,
        250,
      );
      expect(settled.results[0]).toMatchObject({ status: 'filled', retcode_description: 'TRADE_RETCODE_DONE' });
      expect(settled.results[0].message).toContain('reconciliation');
      expect(settled.summary).toMatchObject({ filled: 1, unknown: 0 });
    } finally {
      await e2e.control(`/control/accounts/BetaMarkets-Server/${accounts.beta.login}/faults`, 'DELETE');
    }
  });
});

describe('POST /v1/orders/close end to end', () => {
  it('closes by base symbol, by tickets, and reports nothing_matched and skipped beyond 20', async () => {
    const omega = `/control/accounts/OmegaCapital-Demo/${accounts.omega.login}`;
    const seeded: number[] = [];
    for (let index = 0; index < 22; index++)
      seeded.push((await e2e.control(`${omega}/positions`, 'POST', { symbol: 'USDJPY', type: 'buy', volume: 0.01, magic: 9 })).body.ticket);
    const pending = (await e2e.control(`${omega}/orders`, 'POST', { symbol: 'XAUUSD', type: 'buy_limit', volume: 0.01, price: 1_000 })).body
      .ticket;
    const response = await e2e.api('POST', '/v1/orders/close', {
      accounts: [
        { account_id: accounts.omega.id, symbol: 'USDJPY', symbol_match: 'base', magic: 9 },
        { account_id: accounts.alpha.id, symbol: 'NZDUSD' },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body.results[0]).toMatchObject({ status: 'partial', matched: 22, closed: 20 });
    expect(
      response.body.results[0].results
        .filter((ticket: { status: string }) => ticket.status === 'skipped')
        .map((ticket: { ticket: number }) => ticket.ticket),
    ).toEqual(seeded.slice(20));
    // Every field the spec lists, filled in every case: a skipped ticket names why, and has no close price.
    for (const ticket of response.body.results[0].results.filter((entry: { status: string }) => entry.status === 'skipped')) {
      expect(ticket).toMatchObject({
        retcode: 10033,
        retcode_description: 'TRADE_RETCODE_LIMIT_ORDERS',
        price: 0,
        symbol: 'USDJPY',
        kind: 'position',
      });
    }
    for (const ticket of response.body.results[0].results.filter((entry: { status: string }) => entry.status === 'closed'))
      expect(ticket.price).toBeGreaterThan(0);
    expect(response.body.results[1]).toMatchObject({ status: 'nothing_matched', matched: 0 });
    const byTicket = await e2e.api('POST', '/v1/orders/close', {
      accounts: [{ account_id: accounts.omega.id, tickets: [...seeded.slice(20), pending] }],
    });
    expect(byTicket.body.results[0]).toMatchObject({ status: 'closed', matched: 3, closed: 3 });
    expect(byTicket.body.results[0].results.map((ticket: { kind: string }) => ticket.kind)).toEqual(['position', 'position', 'pending']);
    const state = (await e2e.control(omega)).body;
    expect(
      state.positions.filter((position: { symbol: string; magic: number }) => position.symbol === 'USDJPY' && position.magic === 9),
    ).toHaveLength(0);
    expect(
      state.positions.filter((position: { symbol: string; magic: number }) => position.symbol === 'USDJPY' && position.magic === 0).length,
    ).toBeGreaterThan(0);
    expect(state.orders).toHaveLength(0);
  });

  it('refuses a close without symbol and one with require_reachable when a terminal is missing, sending nothing', async () => {
    const missing = await e2e.api('POST', '/v1/orders/close', { accounts: [{ account_id: accounts.alpha.id }] });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'invalid_request', param: 'symbol' });
    const connector = e2e.stack.services.get('connector-mt5')!;
    await connector.stop();
    try {
      const before = await stats();
      const refused = await e2e.api('POST', '/v1/orders/close', {
        symbol: '*',
        require_reachable: true,
        accounts: [{ account_id: accounts.alpha.id }, { account_id: accounts.gamma.id }],
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('accounts_unreachable');
      expect(refused.body.error.details.account_ids).toEqual([accounts.alpha.id]);
      expect((await stats()).trade_requests_received).toBe(before.trade_requests_received);
    } finally {
      await connector.restart();
    }
  });
});
