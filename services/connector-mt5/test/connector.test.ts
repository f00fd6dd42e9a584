import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorApp } from '@mtx/connector-runtime/app';
import { loadConnectorConfig } from '@mtx/connector-runtime/config';
import {
  connectorCodecs,
  terminalSubject,
  type CloseReplyMessage,
  type CloseRequestMessage,
  type LookupReplyMessage,
  type OrderLegMessage,
  type PingReplyMessage,
  type PlaceReplyMessage,
} from '@mtx/shared/connector/messages';
import { closeAccountStatus } from '@mtx/connector-runtime/runtime';
import { createLogger } from '@mtx/shared/logger';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import { brokerSymbols, retcodeDescription, roundVolumeDown, symbolMatches } from '@mtx/shared/trading';
import { mt4ErrorToRetcode } from '@mtx/connector-runtime/mt4-errors';
import { startExecutionStack, type ExecutionStack } from '../../execution/test/stack';
import { createConnectorMt5 } from '../src/app';

describe('trading vocabulary', () => {
  // Brokers as broker-sim lists them: no suffix (with account-class variants listed too), `.xx`, `m`, `-ecn`.
  const instruments = ['EURUSD', 'GBPUSD', 'USDJPY', 'XAUUSD', 'BTCUSD'];
  const brokerOf = (suffix: string, extra: string[] = []) =>
    brokerSymbols({ symbol_suffix: suffix, symbols: [...instruments.map((name) => `${name}${suffix}`), ...extra] });
  const families = [
    { suffix: '', broker: brokerOf('', ['EURUSD.xx', 'EURUSD-ecn', 'EURUSDm', 'EURUSDPRO']) },
    { suffix: '.xx', broker: brokerOf('.xx') },
    { suffix: 'm', broker: brokerOf('m') },
    { suffix: '-ecn', broker: brokerOf('-ecn') },
  ];

  it('matches a base across every suffix family, in any case of the base', () => {
    for (const { suffix, broker } of families) {
      const own = `EURUSD${suffix}`;
      for (const base of ['EURUSD', 'eurusd', 'EurUsd']) expect(symbolMatches(own, base, 'base', broker), `${own} by ${base}`).toBe(true);
      // The base with its suffix named is a base too (EURUSD.xx matches EURUSD.xx).
      expect(symbolMatches(own, own, 'base', broker), own).toBe(true);
      expect(symbolMatches(`GBPUSD${suffix}`, 'EURUSD', 'base', broker)).toBe(false);
    }
    const plain = families[0]!.broker;
    for (const candidate of [
      'EURUSD',
      'EURUSD.xx',
      'EURUSD-ecn',
      'EURUSDm',
      'EURUSD_i',
      'EURUSD#1',
      'EURUSD!pro',
      'EURUSD+2',
      'EURUSDab',
    ]) {
      expect(symbolMatches(candidate, 'EURUSD', 'base', plain), candidate).toBe(true);
    }
    for (const candidate of ['EURUSDPRO', 'EURUSDabc', 'XEURUSD', 'EURUSD.', 'EURUSD#', 'EURUSD+', 'EURUSD.x-y', 'GBPUSD'])
      expect(symbolMatches(candidate, 'EURUSD', 'base', plain), candidate).toBe(false);
  });

  it('never lets a shorter prefix match a longer name, whatever the prefix length and suffix family', () => {
    for (const { suffix, broker } of families) {
      for (const symbol of [`EURUSD${suffix}`, 'EURUSD.xx', 'EURUSDm', 'EURUSD-ecn']) {
        for (let length = 1; length < 'EURUSD'.length; length++) {
          const prefix = 'EURUSD'.slice(0, length);
          expect(symbolMatches(symbol, prefix, 'base', broker), `${symbol} by ${prefix} at suffix "${suffix}"`).toBe(false);
        }
      }
    }
    // A name only the variants carry is no base of the plain symbol.
    expect(symbolMatches('EURUSD', 'EURUSDm', 'base', families[2]!.broker)).toBe(false);
    expect(symbolMatches('EURUSD', 'EUR.*', 'base', families[0]!.broker)).toBe(false);
  });

  it('compares exact names case-sensitively, as the broker names them; * matches everything', () => {
    const broker = families[1]!.broker;
    expect(symbolMatches('EURUSD.xx', 'EURUSD.xx', 'exact', broker)).toBe(true);
    expect(symbolMatches('EURUSD.xx', 'EURUSD', 'exact', broker)).toBe(false);
    expect(symbolMatches('EURUSD.xx', 'eurusd.XX', 'exact', broker)).toBe(false);
    expect(symbolMatches('EURUSD', 'eurusd', 'exact', families[0]!.broker)).toBe(false);
    expect(symbolMatches('anything', '*', 'exact', broker)).toBe(true);
    expect(symbolMatches('anything', '*', 'base', broker)).toBe(true);
  });

  it('maps MT4 errors onto MT5 retcode names and rounds volumes down to the step', () => {
    const names = Object.fromEntries(
      [134, 130, 138, 131, 129, 133, 132, 136, 128, 6, 4106].map((error) => [error, retcodeDescription(mt4ErrorToRetcode(error))]),
    );
    expect(names).toEqual({
      134: 'TRADE_RETCODE_NO_MONEY',
      130: 'TRADE_RETCODE_INVALID_STOPS',
      138: 'TRADE_RETCODE_REQUOTE',
      131: 'TRADE_RETCODE_INVALID_VOLUME',
      129: 'TRADE_RETCODE_INVALID_PRICE',
      133: 'TRADE_RETCODE_TRADE_DISABLED',
      132: 'TRADE_RETCODE_MARKET_CLOSED',
      136: 'TRADE_RETCODE_PRICE_OFF',
      128: 'TRADE_RETCODE_TIMEOUT',
      6: 'TRADE_RETCODE_CONNECTION',
      4106: 'TRADE_RETCODE_INVALID',
    });
    expect(retcodeDescription(mt4ErrorToRetcode(0))).toBe('TRADE_RETCODE_DONE');
    expect(retcodeDescription(mt4ErrorToRetcode(0, true))).toBe('TRADE_RETCODE_PLACED');
    expect(roundVolumeDown(0.37, 0.1)).toBe(0.3);
    expect(roundVolumeDown(0.3, 0.1)).toBe(0.3);
    expect(roundVolumeDown(0.129, 0.01)).toBe(0.12);
    expect(roundVolumeDown(0.07, 0.01)).toBe(0.07);
    expect(closeAccountStatus([])).toBe('nothing_matched');
    expect(closeAccountStatus([{ status: 'closed' }, { status: 'skipped' }])).toBe('partial');
    expect(closeAccountStatus([{ status: 'unknown' }, { status: 'failed' }])).toBe('unknown');
  });
});

describe('connectors over NATS', () => {
  let stack: ExecutionStack;
  let secondMt5: ConnectorApp | undefined;
  let secondNats: NatsConnection | undefined;
  let sequence = 0;

  beforeAll(async () => {
    stack = await startExecutionStack({ label: 'conn' });
    await stack.control('/control/prices', 'POST', { frozen_all: true });
    for (const symbol of ['EURUSD', 'GBPUSD'])
      await stack.control('/control/prices', 'POST', { symbol, bid: symbol === 'EURUSD' ? 1.1 : 1.3, frozen: true });
  });

  afterAll(async () => {
    await secondMt5?.stop(1_000);
    await secondNats?.drain().catch(() => undefined);
    await stack?.close();
  });

  const credentials = (server: string, login: string) => ({ server, login, password: 'secret' });
  const nextId = (label: string) => `${label}-${process.pid}-${++sequence}`;

  async function ask<T>(
    platform: 'mt4' | 'mt5',
    accountId: string,
    op: 'place' | 'close' | 'lookup' | 'ping',
    payload: Uint8Array,
    decode: (data: Uint8Array) => T,
  ): Promise<T> {
    const reply = await stack.nats.request(terminalSubject(stack.subjectRoot, platform, accountId, op), payload, { timeout: 5_000 });
    return decode(reply.data);
  }

  function place(
    platform: 'mt4' | 'mt5',
    accountId: string,
    server: string,
    login: string,
    legs: Array<Partial<OrderLegMessage>>,
    deadlineMs = 5_000,
  ): Promise<PlaceReplyMessage> {
    const payload = connectorCodecs.placeRequest.encode({
      account_id: accountId,
      credentials: credentials(server, login),
      legs: legs.map((leg, index) => ({
        client_id: nextId('leg'),
        leg_index: index,
        symbol: 'EURUSD',
        operation: 'buy',
        volume: 0.1,
        ...leg,
      })),
      deadline_unix_ms: Date.now() + deadlineMs,
      batch_id: 'bat_test',
    });
    return ask(platform, accountId, 'place', payload, (data) => connectorCodecs.placeReply.decode(data));
  }

  function close(
    platform: 'mt4' | 'mt5',
    accountId: string,
    server: string,
    login: string,
    request: Partial<CloseRequestMessage>,
  ): Promise<CloseReplyMessage> {
    const payload = connectorCodecs.closeRequest.encode({
      account_id: accountId,
      credentials: credentials(server, login),
      tickets: [],
      client_id_base: nextId('close'),
      deadline_unix_ms: Date.now() + 5_000,
      closes_max: 20,
      batch_id: 'bat_test',
      ...request,
    });
    return ask(platform, accountId, 'close', payload, (data) => connectorCodecs.closeReply.decode(data));
  }

  const received = async (server: string, login: string) =>
    ((await stack.control(`/control/accounts/${server}/${login}`)).body.trade_requests_received as number | undefined) ?? 0;

  it('fills market orders and places pending ones on MT5, with DONE and PLACED', async () => {
    const reply = await place('mt5', 'acc_m5a', 'AlphaFX-Live', '9001', [
      {},
      { operation: 'BUYLIMIT', price: 1.09 },
      { operation: 'sellStopLimit', price: 1.09, stop_limit_price: 1.091 },
    ]);
    expect(reply.results.map((result) => [result.status, result.retcode_description])).toEqual([
      ['filled', 'TRADE_RETCODE_DONE'],
      ['placed', 'TRADE_RETCODE_PLACED'],
      ['placed', 'TRADE_RETCODE_PLACED'],
    ]);
    expect(reply.results[0]!.deal).toBeGreaterThan(0);
    expect(reply.results[0]!.price).toBe(1.10012);
  });

  it('maps MT4 errors to TRADE_RETCODE names and refuses stop-limit orders without sending them', async () => {
    const before = await received('GammaTrade-Real', '9101');
    const reply = await place('mt4', 'acc_m4a', 'GammaTrade-Real', '9101', [
      { symbol: 'EURUSDm', volume: 45 },
      { symbol: 'EURUSDm', stop_loss: 1.2 },
      { symbol: 'EURUSDm', volume: 0.015 },
      { symbol: 'EURUSDm', operation: 'buyStopLimit', price: 1.2, stop_limit_price: 1.19 },
      { symbol: 'EURUSDm', operation: 'sellLimit', price: 1.2 },
    ]);
    expect(reply.results.map((result) => [result.status, result.retcode_description])).toEqual([
      ['rejected', 'TRADE_RETCODE_NO_MONEY'],
      ['rejected', 'TRADE_RETCODE_INVALID_STOPS'],
      ['rejected', 'TRADE_RETCODE_INVALID_VOLUME'],
      ['rejected', 'TRADE_RETCODE_INVALID_ORDER'],
      ['placed', 'TRADE_RETCODE_PLACED'],
    ]);
    expect(reply.results[0]!.message).toContain('MT4 error 134');
    expect(reply.results[3]!.message).toContain('MT4 has no stop-limit');
    expect((await received('GammaTrade-Real', '9101')) - before).toBe(4);

    for (const [fault, name] of [
      [{ requote: true }, 'TRADE_RETCODE_REQUOTE'],
      [{ reject_code: 133 }, 'TRADE_RETCODE_TRADE_DISABLED'],
      [{ reject_code: 132 }, 'TRADE_RETCODE_MARKET_CLOSED'],
      [{ reject_code: 136 }, 'TRADE_RETCODE_PRICE_OFF'],
      [{ market_closed: true }, 'TRADE_RETCODE_MARKET_CLOSED'],
    ] as const) {
      await stack.control('/control/accounts/GammaTrade-Real/9101/faults', 'PUT', fault);
      const faulted = await place('mt4', 'acc_m4a', 'GammaTrade-Real', '9101', [{ symbol: 'EURUSDm' }]);
      expect([faulted.results[0]!.status, faulted.results[0]!.retcode_description], JSON.stringify(fault)).toEqual(['rejected', name]);
    }
    await stack.control('/control/accounts/GammaTrade-Real/9101/faults', 'DELETE');
  });

  it('reports unavailable without sending when the login fails, and refuses expired requests', async () => {
    await place('mt5', 'acc_m5b', 'AlphaFX-Live', '9002', [{}]);
    const wrong = await ask(
      'mt5',
      'acc_m5b2',
      'place',
      connectorCodecs.placeRequest.encode({
        account_id: 'acc_m5b2',
        credentials: { server: 'AlphaFX-Live', login: '9002', password: 'wrong' },
        legs: [{ client_id: nextId('leg'), leg_index: 0, symbol: 'EURUSD', operation: 'buy', volume: 0.1 }],
        deadline_unix_ms: Date.now() + 5_000,
        batch_id: 'b',
      }),
      (data) => connectorCodecs.placeReply.decode(data),
    );
    expect(wrong.results[0]).toMatchObject({ status: 'unavailable', retcode: 0 });
    expect(wrong.results[0]!.message).toContain('invalid account or password');
    const before = await received('AlphaFX-Live', '9002');
    const expired = await place('mt5', 'acc_m5b', 'AlphaFX-Live', '9002', [{}], -1);
    expect(expired.results[0]).toMatchObject({ status: 'rejected', retcode_description: 'TRADE_RETCODE_TIMEOUT' });
    expect(await received('AlphaFX-Live', '9002')).toBe(before);
  });

  it('never sends a client id twice, across concurrent duplicates, replicas and a restart', async () => {
    const secondLogger = createLogger('second', { level: 'silent' });
    secondNats = await connectNats(stack.connectorEnv.NATS_URL!, 'connector-mt5-second', secondLogger);
    secondMt5 = createConnectorMt5({ config: loadConnectorConfig('mt5', stack.connectorEnv), logger: secondLogger, nats: secondNats });
    await secondMt5.start();
    await place('mt5', 'acc_m5c', 'AlphaFX-Live', '9003', [{}]);
    const before = await received('AlphaFX-Live', '9003');
    const leg = { client_id: nextId('dup'), leg_index: 0, symbol: 'EURUSD', operation: 'buy', volume: 0.1 };
    const payload = connectorCodecs.placeRequest.encode({
      account_id: 'acc_m5c',
      credentials: credentials('AlphaFX-Live', '9003'),
      legs: [leg],
      deadline_unix_ms: Date.now() + 5_000,
      batch_id: 'b',
    });
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => ask('mt5', 'acc_m5c', 'place', payload, (data) => connectorCodecs.placeReply.decode(data))),
    );
    const orders = new Set(replies.map((reply) => reply.results[0]!.order));
    expect(orders.size).toBe(1);
    expect(replies.every((reply) => reply.results[0]!.status === 'filled')).toBe(true);
    expect(replies.filter((reply) => reply.results[0]!.message.startsWith('duplicate request')).length).toBe(5);
    expect((await received('AlphaFX-Live', '9003')) - before).toBe(1);

    await stack.stopConnector('mt5');
    await stack.startConnector('mt5');
    const afterRestart = await ask('mt5', 'acc_m5c', 'place', payload, (data) => connectorCodecs.placeReply.decode(data));
    expect(afterRestart.results[0]!.order).toBe([...orders][0]);
    expect((await received('AlphaFX-Live', '9003')) - before).toBe(1);
    const deals = (await stack.control('/control/accounts/AlphaFX-Live/9003/deals')).body.deals as Array<{ clientId: string }>;
    expect(deals.filter((deal) => deal.clientId === leg.client_id)).toHaveLength(1);
    await secondMt5.stop(1_000);
    secondMt5 = undefined;
    await secondNats.drain();
    secondNats = undefined;
  });

  describe('close by selector', () => {
    const server = 'AlphaFX-Live';
    let login = 9200;

    async function seededAccount(
      positions: Array<{ symbol: string; type?: 'buy' | 'sell'; volume?: number; magic?: number }>,
      orders: Array<{ symbol: string; type: string; price: number; magic?: number }> = [],
    ) {
      login += 1;
      await stack.control('/control/accounts', 'POST', { server, login: String(login), password: 'secret', balance: 1_000_000 });
      const tickets: Record<string, number> = {};
      for (const position of positions) {
        const seeded = await stack.control(`/control/accounts/${server}/${login}/positions`, 'POST', {
          type: 'buy',
          volume: 0.1,
          ...position,
        });
        tickets[`${position.symbol}:${position.type ?? 'buy'}:${position.magic ?? 0}`] = seeded.body.ticket;
      }
      for (const order of orders) {
        const seeded = await stack.control(`/control/accounts/${server}/${login}/orders`, 'POST', { volume: 0.1, ...order });
        tickets[`${order.symbol}:${order.type}`] = seeded.body.ticket;
      }
      return { login: String(login), accountId: `acc_close${login}`, tickets };
    }

    const open = async (accountLogin: string) =>
      (await stack.control(`/control/accounts/${server}/${accountLogin}`)).body as {
        positions: Array<{ ticket: number; symbol: string; volume: number }>;
        orders: Array<{ ticket: number }>;
      };

    it('matches EURUSD by base across broker suffixes but never EURUSDPRO, and EUR matches nothing', async () => {
      const account = await seededAccount(
        ['EURUSD', 'EURUSD.xx', 'EURUSD-ecn', 'EURUSDm', 'EURUSDPRO', 'GBPUSD'].map((symbol) => ({
          symbol,
          volume: symbol === 'EURUSD-ecn' ? 0.1 : 0.1,
        })),
      );
      // No prefix shorter than a listed name matches it (EURUS would otherwise take "SD" as a suffix), and an
      // exact name is compared as the broker spells it.
      for (const selector of [
        { symbol: 'EUR', symbol_match: 'base' },
        { symbol: 'EURU', symbol_match: 'base' },
        { symbol: 'EURUS', symbol_match: 'base' },
        { symbol: 'eurusd', symbol_match: 'exact' },
        { symbol: 'EURUSD.XX', symbol_match: 'exact' },
      ]) {
        const none = await close('mt5', account.accountId, server, account.login, {
          selector: { ...selector, side: 'any', kind: 'position' },
        });
        expect(none, JSON.stringify(selector)).toMatchObject({ status: 'nothing_matched', matched: 0, closed: 0 });
      }
      expect((await open(account.login)).positions).toHaveLength(6);
      const reply = await close('mt5', account.accountId, server, account.login, {
        selector: { symbol: 'EURUSD', symbol_match: 'base', side: 'any', kind: 'position' },
      });
      expect(reply.status).toBe('closed');
      expect(reply.results.map((result) => result.symbol).sort()).toEqual(['EURUSD', 'EURUSD-ecn', 'EURUSD.xx', 'EURUSDm']);
      expect(reply.results.every((result) => result.status === 'closed' && result.retcode_description === 'TRADE_RETCODE_DONE')).toBe(true);
      expect((await open(account.login)).positions.map((position) => position.symbol).sort()).toEqual(['EURUSDPRO', 'GBPUSD']);
      const exact = await close('mt5', account.accountId, server, account.login, {
        selector: { symbol: 'EURUSDPRO', symbol_match: 'exact', side: 'any', kind: 'position' },
      });
      expect(exact.closed).toBe(1);
    });

    it('filters by side, kind and magic, and closes every symbol with *', async () => {
      const account = await seededAccount(
        [
          { symbol: 'EURUSD', type: 'buy', magic: 1 },
          { symbol: 'EURUSD', type: 'sell', magic: 1 },
          { symbol: 'GBPUSD', type: 'buy', magic: 2 },
        ],
        [
          { symbol: 'EURUSD', type: 'buy_limit', price: 1.05, magic: 1 },
          { symbol: 'GBPUSD', type: 'sell_stop', price: 1.25, magic: 2 },
        ],
      );
      const shorts = await close('mt5', account.accountId, server, account.login, {
        selector: { symbol: 'EURUSD', symbol_match: 'exact', side: 'short', kind: 'position' },
      });
      expect(shorts.results.map((result) => [result.type, result.kind])).toEqual([['sell', 'position']]);
      const pendingMagic2 = await close('mt5', account.accountId, server, account.login, {
        selector: { symbol: '*', symbol_match: 'exact', side: 'any', kind: 'pending', magic: 2 },
      });
      expect(pendingMagic2.results.map((result) => [result.symbol, result.type, result.kind, result.status])).toEqual([
        ['GBPUSD', 'sell_stop', 'pending', 'closed'],
      ]);
      const longAny = await close('mt5', account.accountId, server, account.login, {
        selector: { symbol: '*', symbol_match: 'exact', side: 'long', kind: 'any', magic: 1 },
      });
      expect(longAny.results.map((result) => [result.symbol, result.type]).sort()).toEqual([
        ['EURUSD', 'buy'],
        ['EURUSD', 'buy_limit'],
      ]);
      const everything = await close('mt5', account.accountId, server, account.login, {
        selector: { symbol: '*', symbol_match: 'exact', side: 'any', kind: 'any' },
      });
      expect(everything.results.map((result) => result.symbol)).toEqual(['GBPUSD']);
      const state = await open(account.login);
      expect(state.positions).toHaveLength(0);
      expect(state.orders).toHaveLength(0);
    });

    it('rounds a partial volume down to the step and refuses one below the minimum without sending it', async () => {
      const account = await seededAccount([
        { symbol: 'EURUSD-ecn', volume: 1 },
        { symbol: 'EURUSD', volume: 0.5 },
      ]);
      const before = await received(server, account.login);
      const partial = await close('mt5', account.accountId, server, account.login, {
        selector: { symbol: 'EURUSD', symbol_match: 'base', side: 'any', kind: 'position' },
        volume: 0.37,
      });
      const bySymbol = Object.fromEntries(partial.results.map((result) => [result.symbol, result]));
      expect(bySymbol['EURUSD-ecn']).toMatchObject({ status: 'closed', volume: 0.3 });
      expect(bySymbol.EURUSD).toMatchObject({ status: 'closed', volume: 0.37 });
      const remaining = Object.fromEntries((await open(account.login)).positions.map((position) => [position.symbol, position.volume]));
      expect(remaining['EURUSD-ecn']).toBeCloseTo(0.7);
      expect(remaining.EURUSD).toBeCloseTo(0.13);
      const tooSmall = await close('mt5', account.accountId, server, account.login, {
        selector: { symbol: 'EURUSD-ecn', symbol_match: 'exact', side: 'any', kind: 'position' },
        volume: 0.05,
      });
      expect(tooSmall.results[0]).toMatchObject({ status: 'failed', retcode_description: 'TRADE_RETCODE_INVALID_VOLUME' });
      expect(tooSmall.status).toBe('failed');
      expect((await received(server, account.login)) - before).toBe(2);
    });

    it('closes at most 20 per account and reports the rest skipped', async () => {
      const account = await seededAccount(Array.from({ length: 23 }, () => ({ symbol: 'GBPUSD' })));
      const reply = await close('mt5', account.accountId, server, account.login, {
        selector: { symbol: 'GBPUSD', symbol_match: 'exact', side: 'any', kind: 'position' },
      });
      expect(reply).toMatchObject({ status: 'partial', matched: 23, closed: 20 });
      expect(reply.results.filter((result) => result.status === 'skipped')).toHaveLength(3);
      expect((await open(account.login)).positions).toHaveLength(3);
    });

    it('closes explicit tickets without a lookup, deleting pending ones and failing missing ones', async () => {
      const account = await seededAccount(
        [{ symbol: 'EURUSD' }, { symbol: 'GBPUSD' }],
        [{ symbol: 'EURUSD', type: 'sell_limit', price: 1.2 }],
      );
      const tickets = [account.tickets['EURUSD:buy:0']!, account.tickets['EURUSD:sell_limit']!, 999_999_999];
      const reply = await close('mt5', account.accountId, server, account.login, { tickets });
      expect(reply.results.map((result) => [result.ticket, result.kind, result.status])).toEqual([
        [tickets[0], 'position', 'closed'],
        [tickets[1], 'pending', 'closed'],
        [999_999_999, '', 'failed'],
      ]);
      expect(reply.status).toBe('partial');
      expect((await open(account.login)).positions.map((position) => position.symbol)).toEqual(['GBPUSD']);
    });

    it('closes MT4 orders, re-ticketing a partial close as MT4 does', async () => {
      await stack.control('/control/accounts', 'POST', { server: 'DeltaPrime-ECN', login: '9300', password: 'secret' });
      const seeded = (
        await stack.control('/control/accounts/DeltaPrime-ECN/9300/positions', 'POST', { symbol: 'GBPUSD-ecn', type: 'sell', volume: 0.5 })
      ).body;
      const reply = await close('mt4', 'acc_m4close', 'DeltaPrime-ECN', '9300', {
        selector: { symbol: 'GBPUSD', symbol_match: 'base', side: 'short', kind: 'position' },
        volume: 0.25,
      });
      expect(reply.results[0]).toMatchObject({
        ticket: seeded.ticket,
        status: 'closed',
        volume: 0.2,
        retcode_description: 'TRADE_RETCODE_DONE',
      });
      const positions = (await stack.control('/control/accounts/DeltaPrime-ECN/9300')).body.positions;
      expect(positions).toHaveLength(1);
      expect(positions[0].ticket).not.toBe(seeded.ticket);
      expect(positions[0].volume).toBeCloseTo(0.3);
    });

    it('on an MT4 broker whose symbols end in m, takes EURUSD as the base of EURUSDm but never EURUS', async () => {
      await stack.control('/control/accounts', 'POST', { server: 'GammaTrade-Real', login: '9301', password: 'secret' });
      const seeded = (
        await stack.control('/control/accounts/GammaTrade-Real/9301/positions', 'POST', { symbol: 'EURUSDm', type: 'buy', volume: 0.1 })
      ).body;
      for (const symbol of ['E', 'EU', 'EUR', 'EURU', 'EURUS']) {
        const none = await close('mt4', 'acc_m4base', 'GammaTrade-Real', '9301', {
          selector: { symbol, symbol_match: 'base', side: 'any', kind: 'position' },
        });
        expect(none.status, symbol).toBe('nothing_matched');
      }
      const lowerExact = await close('mt4', 'acc_m4base', 'GammaTrade-Real', '9301', {
        selector: { symbol: 'eurusdm', symbol_match: 'exact', side: 'any', kind: 'position' },
      });
      expect(lowerExact.status).toBe('nothing_matched');
      expect((await stack.control('/control/accounts/GammaTrade-Real/9301')).body.positions).toHaveLength(1);
      const reply = await close('mt4', 'acc_m4base', 'GammaTrade-Real', '9301', {
        selector: { symbol: 'eurusd', symbol_match: 'base', side: 'any', kind: 'position' },
      });
      expect(reply.results.map((result) => [result.ticket, result.status])).toEqual([[seeded.ticket, 'closed']]);
    });
  });

  it('looks outcomes up by client id and prefix, and pings', async () => {
    const placed = await place('mt5', 'acc_m5d', 'AlphaFX-Live', '9004', [{}, { symbol: 'NOPE' }]);
    const lookup: LookupReplyMessage = await ask(
      'mt5',
      'acc_m5d',
      'lookup',
      connectorCodecs.lookupRequest.encode({
        account_id: 'acc_m5d',
        credentials: credentials('AlphaFX-Live', '9004'),
        client_ids: [placed.results[0]!.client_id, placed.results[1]!.client_id, 'missing-1'],
        client_id_prefix: '',
      }),
      (data) => connectorCodecs.lookupReply.decode(data),
    );
    expect(lookup.entries.map((entry) => [entry.state, entry.leg?.status, entry.leg?.retcode_description])).toEqual([
      ['done', 'filled', 'TRADE_RETCODE_DONE'],
      ['done', 'rejected', 'TRADE_RETCODE_INVALID'],
      ['not_found', undefined, undefined],
    ]);
    expect(lookup.entries[0]!.leg!.order).toBe(placed.results[0]!.order);
    const ping: PingReplyMessage = await ask(
      'mt4',
      'acc_m4p',
      'ping',
      connectorCodecs.pingRequest.encode({ account_id: 'acc_m4p', credentials: credentials('DeltaPrime-ECN', '9301') }),
      (data) => connectorCodecs.pingReply.decode(data),
    );
    expect(ping).toMatchObject({ connected: true, platform: 'mt4', symbol_suffix: '-ecn', server: 'DeltaPrime-ECN' });
    const wrongPlatform: PingReplyMessage = await ask(
      'mt4',
      'acc_m4q',
      'ping',
      connectorCodecs.pingRequest.encode({ account_id: 'acc_m4q', credentials: credentials('AlphaFX-Live', '9301') }),
      (data) => connectorCodecs.pingReply.decode(data),
    );
    expect(wrongPlatform).toMatchObject({ connected: false, reason: 'wrong_platform' });
  });

  it('answers malformed requests with a service error and nothing sent; no connector means no responders', async () => {
    const reply = await stack.nats.request(
      terminalSubject(stack.subjectRoot, 'mt5', 'acc_x', 'place'),
      new Uint8Array([0xff, 0xff, 0xff]),
      { timeout: 2_000 },
    );
    expect(reply.headers?.get('Nats-Service-Error-Code')).toBe('400');
    await stack.stopConnector('mt4');
    await expect(
      stack.nats.request(terminalSubject(stack.subjectRoot, 'mt4', 'acc_x', 'ping'), new Uint8Array(), { timeout: 2_000 }),
    ).rejects.toThrow(/503|no responders/i);
    await stack.startConnector('mt4');
  });
});
