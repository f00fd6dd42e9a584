import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { ManualClock } from '@mtx/shared/clock';
import { createUnaryClient, type UnaryClient } from '@mtx/shared/grpc';
import { createLogger } from '@mtx/shared/logger';
import fs from 'node:fs';
import path from 'node:path';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { createBrokerSimApp, type BrokerSimApp } from '../src/app';
import { findServer } from '../src/domain/catalog';
import {
  AccountState,
  closePosition,
  nextMarketEvent,
  openOrder,
  type AccountRecord,
  type EngineContext,
  type OpenRequest,
} from '../src/domain/engine';
import { PriceFeed } from '../src/domain/prices';
import { BrokerCallError, BrokerClient } from './broker-grpc-client';
import { grpc } from '@mtx/shared/grpc';

const logger = createLogger('broker-sim-test', { level: 'silent' });

function account(serverName: string, overrides: Partial<AccountRecord> = {}): AccountState {
  const server = findServer(serverName)!;
  return new AccountState(
    {
      key: `${server.name}:1`,
      server: server.name,
      login: '1',
      passwordHash: '',
      passwordSalt: '',
      initialBalance: 10_000,
      leverage: 100,
      marginMode: server.defaultMarginMode,
      platform: server.platform,
      createdAtMs: 0,
      ...overrides,
    },
    server,
  );
}

function context(prices: PriceFeed, nowMs = 1_000_000): EngineContext {
  let ticket = 100;
  return { prices, tickets: { next: () => ticket++ }, nowMs };
}

function open(overrides: Partial<OpenRequest>): OpenRequest {
  return {
    clientId: 'c',
    symbol: 'EURUSD',
    type: 0,
    volume: 0.1,
    price: 0,
    stopLimitPrice: 0,
    sl: 0,
    tp: 0,
    deviationPoints: undefined,
    magic: 0,
    comment: '',
    expirationMs: 0,
    ...overrides,
  };
}

function applyAll(state: AccountState, effects: Parameters<AccountState['apply']>[0][]): void {
  for (const effect of effects) state.apply(effect);
}

describe('trading engine', () => {
  it('opens hedging positions and re-tickets the remainder of an MT4 partial close', () => {
    const prices = new PriceFeed(() => 0.5);
    prices.set('EURUSD', 1.1, true);
    const mt4 = account('GammaTrade-Real');
    const ctx = context(prices);
    const first = openOrder(mt4, open({ symbol: 'EURUSDm', volume: 0.5 }), ctx);
    expect(first.outcome.ok).toBe(true);
    applyAll(mt4, first.effects);
    const second = openOrder(mt4, open({ symbol: 'eurusdm', volume: 0.2 }), ctx);
    applyAll(mt4, second.effects);
    expect(mt4.positions.size).toBe(2);
    const ticket = first.outcome.order;
    const partial = closePosition(mt4, { clientId: 'x', ticket, volume: 0.3, price: 0, deviationPoints: undefined }, ctx);
    expect(partial.outcome.ok).toBe(true);
    applyAll(mt4, partial.effects);
    expect(mt4.positions.has(ticket)).toBe(false);
    const remainder = mt4.positions.get(partial.outcome.newTicket!)!;
    expect(remainder.volume).toBeCloseTo(0.2);
    expect(remainder.comment).toBe(`from #${ticket}`);
  });

  it('nets an MT5 netting account into one position per symbol, reduces and reverses it', () => {
    const prices = new PriceFeed();
    prices.set('EURUSD', 1.1, true);
    const netting = account('BetaMarkets-Server');
    const ctx = context(prices);
    applyAll(netting, openOrder(netting, open({ symbol: 'EURUSD.xx', volume: 0.3 }), ctx).effects);
    applyAll(netting, openOrder(netting, open({ symbol: 'EURUSD.xx', volume: 0.2 }), ctx).effects);
    expect(netting.positions.size).toBe(1);
    expect([...netting.positions.values()][0]!.volume).toBeCloseTo(0.5);
    applyAll(netting, openOrder(netting, open({ symbol: 'EURUSD.xx', type: 1, volume: 0.7 }), ctx).effects);
    const position = [...netting.positions.values()][0]!;
    expect(position.type).toBe(1);
    expect(position.volume).toBeCloseTo(0.2);
    expect(netting.deals.at(-1)!.entry).toBe('inout');
  });

  it('refuses what a trade server refuses: volume step, stops level, margin, pending price, stop-limit on MT4, unknown symbols', () => {
    const prices = new PriceFeed();
    prices.set('EURUSD', 1.1, true);
    const mt5 = account('AlphaFX-Live');
    const ctx = context(prices);
    expect(openOrder(mt5, open({ volume: 0.015 }), ctx).outcome.error).toBe('invalid_volume');
    expect(openOrder(mt5, open({ volume: 0.01, sl: 1.09995 }), ctx).outcome.error).toBe('invalid_stops');
    expect(openOrder(mt5, open({ volume: 50 }), ctx).outcome.error).toBe('no_money');
    expect(openOrder(mt5, open({ type: 2, price: 1.1001 }), ctx).outcome.error).toBe('invalid_price');
    expect(openOrder(mt5, open({ symbol: 'EURUSD.zz' }), ctx).outcome.error).toBe('invalid_symbol');
    expect(openOrder(mt5, open({ price: 1.09, deviationPoints: 5 }), ctx).outcome.error).toBe('requote');
    expect(
      openOrder(account('GammaTrade-Real'), open({ symbol: 'EURUSDm', type: 6, price: 1.2, stopLimitPrice: 1.19 }), ctx).outcome.error,
    ).toBe('invalid_order');
    const placed = openOrder(mt5, open({ type: 2, price: 1.09 }), ctx);
    expect(placed.outcome.ok).toBe(true);
    expect(placed.effects[0]!.t).toBe('order_set');
  });

  it('lets the market trigger pending orders, stop-limits and stop losses, and expire orders', () => {
    const prices = new PriceFeed();
    prices.set('EURUSD', 1.1, true);
    const mt5 = account('AlphaFX-Live');
    const ctx = context(prices, 5_000);
    applyAll(mt5, openOrder(mt5, open({ type: 2, price: 1.095, clientId: 'limit' }), ctx).effects);
    applyAll(mt5, openOrder(mt5, open({ type: 6, price: 1.105, stopLimitPrice: 1.104, clientId: 'stoplimit' }), ctx).effects);
    applyAll(mt5, openOrder(mt5, open({ type: 3, price: 1.2, expirationMs: 6_000, clientId: 'expiring' }), ctx).effects);
    applyAll(mt5, openOrder(mt5, open({ volume: 0.1, sl: 1.09, clientId: 'stopped' }), ctx).effects);
    expect(mt5.orders.size).toBe(3);
    const drain = (at: number) => {
      for (let effects = nextMarketEvent(mt5, { ...ctx, nowMs: at }); effects; effects = nextMarketEvent(mt5, { ...ctx, nowMs: at }))
        applyAll(mt5, effects);
    };
    prices.set('EURUSD', 1.1051, true);
    drain(5_500);
    const converted = [...mt5.orders.values()].find((order) => order.clientId === 'stoplimit')!;
    expect(converted.type).toBe(2);
    expect(converted.price).toBe(1.104);
    prices.set('EURUSD', 1.089, true);
    drain(7_000);
    expect([...mt5.orders.values()].map((order) => order.clientId)).toEqual([]);
    const byClient = [...mt5.positions.values()].map((position) => position.clientId).sort();
    expect(byClient).toEqual(['limit', 'stoplimit']);
    expect(mt5.deals.some((deal) => deal.reason === 'sl')).toBe(true);
  });

  it('moves prices on ticks unless frozen', () => {
    const prices = new PriceFeed(() => 0.9);
    const before = prices.bidOf('EURUSD');
    prices.tick();
    expect(prices.bidOf('EURUSD')).not.toBe(before);
    prices.set('EURUSD', 1.2, true);
    prices.tick();
    expect(prices.bidOf('EURUSD')).toBe(1.2);
  });
});

describe('broker-sim service', () => {
  let app: BrokerSimApp;
  let client: UnaryClient<any>;
  let raw: BrokerClient;
  let controlUrl: string;
  let grpcAddress: string;
  const journalFile = path.join(inject('infrastructureDirectory'), 'broker-sim', `${testDatabasePrefix('bsim')}journal.ndjson`);
  const clock = new ManualClock('2030-01-07T10:00:00Z');

  const control = async (path: string, method = 'GET', body?: unknown) => {
    const response = await fetch(`${controlUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  async function start(): Promise<void> {
    app = await createBrokerSimApp({
      config: { BROKER_SIM_LATENCY_MS: 0, PRICE_TICK_MS: 0, GRPC_PORT: 0, HTTP_PORT: 0, HOST: '127.0.0.1' },
      journalFile,
      logger,
      clock,
    });
    await app.start();
    const ports = app.ports;
    controlUrl = `http://127.0.0.1:${ports.httpPort}`;
    grpcAddress = `127.0.0.1:${ports.grpcPort}`;
    client = createUnaryClient<any>('brokersim/v1/brokersim.proto', 'mtx.brokersim.v1.BrokerSimService', grpcAddress);
    raw = new BrokerClient(grpcAddress);
  }

  beforeAll(async () => {
    await start();
    await control('/control/prices', 'POST', { symbol: 'EURUSD', bid: 1.1, frozen: true });
  });

  afterAll(async () => {
    client?.close();
    raw?.close();
    await app?.stop(5_000);
    fs.rmSync(journalFile, { force: true });
  });

  it('serves health and lists brokers with different suffixes', async () => {
    expect((await control('/healthz')).status).toBe(200);
    const servers = (await control('/control/servers')).body.servers as Array<{ name: string; platform: string; symbol_suffix: string }>;
    expect(new Set(servers.map((server) => server.symbol_suffix))).toEqual(new Set(['', '.xx', 'm', '-ecn']));
    expect(new Set(servers.map((server) => server.platform))).toEqual(new Set(['mt4', 'mt5']));
  });

  it('opens an account on first login with the password seen and refuses another password', async () => {
    const login = await client.call('Login', { server: 'AlphaFX-Live', login: '7001', password: 'first' });
    expect(login.server.symbol_suffix).toBe('');
    expect(login.margin_mode).toBe('hedging');
    await expect(raw.call('Login', { server: 'AlphaFX-Live', login: '7001', password: 'other' }, 2_000)).rejects.toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
    });
    await expect(raw.call('Login', { server: 'NoSuch-Server', login: '7001', password: 'x' }, 2_000)).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
    });
  });

  it('executes a client id once and answers a repeat with the original result', async () => {
    const { session_id } = await client.call('Login', { server: 'AlphaFX-Live', login: '7002', password: 'pw' });
    const request = { session_id, client_id: 'dup-1', deadline_unix_ms: 0, action: 1, symbol: 'EURUSD', volume: 0.1, type: 0 };
    const [first, second] = await Promise.all([client.call('Mt5OrderSend', request), client.call('Mt5OrderSend', request)]);
    const third = await client.call('Mt5OrderSend', request);
    expect(first.retcode).toBe(10009);
    expect(second).toEqual(first);
    expect(third).toEqual(first);
    const deals = (await control('/control/accounts/AlphaFX-Live/7002/deals')).body.deals;
    expect(deals.filter((deal: { clientId: string }) => deal.clientId === 'dup-1')).toHaveLength(1);
  });

  it('refuses a request that arrives after its deadline and records it, so lookup proves it never executed', async () => {
    const { session_id } = await client.call('Login', { server: 'AlphaFX-Live', login: '7003', password: 'pw' });
    const late = await client.call('Mt5OrderSend', {
      session_id,
      client_id: 'late-1',
      deadline_unix_ms: clock.now().getTime() - 1,
      action: 1,
      symbol: 'EURUSD',
      volume: 0.1,
      type: 0,
    });
    expect(late.retcode).toBe(10012);
    const lookup = await client.call('LookupRequests', { session_id, client_ids: ['late-1', 'never-sent'] });
    expect(lookup.records).toHaveLength(1);
    expect(lookup.records[0].mt5.retcode).toBe(10012);
    expect((await control('/control/accounts/AlphaFX-Live/7003')).body.positions).toHaveLength(0);
  });

  it('answers MT4 requests with MT4 error numbers, and applies injected rejects, requotes and market closure', async () => {
    const { session_id } = await client.call('Login', { server: 'GammaTrade-Real', login: '4001', password: 'pw' });
    const send = (clientId: string, extra: object = {}) =>
      client.call('Mt4OrderSend', {
        session_id,
        client_id: clientId,
        deadline_unix_ms: 0,
        symbol: 'EURUSDm',
        cmd: 0,
        volume: 0.1,
        ...extra,
      });
    expect((await send('m4-ok')).error).toBe(0);
    expect((await send('m4-money', { volume: 40 })).error).toBe(134);
    expect((await send('m4-stops', { stoploss: 1.1 })).error).toBe(130);
    expect((await send('m4-volume', { volume: 0.015 })).error).toBe(131);
    expect((await send('m4-symbol', { symbol: 'EURUSD' })).error).toBe(4106);
    await control('/control/accounts/GammaTrade-Real/4001/faults', 'PUT', { reject_code: 133, remaining: 1 });
    expect((await send('m4-disabled')).error).toBe(133);
    expect((await send('m4-after-fault')).error).toBe(0);
    await control('/control/accounts/GammaTrade-Real/4001/faults', 'PUT', { requote: true });
    expect((await send('m4-requote')).error).toBe(138);
    await control('/control/accounts/GammaTrade-Real/4001/faults', 'PUT', { market_closed: true });
    expect((await send('m4-closed')).error).toBe(132);
    await control('/control/accounts/GammaTrade-Real/4001/faults', 'DELETE');
    expect((await send('m4-stoplimit', { cmd: 6, price: 1.2 })).error).toBe(3);
  });

  it('drops sessions and refuses logins while the account is disconnected', async () => {
    const { session_id } = await client.call('Login', { server: 'DeltaPrime-ECN', login: '4002', password: 'pw' });
    await control('/control/accounts/DeltaPrime-ECN/4002/faults', 'PUT', { disconnect: true });
    await expect(raw.call('Ping', { session_id }, 2_000)).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    await expect(raw.call('Login', { server: 'DeltaPrime-ECN', login: '4002', password: 'pw' }, 2_000)).rejects.toMatchObject({
      code: grpc.status.UNAVAILABLE,
    });
    await control('/control/accounts/DeltaPrime-ECN/4002/faults', 'DELETE');
    expect((await client.call('Login', { server: 'DeltaPrime-ECN', login: '4002', password: 'pw' })).session_id).toBeTruthy();
  });

  it('executes at once but holds the answer while hanging, until the caller gives up', async () => {
    const { session_id } = await client.call('Login', { server: 'AlphaFX-Live', login: '7004', password: 'pw' });
    await control('/control/accounts/AlphaFX-Live/7004/faults', 'PUT', { hang_ms: 60_000 });
    const started = Date.now();
    const error = await raw
      .call(
        'Mt5OrderSend',
        { session_id, client_id: 'hang-1', deadline_unix_ms: 0, action: 1, symbol: 'EURUSD', volume: 0.1, type: 0 },
        300,
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BrokerCallError);
    expect((error as BrokerCallError).code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(Date.now() - started).toBeLessThan(2_000);
    const lookup = await client.call('LookupRequests', { session_id, client_ids: ['hang-1'] });
    expect(lookup.records[0].state).toBe('done');
    expect(lookup.records[0].mt5.retcode).toBe(10009);
    await control('/control/accounts/AlphaFX-Live/7004/faults', 'DELETE');
  });

  it("carries many sessions' calls as frames on one terminal stream, answered by call id, with the unary semantics", async () => {
    const client = new BrokerClient(grpcAddress);
    try {
      const before = (await control('/control/stats')).body;
      const logins = await Promise.all(
        ['7010', '7013'].map((login) =>
          client.call<{ session_id: string }>('Login', { server: 'AlphaFX-Live', login, password: 'pw' }, 2_000),
        ),
      );
      const sends = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          client.call<{ retcode: number; order: number }>(
            'Mt5OrderSend',
            {
              session_id: logins[index % 2]!.session_id,
              client_id: `frame-${index}`,
              deadline_unix_ms: 0,
              action: 1,
              symbol: 'EURUSD',
              volume: 0.1,
              type: index % 2,
            },
            2_000,
          ),
        ),
      );
      expect(sends.map((send) => send.retcode)).toEqual(Array.from({ length: 6 }, () => 10009));
      expect(new Set(sends.map((send) => send.order)).size).toBe(6);
      // Each frame reached its own session's account: three positions each.
      for (const { session_id } of logins) {
        const positions = await client.call<{ positions: unknown[] }>('Mt5Positions', { session_id }, 2_000);
        expect(positions.positions).toHaveLength(3);
      }
      // A refusal keeps its status code: an unknown session is UNAUTHENTICATED, as a unary call's.
      const lost = await client.call('Mt5Positions', { session_id: 'no-such-session' }, 2_000).catch((caught: unknown) => caught);
      expect((lost as BrokerCallError).code).toBe(grpc.status.UNAUTHENTICATED);
      const after = (await control('/control/stats')).body;
      expect(after.terminal_streams_opened - before.terminal_streams_opened).toBe(1);
      expect(after.terminal_calls - before.terminal_calls).toBe(9);
      // The six sends were made in one turn: one message; the three calls after them went one at a time.
      expect(after.terminal_call_messages - before.terminal_call_messages).toBe(4);
      // Their answers, ready together, shared messages too.
      expect(after.terminal_answer_messages - before.terminal_answer_messages).toBeLessThan(9);
      expect(client.terminalCount).toBe(1);
    } finally {
      client.close();
    }
  });

  it('keeps each session on one of several streams when the client spreads them', async () => {
    const client = new BrokerClient(grpcAddress, { terminalStreamCount: 4 });
    try {
      const before = (await control('/control/stats')).body;
      const sessions = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          client.call<{ session_id: string }>('Login', { server: 'AlphaFX-Live', login: `72${10 + index}`, password: 'pw' }, 2_000),
        ),
      );
      for (let round = 0; round < 2; round += 1)
        await Promise.all(sessions.map(({ session_id }) => client.call('Mt5Positions', { session_id }, 2_000)));
      const after = (await control('/control/stats')).body;
      // Twelve random session ids over four streams: more than one is used, never more than four.
      const opened = after.terminal_streams_opened - before.terminal_streams_opened;
      expect(opened).toBeGreaterThan(1);
      expect(opened).toBeLessThanOrEqual(4);
      expect(client.terminalCount).toBe(opened);
      expect(after.terminal_calls - before.terminal_calls).toBe(24);
    } finally {
      client.close();
    }
  });

  it("sends a cancel frame when a call's deadline passes, which ends a held answer at the server", async () => {
    const client = new BrokerClient(grpcAddress);
    try {
      const { session_id } = await client.call<{ session_id: string }>(
        'Login',
        { server: 'AlphaFX-Live', login: '7011', password: 'pw' },
        2_000,
      );
      await control('/control/accounts/AlphaFX-Live/7011/faults', 'PUT', { hang_ms: 60_000 });
      const before = (await control('/control/stats')).body;
      const error = await client
        .call(
          'Mt5OrderSend',
          { session_id, client_id: 'cancel-1', deadline_unix_ms: 0, action: 1, symbol: 'EURUSD', volume: 0.1, type: 0 },
          200,
        )
        .catch((caught: unknown) => caught);
      expect((error as BrokerCallError).code).toBe(grpc.status.DEADLINE_EXCEEDED);
      await control('/control/accounts/AlphaFX-Live/7011/faults', 'DELETE');
      // The server ended the hold on the cancel: the stream answers the next call at once.
      const started = Date.now();
      const next = await client.call<{ retcode: number }>(
        'Mt5OrderSend',
        { session_id, client_id: 'cancel-2', deadline_unix_ms: 0, action: 1, symbol: 'EURUSD', volume: 0.1, type: 0 },
        2_000,
      );
      expect(next.retcode).toBe(10009);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect((await control('/control/stats')).body.terminal_cancels - before.terminal_cancels).toBe(1);
    } finally {
      client.close();
    }
  });

  it('seeds positions and orders through the control API and lists them over gRPC', async () => {
    await control('/control/accounts', 'POST', {
      server: 'BetaMarkets-Server',
      login: '5001',
      password: 'pw',
      margin_mode: 'hedging',
      balance: 50_000,
    });
    expect((await control('/control/accounts', 'POST', { server: 'BetaMarkets-Server', login: '5001', password: 'pw' })).status).toBe(409);
    expect(
      (
        await control('/control/accounts/BetaMarkets-Server/5001/positions', 'POST', {
          symbol: 'EURUSD.xx',
          type: 'sell',
          volume: 0.3,
          magic: 7,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await control('/control/accounts/BetaMarkets-Server/5001/orders', 'POST', {
          symbol: 'GBPUSD.xx',
          type: 'buy_stop_limit',
          volume: 0.1,
          price: 1.5,
          stop_limit_price: 1.49,
        })
      ).status,
    ).toBe(201);
    expect(
      (await control('/control/accounts/BetaMarkets-Server/5001/positions', 'POST', { symbol: 'EURUSD', type: 'sell', volume: 0.3 }))
        .status,
    ).toBe(400);
    const { session_id } = await client.call('Login', { server: 'BetaMarkets-Server', login: '5001', password: 'pw' });
    const positions = await client.call('Mt5Positions', { session_id });
    const orders = await client.call('Mt5Orders', { session_id });
    expect(positions.positions).toMatchObject([{ symbol: 'EURUSD.xx', type: 1, volume: 0.3, magic: 7 }]);
    expect(orders.orders).toMatchObject([{ symbol: 'GBPUSD.xx', type: 6, price_stoplimit: 1.49 }]);
  });

  it('fails the calls in hand with UNAVAILABLE when the terminal stream breaks, and opens a new stream for the next call', async () => {
    const client = new BrokerClient(grpcAddress);
    try {
      const { session_id } = await client.call<{ session_id: string }>(
        'Login',
        { server: 'AlphaFX-Live', login: '7012', password: 'pw' },
        2_000,
      );
      await control('/control/accounts/AlphaFX-Live/7012/faults', 'PUT', { hang_ms: 60_000 });
      const held = client
        .call(
          'Mt5OrderSend',
          { session_id, client_id: 'broken-1', deadline_unix_ms: 0, action: 1, symbol: 'EURUSD', volume: 0.1, type: 0 },
          30_000,
        )
        .catch((caught: unknown) => caught);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // A network cut between every terminal and the trade server.
      expect((await control('/control/terminals/disconnect', 'POST', {})).body.disconnected).toBeGreaterThanOrEqual(1);
      const error = await held;
      expect((error as BrokerCallError).code).toBe(grpc.status.UNAVAILABLE);
      await control('/control/accounts/AlphaFX-Live/7012/faults', 'DELETE');
      const next = await client.call<{ retcode: number }>(
        'Mt5OrderSend',
        { session_id, client_id: 'broken-2', deadline_unix_ms: 0, action: 1, symbol: 'EURUSD', volume: 0.1, type: 0 },
        2_000,
      );
      expect(next.retcode).toBe(10009);
    } finally {
      client.close();
    }
  });

  it('ends a session on logout, and one left idle past the bound, each refused after as UNAUTHENTICATED', async () => {
    const login = (number: string) => client.call('Login', { server: 'AlphaFX-Live', login: number, password: 'pw' });
    const loggedOut = await login('7020');
    const before = (await control('/control/stats')).body;
    expect(await client.call('Logout', { session_id: loggedOut.session_id })).toEqual({ logged_out: true });
    expect(await client.call('Logout', { session_id: loggedOut.session_id })).toEqual({ logged_out: false });
    const afterLogout = (await control('/control/stats')).body;
    expect(afterLogout.sessions_logged_out - before.sessions_logged_out).toBe(1);
    expect(afterLogout.sessions_open).toBe(before.sessions_open - 1);
    const refused = await client.call('Ping', { session_id: loggedOut.session_id }).catch((caught: unknown) => caught);
    expect((refused as { code: string }).code).toBe('unauthenticated');

    // Idle past the server's bound (one hour by default): ended; a session used within the bound is kept.
    const idle = await login('7021');
    clock.advanceMs(40 * 60_000);
    const used = await login('7022');
    clock.advanceMs(25 * 60_000);
    expect((await client.call('Ping', { session_id: used.session_id })).connected).toBe(true);
    const expired = await client.call('Ping', { session_id: idle.session_id }).catch((caught: unknown) => caught);
    expect((expired as { code: string }).code).toBe('unauthenticated');
    // The next login sweeps the table: of all the sessions this file opened, only the two used within the bound stay.
    await login('7023');
    const afterSweep = (await control('/control/stats')).body;
    expect(afterSweep.sessions_open).toBe(2);
  });

  it('keeps positions, deals and request records across a restart, and continues tickets', async () => {
    const { session_id } = await client.call('Login', { server: 'OmegaCapital-Demo', login: '4100', password: 'pw' });
    const opened = await client.call('Mt4OrderSend', {
      session_id,
      client_id: 'persist-1',
      deadline_unix_ms: 0,
      symbol: 'GBPUSD',
      cmd: 1,
      volume: 0.2,
    });
    expect(opened.error).toBe(0);
    const before = (await control('/control/accounts/OmegaCapital-Demo/4100')).body;
    client.close();
    raw.close();
    await app.stop(5_000);
    await start();
    const after = (await control('/control/accounts/OmegaCapital-Demo/4100')).body;
    expect(after.positions).toEqual(before.positions);
    expect(after.balance).toBe(before.balance);
    const relogin = await client.call('Login', { server: 'OmegaCapital-Demo', login: '4100', password: 'pw' });
    const repeat = await client.call('Mt4OrderSend', {
      session_id: relogin.session_id,
      client_id: 'persist-1',
      deadline_unix_ms: 0,
      symbol: 'GBPUSD',
      cmd: 1,
      volume: 0.2,
    });
    expect(repeat).toEqual(opened);
    const next = await client.call('Mt4OrderSend', {
      session_id: relogin.session_id,
      client_id: 'persist-2',
      deadline_unix_ms: 0,
      symbol: 'GBPUSD',
      cmd: 1,
      volume: 0.2,
    });
    expect(next.ticket).toBeGreaterThan(opened.ticket);
    const closed = await client.call('Mt4OrderClose', {
      session_id: relogin.session_id,
      client_id: 'persist-3',
      deadline_unix_ms: 0,
      ticket: opened.ticket,
      lots: 0.2,
    });
    expect(closed.error).toBe(0);
    const requests = (await control('/control/accounts/OmegaCapital-Demo/4100/requests')).body.requests as Array<{ clientId: string }>;
    expect(requests.map((record) => record.clientId).sort()).toEqual(['persist-1', 'persist-2', 'persist-3']);
  });

  it('restarts from a journal whose last line was torn by a crash, and applies a line written twice once', async () => {
    const { session_id } = await client.call('Login', { server: 'OmegaCapital-Demo', login: '4200', password: 'pw' });
    const opened = await client.call('Mt4OrderSend', {
      session_id,
      client_id: 'torn-1',
      deadline_unix_ms: 0,
      symbol: 'EURUSD',
      cmd: 0,
      volume: 0.1,
    });
    expect(opened.error).toBe(0);
    const before = (await control('/control/accounts/OmegaCapital-Demo/4200')).body;
    client.close();
    raw.close();
    await app.stop(5_000);
    // The last event again (a write retried after an unclear failure), then half a line (a crash mid-write).
    const lines = fs.readFileSync(journalFile, 'utf8').trimEnd().split('\n');
    fs.appendFileSync(journalFile, `${lines[lines.length - 1]}\n{"event":{"_id":"OmegaCapital-Demo:4200:9`);
    await start();
    const after = (await control('/control/accounts/OmegaCapital-Demo/4200')).body;
    expect(after.positions).toEqual(before.positions);
    expect(after.balance).toBe(before.balance);
    expect(fs.readFileSync(journalFile, 'utf8').endsWith('\n')).toBe(true);
    const relogin = await client.call('Login', { server: 'OmegaCapital-Demo', login: '4200', password: 'pw' });
    const next = await client.call('Mt4OrderSend', {
      session_id: relogin.session_id,
      client_id: 'torn-2',
      deadline_unix_ms: 0,
      symbol: 'EURUSD',
      cmd: 0,
      volume: 0.1,
    });
    expect(next.ticket).toBeGreaterThan(opened.ticket);
    expect((await control('/control/accounts/OmegaCapital-Demo/4200')).body.positions).toHaveLength(2);
  });
});
