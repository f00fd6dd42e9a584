import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instruments } from '../../services/broker-sim/src/domain/catalog';
import { startExecutionE2e, type ExecutionE2e } from './execution-helpers';

let e2e: ExecutionE2e;
type Account = Awaited<ReturnType<ExecutionE2e['connect']>>;
const accounts: Record<'alpha' | 'beta' | 'omega', Account> = {} as never;

const tradeRequests = async () => (await e2e.control('/control/stats')).body.trade_requests_received as number;
const controlOf = (account: Account) => `/control/accounts/${account.server}/${account.login}`;

function query(parameters: Record<string, string | number | Array<string>>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters))
    for (const each of Array.isArray(value) ? value : [value]) search.append(name, String(each));
  return search.toString();
}

beforeAll(async () => {
  e2e = await startExecutionE2e('e2eportfolio');
  await e2e.control('/control/prices', 'POST', { frozen_all: true });
  accounts.alpha = await e2e.connect('mt5', 'AlphaFX-Live');
  accounts.beta = await e2e.connect('mt5', 'BetaMarkets-Server');
  accounts.omega = await e2e.connect('mt4', 'OmegaCapital-Demo');
}, 240_000);

afterAll(async () => e2e?.close());

describe('GET /v1/positions', () => {
  it('lists exactly the tickets a close with the same selector takes, in its order, on hedging and netting accounts', async () => {
    const alpha = controlOf(accounts.alpha);
    const omega = controlOf(accounts.omega);
    // Hedging MT5 with the broker's EURUSD variants, pending orders and magic numbers.
    for (const [symbol, type, magic] of [
      ['EURUSD', 'buy', 7],
      ['EURUSD.xx', 'sell', 7],
      ['EURUSDm', 'buy', 8],
      ['GBPUSD', 'buy', 7],
      ['EURUSDPRO', 'sell', 7],
    ] as const)
      expect((await e2e.control(`${alpha}/positions`, 'POST', { symbol, type, volume: 0.1, magic })).status).toBe(201);
    await e2e.control(`${alpha}/orders`, 'POST', { symbol: 'EURUSD', type: 'buy_limit', volume: 0.1, price: 0.9, magic: 7 });
    // Netting MT5: positions come from trades, one per symbol.
    const placed = await e2e.api('POST', '/v1/orders', {
      orders: [
        { account_id: accounts.beta.id, symbol: 'EURUSD.xx', operation: 'buy', volume: 0.3, expert_id: 7 },
        { account_id: accounts.beta.id, symbol: 'GBPUSD.xx', operation: 'sell', volume: 0.2, expert_id: 7 },
        { account_id: accounts.beta.id, symbol: 'EURUSD.xx', operation: 'sellLimit', volume: 0.1, price: 1.5, expert_id: 7 },
      ],
    });
    expect(placed.body.summary).toMatchObject({ filled: 2, placed: 1 });
    // Hedging MT4.
    for (const [symbol, type] of [
      ['EURUSD', 'sell'],
      ['USDJPY', 'buy'],
      ['EURUSD', 'buy'],
    ] as const)
      await e2e.control(`${omega}/positions`, 'POST', { symbol, type, volume: 0.01, magic: 7 });
    await e2e.control(`${omega}/orders`, 'POST', { symbol: 'EURUSD', type: 'sell_stop', volume: 0.01, price: 0.5, magic: 7 });

    const ids = [accounts.omega.id, accounts.alpha.id, accounts.beta.id];
    const selectors: Array<Record<string, string | number>> = [
      { symbol: 'EURUSD', symbol_match: 'base', side: 'short', kind: 'any' },
      { symbol: 'EURUSD', kind: 'pending' },
      { symbol: 'EURUSD', symbol_match: 'base', magic: 7 },
      { symbol: '*', kind: 'any' },
    ];
    for (const selector of selectors) {
      const read = await e2e.api('GET', `/v1/positions?${query({ account_id: ids, ...selector })}`);
      expect(read.status).toBe(200);
      expect(read.body.results.map((result: { account_id: string }) => result.account_id)).toEqual(ids);
      expect(read.body.results.every((result: { status: string }) => result.status === 'ok')).toBe(true);
      const listed = read.body.results.map((result: { positions: Array<{ ticket: number }> }) =>
        result.positions.map((item) => item.ticket),
      );
      expect(listed.flat().length).toBeGreaterThan(0);
      expect(read.body.summary).toEqual({ accounts: 3, positions: listed.flat().length, unavailable: 0, unknown: 0 });

      const closed = await e2e.api('POST', '/v1/orders/close', { ...selector, accounts: ids.map((account_id) => ({ account_id })) });
      expect(closed.status).toBe(200);
      const taken = closed.body.results.map((result: { results: Array<{ ticket: number }> }) =>
        result.results.map((ticket) => ticket.ticket),
      );
      expect(listed, JSON.stringify(selector)).toEqual(taken);
      const after = await e2e.api('GET', `/v1/positions?${query({ account_id: ids, ...selector })}`);
      expect(after.body.summary.positions).toBe(0);
    }
  });

  it('reads every account when none is named, in the accounts list order, and values each at current prices', async () => {
    await e2e.control('/control/prices', 'POST', { symbol: 'EURUSD', bid: 1.1, frozen: true });
    const seeded = (
      await e2e.control(`${controlOf(accounts.omega)}/positions`, 'POST', {
        symbol: 'EURUSD',
        type: 'buy',
        volume: 1,
        price: 1.09,
        magic: 4242,
        held_days: 3,
      })
    ).body;
    const read = await e2e.api('GET', `/v1/positions?${query({ symbol: 'EURUSD', magic: 4242 })}`, undefined, {
      authorization: `Bearer ${e2e.keys.read}`,
    });
    expect(read.status).toBe(200);
    const listed = (await e2e.api('GET', '/v1/accounts')).body.accounts.map((account: { id: string }) => account.id);
    expect(read.body.results.map((result: { account_id: string }) => result.account_id)).toEqual(listed);
    const omega = read.body.results.find((result: { account_id: string }) => result.account_id === accounts.omega.id);
    expect(omega.positions).toHaveLength(1);
    const position = omega.positions[0];
    const contractSize = instruments.EURUSD!.contractSize;
    expect(position).toMatchObject({ ticket: seeded.ticket, symbol: 'EURUSD', type: 'buy', kind: 'position', volume: 1, magic: 4242 });
    expect(position.open_price).toBe(1.09);
    expect(position.current_price).toBe(1.1);
    expect(position.profit).toBeCloseTo((1.1 - 1.09) * contractSize, 2);
    expect(position.swap).toBeCloseTo(instruments.EURUSD!.swapLongPerLot * 3, 2);
    expect(Date.parse(position.opened_at)).toBeLessThan(Date.now() - 2 * 86_400_000);

    const before = (await e2e.api('GET', `/v1/accounts/${accounts.omega.id}/state`)).body;
    await e2e.control('/control/prices', 'POST', { symbol: 'EURUSD', bid: 1.102, frozen: true });
    const moved = (await e2e.api('GET', `/v1/positions?${query({ account_id: accounts.omega.id, symbol: 'EURUSD', magic: 4242 })}`)).body
      .results[0].positions[0];
    expect(moved.current_price).toBe(1.102);
    expect(moved.profit - position.profit).toBeCloseTo(0.002 * contractSize, 2);
    const after = (await e2e.api('GET', `/v1/accounts/${accounts.omega.id}/state`)).body;
    expect(after.balance).toBe(before.balance);
    expect(after.equity - before.equity).toBeCloseTo(0.002 * contractSize, 2);

    // Closing pays the accrued swap into the balance with the profit.
    const closed = await e2e.api('POST', '/v1/orders/close', { accounts: [{ account_id: accounts.omega.id, tickets: [seeded.ticket] }] });
    expect(closed.body.results[0].status).toBe('closed');
    const settled = (await e2e.api('GET', `/v1/accounts/${accounts.omega.id}/state`)).body;
    expect(settled.balance - after.balance).toBeCloseTo(moved.profit + moved.swap, 2);
  });

  it('reports an account it cannot read as unavailable, without failing the others', async () => {
    const beta = controlOf(accounts.beta);
    await e2e.control(`${beta}/faults`, 'PUT', { disconnect: true });
    try {
      const read = await e2e.api('GET', `/v1/positions?${query({ account_id: [accounts.alpha.id, accounts.beta.id] })}`);
      expect(read.status).toBe(200);
      expect(read.body.results[0]).toMatchObject({ account_id: accounts.alpha.id, status: 'ok' });
      expect(read.body.results[1]).toMatchObject({ account_id: accounts.beta.id, status: 'unavailable', positions: [] });
      expect(read.body.results[1].message).not.toBe('');
      expect(read.body.summary).toMatchObject({ accounts: 2, unavailable: 1, unknown: 0 });
      const state = await e2e.api('GET', `/v1/accounts/${accounts.beta.id}/state`);
      expect(state.status).toBe(200);
      expect(state.body).toMatchObject({ connected: false, reason: 'no_connection', balance: null, equity: null, margin_level: null });
    } finally {
      await e2e.control(`${beta}/faults`, 'DELETE');
    }
    const connector = e2e.stack.services.get('connector-mt4')!;
    await connector.stop();
    try {
      const read = await e2e.api('GET', `/v1/positions?${query({ account_id: [accounts.omega.id, accounts.alpha.id] })}`);
      expect(read.body.results[0]).toMatchObject({ account_id: accounts.omega.id, status: 'unavailable' });
      expect(read.body.results[1]).toMatchObject({ account_id: accounts.alpha.id, status: 'ok' });
      // No terminal of the account is attached anywhere: that is its state, read at once.
      const state = await e2e.api('GET', `/v1/accounts/${accounts.omega.id}/state`);
      expect(state.status).toBe(200);
      expect(state.body).toMatchObject({ connected: false, reason: 'no_connection', balance: null });
      expect(state.body.message).toContain('no mt4 terminal is attached');
    } finally {
      await connector.restart();
    }
  });

  it('refuses bad input with a clear 400 and reads nothing of another customer', async () => {
    const other = await e2e.newCustomer('portfolio other');
    const asOther = { authorization: `Bearer ${other.full}` };
    const otherAccount = await e2e.api(
      'POST',
      '/v1/accounts',
      { platform: 'mt4', server: 'OmegaCapital-Demo', login: '7700001', password: 'pw-x' },
      asOther,
    );
    expect(otherAccount.status).toBe(201);
    const sent = await tradeRequests();
    const cases: Array<[string, number, string, string?]> = [
      [query({ account_id: Array.from({ length: 21 }, (_, index) => `acc_${index}`) }), 400, 'too_many_accounts', 'account_id'],
      [query({ account_id: otherAccount.body.id }), 400, 'unknown_account', 'account_id'],
      [query({ account_id: 'acc_doesnotexist' }), 400, 'unknown_account', 'account_id'],
      [query({ account_id: [accounts.alpha.id, accounts.alpha.id] }), 400, 'invalid_request', 'account_id'],
      [query({ symbol_match: 'fuzzy' }), 400, 'invalid_request', 'symbol_match'],
      [query({ side: 'up' }), 400, 'invalid_request', 'side'],
      [query({ magic: -1 }), 400, 'invalid_request', 'magic'],
      [query({ magic: '1.5' }), 400, 'invalid_request', 'magic'],
      [query({ volume: 1 }), 400, 'unknown_field', 'volume'],
    ];
    for (const [search, status, code, param] of cases) {
      const response = await e2e.api('GET', `/v1/positions?${search}`);
      expect(response.status, search).toBe(status);
      expect(response.body.error.code, search).toBe(code);
      if (param) expect(response.body.error.param, search).toBe(param);
    }
    expect((await e2e.api('GET', `/v1/accounts/${otherAccount.body.id}/state`)).status).toBe(404);
    expect((await e2e.api('GET', '/v1/accounts/acc_doesnotexist/state')).status).toBe(404);
    expect((await e2e.api('GET', `/v1/accounts/${accounts.alpha.id}/state`, undefined, asOther)).status).toBe(404);
    // The other customer's read covers its own account only.
    const theirs = await e2e.api('GET', '/v1/positions', undefined, asOther);
    expect(theirs.body.results.map((result: { account_id: string }) => result.account_id)).toEqual([otherAccount.body.id]);
    expect(await tradeRequests()).toBe(sent);
  });

  it('refuses a read of every account when the customer has more than 20', async () => {
    const crowded = await e2e.newCustomer('portfolio crowded');
    const asCrowded = { authorization: `Bearer ${crowded.full}` };
    for (let index = 0; index < 21; index++) {
      const connected = await e2e.api(
        'POST',
        '/v1/accounts',
        { platform: 'mt4', server: 'OmegaCapital-Demo', login: `78000${index}`, password: 'pw-crowd' },
        asCrowded,
      );
      expect(connected.status).toBe(201);
    }
    const every = await e2e.api('GET', '/v1/positions', undefined, asCrowded);
    expect(every.status).toBe(400);
    expect(every.body.error).toMatchObject({ code: 'too_many_accounts', param: 'account_id' });
    const named = await e2e.api('GET', `/v1/positions?${query({ account_id: [] })}`, undefined, asCrowded);
    expect(named.status).toBe(400);
  });
});

describe('GET /v1/accounts/{id}/state', () => {
  it("reports the terminal's figures, consistent with each other, to a read-only key", async () => {
    const state = await e2e.api('GET', `/v1/accounts/${accounts.alpha.id}/state`, undefined, { authorization: `Bearer ${e2e.keys.read}` });
    expect(state.status).toBe(200);
    const body = state.body;
    expect(body).toMatchObject({ account_id: accounts.alpha.id, platform: 'mt5', connected: true, currency: 'USD', leverage: 100 });
    expect(body.server).toBe('AlphaFX-Live');
    expect(body.margin_mode).toBe('hedging');
    expect(body.free_margin).toBeCloseTo(body.equity - body.margin, 2);
    if (body.margin > 0) expect(body.margin_level).toBeCloseTo((body.equity / body.margin) * 100, 1);
    else expect(body.margin_level).toBeNull();
    expect(body.equity).toBeCloseTo(body.balance + body.profit, 2);
    expect(Math.abs(Date.parse(body.server_time) - Date.now())).toBeLessThan(60_000);
  });
});

describe('GET /v1/orders/batches', () => {
  it('lists the batches newest first, a page at a time, filtered by kind and creation time, with their summaries', async () => {
    const startedAt = new Date().toISOString();
    const made: Array<{ id: string; kind: string }> = [];
    for (let index = 0; index < 4; index++) {
      const placed = await e2e.api('POST', '/v1/orders', {
        orders: [{ account_id: accounts.alpha.id, symbol: 'GBPUSD', operation: 'buy', volume: 0.01, comment: `list ${index}` }],
      });
      expect(placed.status).toBe(200);
      made.push({ id: placed.body.batch_id, kind: 'orders' });
      if (index % 2 === 1) {
        const closed = await e2e.api('POST', '/v1/orders/close', { symbol: 'NZDUSD', accounts: [{ account_id: accounts.alpha.id }] });
        made.push({ id: closed.body.batch_id, kind: 'close' });
      }
    }
    const newestFirst = [...made].reverse();
    const pages: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 3; page++) {
      const response = await e2e.api(
        'GET',
        `/v1/orders/batches?${query({ limit: 2, created_gte: startedAt, ...(cursor ? { starting_after: cursor } : {}) })}`,
        undefined,
        { authorization: `Bearer ${e2e.keys.read}` },
      );
      expect(response.status).toBe(200);
      pages.push(...response.body.data.map((batch: { batch_id: string }) => batch.batch_id));
      expect(response.body.has_more).toBe(page < 2);
      cursor = response.body.data.at(-1)?.batch_id;
    }
    expect(pages).toEqual(newestFirst.map((batch) => batch.id));

    const closes = await e2e.api('GET', `/v1/orders/batches?${query({ kind: 'close', created_gte: startedAt })}`);
    expect(closes.body.data.map((batch: { batch_id: string }) => batch.batch_id)).toEqual(
      newestFirst.filter((batch) => batch.kind === 'close').map((batch) => batch.id),
    );
    expect(closes.body.has_more).toBe(false);

    const listed = (await e2e.api('GET', `/v1/orders/batches?${query({ limit: 100, created_gte: startedAt })}`)).body.data;
    for (const entry of listed) {
      const stored = (await e2e.api('GET', `/v1/orders/batches/${entry.batch_id}`)).body;
      expect(entry).toEqual({
        batch_id: stored.batch_id,
        kind: stored.kind,
        created_at: stored.created_at,
        settled: stored.settled,
        summary: stored.summary,
      });
    }
    const third = listed[2];
    const before = await e2e.api('GET', `/v1/orders/batches?${query({ created_lt: third.created_at, created_gte: startedAt })}`);
    expect(before.body.data.map((batch: { batch_id: string }) => batch.batch_id)).toEqual(
      listed
        .filter((batch: { created_at: string }) => batch.created_at < third.created_at)
        .map((batch: { batch_id: string }) => batch.batch_id),
    );
    const future = await e2e.api('GET', `/v1/orders/batches?${query({ created_gte: new Date(Date.now() + 3_600_000).toISOString() })}`);
    expect(future.body).toEqual({ data: [], has_more: false });
  });

  it('shows a customer only its own batches, and refuses a cursor or a filter it cannot read with 400', async () => {
    const mine = await e2e.api('POST', '/v1/orders/close', { symbol: 'NZDUSD', accounts: [{ account_id: accounts.alpha.id }] });
    const other = await e2e.newCustomer('batches other');
    const asOther = { authorization: `Bearer ${other.read}` };
    const theirs = await e2e.api('GET', '/v1/orders/batches', undefined, asOther);
    expect(theirs.body).toEqual({ data: [], has_more: false });
    const cursorOfMine = await e2e.api('GET', `/v1/orders/batches?starting_after=${mine.body.batch_id}`, undefined, asOther);
    expect(cursorOfMine.status).toBe(400);
    expect(cursorOfMine.body.error.param).toBe('starting_after');
    for (const [search, code, param] of [
      ['limit=0', 'invalid_request', 'limit'],
      ['limit=101', 'invalid_request', 'limit'],
      ['limit=ten', 'invalid_request', 'limit'],
      ['kind=trades', 'invalid_request', 'kind'],
      ['created_gte=yesterday', 'invalid_request', 'created_gte'],
      ['starting_after=bat_NoSuchBatch0000000000', 'invalid_request', 'starting_after'],
      ['starting_after=batch-1', 'invalid_request', 'starting_after'],
      ['cursor=x', 'unknown_field', 'cursor'],
    ] as const) {
      const response = await e2e.api('GET', `/v1/orders/batches?${search}`);
      expect(response.status, search).toBe(400);
      expect(response.body.error, search).toMatchObject({ code, param });
    }
  });
});
