import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUnaryClient } from '@mtx/shared/grpc';
import { startExecutionE2e, type ExecutionE2e } from './execution-helpers';

/**
 * POST /v1/orders/modify on the real stack (gateway, execution, both connectors, broker-sim's terminals): stops
 * moved on every match across MT4 and MT5, hedging and netting accounts; a pending order's price and expiration;
 * 0 removes a stop and an omitted field stays; every bad input refused with nothing changed at the broker.
 */
let e2e: ExecutionE2e;
type Account = Awaited<ReturnType<ExecutionE2e['connect']>>;
const accounts: Record<'alpha' | 'beta' | 'gamma' | 'omega', Account> = {} as never;
const all = () => Object.values(accounts);

const controlOf = (account: Account) => `/control/accounts/${account.server}/${account.login}`;
const snapshot = async (account: Account) => (await e2e.control(controlOf(account))).body;
const tradeRequests = async () => (await e2e.control('/control/stats')).body.trade_requests_received as number;
const modifyRequests = async (account: Account) =>
  (await e2e.control(`${controlOf(account)}/requests`)).body.requests.filter((record: { action: string }) => record.action === 'modify');
const bid = 1.1;

/** Every open item of the accounts at the broker, as [ticket, sl, tp, price]. */
async function brokerItems(): Promise<Array<[number, number, number, number]>> {
  const items: Array<[number, number, number, number]> = [];
  for (const account of all()) {
    const view = await snapshot(account);
    for (const position of view.positions) items.push([position.ticket, position.sl, position.tp, position.priceOpen]);
    for (const order of view.orders) items.push([order.ticket, order.sl, order.tp, order.price]);
  }
  return items.sort((left, right) => left[0] - right[0]);
}

beforeAll(async () => {
  e2e = await startExecutionE2e('e2edeskmodify');
  await e2e.control('/control/prices', 'POST', { frozen_all: true });
  await e2e.control('/control/prices', 'POST', { symbol: 'EURUSD', bid, frozen: true });
  await e2e.control('/control/prices', 'POST', { symbol: 'GBPUSD', bid: 1.3, frozen: true });
  accounts.alpha = await e2e.connect('mt5', 'AlphaFX-Live');
  accounts.beta = await e2e.connect('mt5', 'BetaMarkets-Server');
  accounts.gamma = await e2e.connect('mt4', 'GammaTrade-Real');
  accounts.omega = await e2e.connect('mt4', 'OmegaCapital-Demo');
  // Long EURUSD on every account (two on the hedging ones), a short GBPUSD that no EURUSD selector may touch.
  const placed = await e2e.api('POST', '/v1/orders', {
    defaults: { operation: 'buy', volume: 0.1 },
    orders: [
      ...all().map((account) => ({ account_id: account.id, symbol: `EURUSD${account.symbol_suffix}` })),
      { account_id: accounts.alpha.id, symbol: 'EURUSD' },
      { account_id: accounts.omega.id, symbol: 'EURUSD' },
      { account_id: accounts.alpha.id, symbol: 'GBPUSD', operation: 'sell' },
    ],
  });
  expect(placed.body.summary, JSON.stringify(placed.body)).toMatchObject({ filled: 7 });
}, 240_000);

afterAll(async () => e2e?.close());

describe('POST /v1/orders/modify', () => {
  it('moves the stops of every matching ticket on MT4 and MT5, hedging and netting, in one call', async () => {
    const answer = await e2e.api('POST', '/v1/orders/modify', {
      symbol: 'EURUSD',
      symbol_match: 'base',
      stop_loss: 1.09,
      take_profit: 1.12,
      accounts: all().map((account) => ({ account_id: account.id })),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.summary).toEqual({ accounts: 4, matched: 6, modified: 6, failed: 0, unknown: 0, accounts_unknown: 0 });
    expect(answer.body.results.map((result: { status: string; matched: number }) => [result.status, result.matched])).toEqual([
      ['modified', 2],
      ['modified', 1],
      ['modified', 1],
      ['modified', 2],
    ]);
    for (const result of answer.body.results)
      for (const ticket of result.results)
        expect(ticket).toMatchObject({ status: 'modified', stop_loss: 1.09, take_profit: 1.12, kind: 'position' });
    // At the broker: every EURUSD position carries the stops, the GBPUSD one none; one modify per ticket.
    for (const account of all()) {
      const positions = (await snapshot(account)).positions as Array<{ ticket: number; symbol: string; sl: number; tp: number }>;
      for (const position of positions)
        expect([position.symbol, position.sl, position.tp]).toEqual(
          position.symbol.startsWith('EURUSD') ? [position.symbol, 1.09, 1.12] : [position.symbol, 0, 0],
        );
      const modifies = await modifyRequests(account);
      expect(modifies.map((record: { ticket: number }) => record.ticket).sort()).toEqual(
        positions
          .filter((position) => position.symbol.startsWith('EURUSD'))
          .map((position) => position.ticket)
          .sort(),
      );
    }
  });

  it('leaves an omitted field as it is, and 0 removes a stop', async () => {
    const ids = all().map((account) => ({ account_id: account.id }));
    const onlyTakeProfit = await e2e.api('POST', '/v1/orders/modify', {
      symbol: 'EURUSD',
      symbol_match: 'base',
      take_profit: 1.15,
      accounts: ids,
    });
    expect(onlyTakeProfit.body.summary.modified).toBe(6);
    const removed = await e2e.api('POST', '/v1/orders/modify', { symbol: 'EURUSD', symbol_match: 'base', stop_loss: 0, accounts: ids });
    expect(removed.body.summary.modified).toBe(6);
    for (const account of all())
      for (const position of (await snapshot(account)).positions.filter((item: { symbol: string }) => item.symbol.startsWith('EURUSD')))
        expect([position.sl, position.tp]).toEqual([0, 1.15]);
    const read = await e2e.api('GET', `/v1/positions?account_id=${accounts.beta.id}&symbol=EURUSD.xx`);
    expect(read.body.results[0].positions[0]).toMatchObject({ stop_loss: 0, take_profit: 1.15 });
  });

  it("moves a pending order's price and expiration on MT4 and MT5, and refuses them on a position without sending", async () => {
    const placed = await e2e.api('POST', '/v1/orders', {
      defaults: { operation: 'buyLimit', volume: 0.1, price: 1.0 },
      orders: [
        { account_id: accounts.alpha.id, symbol: 'EURUSD' },
        { account_id: accounts.omega.id, symbol: 'EURUSD' },
      ],
    });
    expect(placed.body.summary.placed).toBe(2);
    const expiration = new Date(Math.ceil((Date.now() + 86_400_000) / 1000) * 1000).toISOString();
    const pendingOnly = { symbol: 'EURUSD', kind: 'pending', price: 1.02, expiration, stop_loss: 1.0 };
    const answer = await e2e.api('POST', '/v1/orders/modify', {
      ...pendingOnly,
      accounts: [{ account_id: accounts.alpha.id }, { account_id: accounts.omega.id }],
    });
    expect(answer.body.summary).toMatchObject({ matched: 2, modified: 2 });
    for (const account of [accounts.alpha, accounts.omega]) {
      const [order] = (await snapshot(account)).orders;
      expect([order.price, order.sl, order.expirationMs]).toEqual([1.02, 1.0, Date.parse(expiration)]);
    }
    // kind any with only a price: the positions are rejected by our rule, unsent; the pending order moves.
    const before = await modifyRequests(accounts.alpha);
    const mixed = await e2e.api('POST', '/v1/orders/modify', {
      symbol: 'EURUSD',
      kind: 'any',
      price: 1.03,
      accounts: [{ account_id: accounts.alpha.id }],
    });
    const statuses = mixed.body.results[0].results.map((ticket: { kind: string; status: string }) => [ticket.kind, ticket.status]);
    expect(statuses.sort()).toEqual([
      ['pending', 'modified'],
      ['position', 'rejected'],
      ['position', 'rejected'],
    ]);
    expect(mixed.body.results[0].results.find((ticket: { kind: string }) => ticket.kind === 'position').message).toMatch(
      /pending orders only/,
    );
    expect((await modifyRequests(accounts.alpha)).length).toBe(before.length + 1);
  });

  it('answers tickets by ticket, a missing one rejected, and a trade server refusal with its retcode', async () => {
    const [position] = (await snapshot(accounts.beta)).positions;
    const answer = await e2e.api('POST', '/v1/orders/modify', {
      accounts: [{ account_id: accounts.beta.id, tickets: [position.ticket, 999_999_999] }],
      stop_loss: 1.2,
    });
    const [stops, missing] = answer.body.results[0].results;
    // A long position's stop loss above the price is invalid at the trade server.
    expect(stops).toMatchObject({ ticket: position.ticket, status: 'rejected', retcode: 10016 });
    expect(missing).toMatchObject({ ticket: 999_999_999, status: 'rejected', retcode: 10013 });
    expect(answer.body.summary).toMatchObject({ matched: 2, modified: 0, failed: 2 });
  });

  it('refuses every bad input with a 400 naming it, and changes nothing at the broker', async () => {
    const ids = [{ account_id: accounts.alpha.id }];
    const other = await e2e.newCustomer('modify stranger');
    const cases: Array<[Record<string, unknown>, string, string | undefined]> = [
      [{ symbol: 'EURUSD', accounts: ids }, 'invalid_request', 'stop_loss'],
      [{ symbol: 'EURUSD', stop_loss: -1, accounts: ids }, 'invalid_request', 'stop_loss'],
      [{ symbol: 'EURUSD', price: 0, kind: 'pending', accounts: ids }, 'invalid_request', 'price'],
      [{ symbol: 'EURUSD', price: 1.01, accounts: ids }, 'invalid_request', 'kind'],
      [{ symbol: 'EURUSD', kind: 'pending', expiration: '2001-01-01T00:00:00Z', accounts: ids }, 'invalid_request', 'expiration'],
      [{ symbol: 'EURUSD', stop_loss: 1, volume: 0.1, accounts: ids }, 'unknown_field', 'volume'],
      [{ stop_loss: 1, accounts: ids }, 'invalid_request', 'symbol'],
      [{ symbol: 'EURUSD', stop_loss: 1, defaults: { symbol: 'GBPUSD' }, accounts: ids }, 'invalid_request', 'symbol'],
      [
        { stop_loss: 1, accounts: [{ account_id: accounts.alpha.id, symbol: 'EURUSD', tickets: [1] }] },
        'invalid_request',
        'accounts[0].tickets',
      ],
      [{ symbol: 'EURUSD', stop_loss: 1, accounts: [{ account_id: 'acc_nobody' }] }, 'unknown_account', 'accounts[0].account_id'],
      [{ symbol: 'EURUSD', stop_loss: 1, accounts: [...ids, ...ids] }, 'invalid_request', 'accounts[1].account_id'],
      [
        { symbol: 'EURUSD', stop_loss: 1, accounts: Array.from({ length: 21 }, (_, index) => ({ account_id: `acc_${index}` })) },
        'too_many_accounts',
        'accounts',
      ],
    ];
    const itemsBefore = await brokerItems();
    const requestsBefore = await tradeRequests();
    for (const [body, code, param] of cases) {
      const answer = await e2e.api('POST', '/v1/orders/modify', body);
      expect([answer.status, answer.body.error?.code, answer.body.error?.param], JSON.stringify(body)).toEqual([400, code, param]);
    }
    // Another customer's account reads as unknown; a read-only key may not modify at all.
    const stranger = await e2e.api(
      'POST',
      '/v1/orders/modify',
      { symbol: 'EURUSD', stop_loss: 1, accounts: ids },
      { authorization: `Bearer ${other.full}` },
    );
    expect([stranger.status, stranger.body.error.code]).toEqual([400, 'unknown_account']);
    const readOnly = await e2e.api(
      'POST',
      '/v1/orders/modify',
      { symbol: 'EURUSD', stop_loss: 1, accounts: ids },
      { authorization: `Bearer ${e2e.keys.read}` },
    );
    expect([readOnly.status, readOnly.body.error.code]).toEqual([403, 'forbidden']);
    expect(await tradeRequests()).toBe(requestsBefore);
    expect(await brokerItems()).toEqual(itemsBefore);
  });

  it('replays an Idempotency-Key without modifying again, and caps each account at 20 matches', async () => {
    const body = { symbol: 'EURUSD', symbol_match: 'base', take_profit: 1.16, accounts: [{ account_id: accounts.gamma.id }] };
    const headers = { 'idempotency-key': `modify-${Date.now()}` };
    const first = await e2e.api('POST', '/v1/orders/modify', body, headers);
    const before = (await modifyRequests(accounts.gamma)).length;
    const again = await e2e.api('POST', '/v1/orders/modify', body, headers);
    expect(again.body).toEqual({ ...first.body, idempotent_replay: true });
    expect((await modifyRequests(accounts.gamma)).length).toBe(before);
    const reused = await e2e.api('POST', '/v1/orders/modify', { ...body, take_profit: 1.17 }, headers);
    expect([reused.status, reused.body.error.code]).toEqual([409, 'idempotency_key_reused']);

    for (let index = 0; index < 21; index++)
      await e2e.control(`${controlOf(accounts.omega)}/positions`, 'POST', { symbol: 'USDJPY', type: 'buy', volume: 0.01, magic: 77 });
    const capped = await e2e.api('POST', '/v1/orders/modify', {
      symbol: 'USDJPY',
      magic: 77,
      take_profit: 500,
      accounts: [{ account_id: accounts.omega.id }],
    });
    const statuses = capped.body.results[0].results.map((ticket: { status: string }) => ticket.status);
    expect(statuses.filter((status: string) => status === 'modified')).toHaveLength(20);
    expect(statuses.slice(20)).toEqual(['skipped']);
    expect(capped.body.results[0].message).toMatch(/over the cap of 20/);
  });

  it('sends nothing again for a request whose batch id was claimed before, and answers from the values found', async () => {
    const execution = createUnaryClient<any>(
      'execution/v1/execution.proto',
      'mtx.execution.v1.ExecutionService',
      e2e.stack.env.EXECUTION_GRPC_URL!,
      15_000,
    );
    try {
      const request = {
        customer_id: e2e.keys.customerId,
        defaults: { symbol: 'EURUSD', symbol_match: 'base' },
        accounts: [{ account_id: accounts.alpha.id, fields: {} }],
        change: { take_profit: 1.18 },
        batch_id: `bat_${'m'.repeat(14)}${Date.now().toString(36).slice(-6)}`,
      };
      const first = await execution.call('ModifyOrders', request, { deadlineMs: 10_000 });
      expect(first.summary).toMatchObject({ matched: 2, modified: 2 });
      const before = (await modifyRequests(accounts.alpha)).length;
      // The same batch id again, as a retry after a lost answer: the connector's claim refuses to send.
      const again = await execution.call('ModifyOrders', request, { deadlineMs: 10_000 });
      expect(again.results[0].results.map((ticket: { status: string; message: string }) => [ticket.status, ticket.message])).toEqual([
        ['modified', 'duplicate request: the original modify set these values; not sent again'],
        ['modified', 'duplicate request: the original modify set these values; not sent again'],
      ]);
      expect((await modifyRequests(accounts.alpha)).length).toBe(before);
      // Values that are not the ones asked for (changed since by another request) read as unknown, still unsent.
      await e2e.api('POST', '/v1/orders/modify', { symbol: 'EURUSD', take_profit: 1.19, accounts: [{ account_id: accounts.alpha.id }] });
      const changed = await execution.call('ModifyOrders', request, { deadlineMs: 10_000 });
      expect(changed.results[0].status).toBe('unknown');
      expect(changed.results[0].results.map((ticket: { status: string }) => ticket.status)).toEqual(['unknown', 'unknown']);
      expect((await modifyRequests(accounts.alpha)).length).toBe(before + 2);
    } finally {
      execution.close();
    }
  });
});
