import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { ManualClock } from '@mtx/shared/clock';
import { createLogger } from '@mtx/shared/logger';
import fs from 'node:fs';
import path from 'node:path';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { createBrokerSimApp, type BrokerSimApp } from '../src/app';
import { loadBrokerSimConfig } from '../src/config';
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
import { BrokerError } from '../src/app/broker';
import { mt4Result, mt5Result, renderServer } from '../src/handlers/renderers';

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

/**
 * The broker's session and trade calls as a terminal makes them (src/terminal/), answered with each platform's
 * result codes: the trade pipeline (sessions, dedup by client id, deadlines, the journal) is tested through them.
 */
function terminalCalls(app: BrokerSimApp) {
  const broker = app.broker;
  const trade = (request: { session_id: string; client_id: string; deadline_unix_ms: number }) => ({
    sessionId: request.session_id,
    clientId: request.client_id,
    deadlineUnixMs: request.deadline_unix_ms,
  });
  const send = (request: any, type: number) =>
    broker.openOrder(trade(request), open({ clientId: request.client_id, symbol: request.symbol, type, volume: request.volume }));
  const calls: Record<string, (request: any) => Promise<any>> = {
    Login: async (request) => {
      const { sessionId, account } = await broker.login(request.server, request.login, request.password);
      return { session_id: sessionId, server: renderServer(account.server), margin_mode: account.record.marginMode };
    },
    Mt5OrderSend: async (request) => mt5Result((await send(request, request.type)).record.outcome!, false),
    Mt4OrderSend: async (request) => ({ ...mt4Result((await send(request, request.cmd)).record.outcome!) }),
    Mt4OrderClose: async (request) =>
      mt4Result((await broker.closePosition(trade(request), request.ticket, request.lots, 0, undefined)).record.outcome!),
    LookupRequests: async (request) => {
      const account = broker.accountOf(request.session_id);
      const records = broker.lookup(request.session_id, request.client_ids, '');
      return {
        records: records.map((record) =>
          account.record.platform === 'mt4' ? { mt4: mt4Result(record.outcome!) } : { mt5: mt5Result(record.outcome!, false) },
        ),
      };
    },
  };
  return { call: (method: string, request: any) => calls[method]!(request), close: () => undefined };
}

describe('broker-sim service', () => {
  let app: BrokerSimApp;
  let client: ReturnType<typeof terminalCalls>;
  let controlUrl: string;
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
      config: {
        ...loadBrokerSimConfig({ NATS_URL: inject('natsUrl'), TERMINAL_SUBJECT_ROOT: `t${Date.now().toString(36)}` }),
        BROKER_SIM_LATENCY_MS: 0,
        PRICE_TICK_MS: 0,
        GRPC_PORT: 0,
        HTTP_PORT: 0,
        HOST: '127.0.0.1',
      },
      journalFile,
      terminalsFile: `${journalFile}.terminals.json`,
      logger,
      clock,
    });
    await app.start();
    controlUrl = `http://127.0.0.1:${app.ports.httpPort}`;
    client = terminalCalls(app);
  }

  beforeAll(async () => {
    await start();
    await control('/control/prices', 'POST', { symbol: 'EURUSD', bid: 1.1, frozen: true });
  });

  afterAll(async () => {
    await app?.stop(5_000);
    fs.rmSync(journalFile, { force: true });
    fs.rmSync(`${journalFile}.terminals.json`, { force: true });
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
    await expect(client.call('Login', { server: 'AlphaFX-Live', login: '7001', password: 'other' })).rejects.toMatchObject({
      kind: 'unauthenticated',
    });
    await expect(client.call('Login', { server: 'NoSuch-Server', login: '7001', password: 'x' })).rejects.toBeInstanceOf(BrokerError);
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
