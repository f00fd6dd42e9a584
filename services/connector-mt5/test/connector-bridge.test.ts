import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorApp } from '@mtx/connector-runtime/app';
import { clientTag } from '@mtx/connector-runtime/bridge/client-tag';
import type { OrderLegMessage } from '@mtx/shared/connector/messages';
import { type BridgeStack, connectorCodecs, eventually, newToken, startBridgeStack } from './bridge-stack';

/** Both connectors trading through broker-sim's emulated terminals over the terminal bridge. */
let stack: BridgeStack;
let mt5: ConnectorApp;
let mt4: ConnectorApp;
let sequence = 0;
const nextId = (label: string) => `bat_${label}${process.pid}x${++sequence}`;

beforeAll(async () => {
  stack = await startBridgeStack('trade');
  mt5 = await stack.connector('mt5');
  mt4 = await stack.connector('mt4');
  const accounts: Array<['mt4' | 'mt5', string, string, string, ConnectorApp]> = [
    ['mt5', 'acc_b5', 'AlphaFX-Live', '8101', mt5],
    ['mt4', 'acc_b4', 'OmegaCapital-Demo', '8201', mt4],
  ];
  for (const [platform, accountId, server, login, app] of accounts) {
    const token = newToken();
    await stack.register(platform, accountId, server, login, token);
    const link = stack.terminal(server, login, token, [app]);
    await eventually(`${accountId} attached`, () => link.stats.connected && app.runtime.routedAccounts > 0);
  }
});

afterAll(async () => {
  await stack?.close();
});

function place(platform: 'mt4' | 'mt5', accountId: string, legs: Array<Partial<OrderLegMessage>>, batchId = nextId('p')) {
  const payload = connectorCodecs.placeRequest.encode({
    account_id: accountId,
    legs: legs.map((leg, index) => ({
      client_id: `${batchId}-${index}`,
      leg_index: index,
      symbol: 'EURUSD',
      operation: 'buy',
      volume: 0.1,
      ...leg,
    })),
    deadline_unix_ms: Date.now() + 5_000,
    batch_id: batchId,
  });
  return stack.request(platform, accountId, 'place', payload).then((data) => connectorCodecs.placeReply.decode(data));
}

function close(platform: 'mt4' | 'mt5', accountId: string, request: { tickets?: number[]; volume?: number; symbol?: string }) {
  const base = nextId('c');
  const payload = connectorCodecs.closeRequest.encode({
    account_id: accountId,
    ...(request.tickets ? {} : { selector: { symbol: request.symbol ?? 'EURUSD', symbol_match: 'exact', side: 'any', kind: 'position' } }),
    tickets: request.tickets ?? [],
    ...(request.volume ? { volume: request.volume } : {}),
    client_id_base: base,
    deadline_unix_ms: Date.now() + 5_000,
    closes_max: 20,
    batch_id: base,
  });
  return stack.request(platform, accountId, 'close', payload).then((data) => ({ base, reply: connectorCodecs.closeReply.decode(data) }));
}

function positions(platform: 'mt4' | 'mt5', accountId: string) {
  const payload = connectorCodecs.positionsRequest.encode({ account_id: accountId, deadline_unix_ms: Date.now() + 5_000 });
  return stack.request(platform, accountId, 'positions', payload).then((data) => connectorCodecs.positionsReply.decode(data));
}

function lookup(platform: 'mt4' | 'mt5', accountId: string, clientIds: string[]) {
  const payload = connectorCodecs.lookupRequest.encode({
    account_id: accountId,
    client_ids: clientIds,
    client_id_prefix: '',
    from_unix_ms: 0,
  });
  return stack.request(platform, accountId, 'lookup', payload).then((data) => connectorCodecs.lookupReply.decode(data));
}

describe('MT5 through the bridge', () => {
  it('fills a market order and places a pending one, the client id tagged in the comment', async () => {
    const batchId = nextId('m5');
    const reply = await place('mt5', 'acc_b5', [{ comment: 'hedge~leg' }, { operation: 'buyLimit', price: 0.5 }], batchId);
    expect(reply.results.map((result) => [result.status, result.retcode_description])).toEqual([
      ['filled', 'TRADE_RETCODE_DONE'],
      ['placed', 'TRADE_RETCODE_PLACED'],
    ]);
    expect(reply.results[0]!.deal).toBeGreaterThan(0);
    const open = await positions('mt5', 'acc_b5');
    expect(open.status).toBe('ok');
    const mine = open.positions.find((position) => position.ticket === reply.results[0]!.order);
    expect(mine?.comment).toBe(`hedge-leg${clientTag(`${batchId}-0`)}`);
    expect(mine?.volume).toBe(0.1);
    expect(Math.abs(mine!.opened_at_unix_ms - Date.now())).toBeLessThan(60_000);
  });

  it('finds placed legs by client id and says which were never sent', async () => {
    const batchId = nextId('lk');
    const reply = await place('mt5', 'acc_b5', [{}], batchId);
    const found = await lookup('mt5', 'acc_b5', [`${batchId}-0`, `${batchId}-7`]);
    expect(found.connected).toBe(true);
    expect(found.entries.map((entry) => [entry.client_id, entry.state])).toEqual([
      [`${batchId}-0`, 'done'],
      [`${batchId}-7`, 'not_found'],
    ]);
    expect(found.entries[0]!.leg).toMatchObject({ status: 'filled', order: reply.results[0]!.order, deal: reply.results[0]!.deal });
  });

  it('closes part of a position, then the rest, and finds the close by its client id', async () => {
    const opened = await place('mt5', 'acc_b5', [{ symbol: 'GBPUSD', volume: 0.3 }]);
    const ticket = opened.results[0]!.order;
    const partial = await close('mt5', 'acc_b5', { tickets: [ticket], volume: 0.1 });
    expect(partial.reply.status).toBe('closed');
    expect(partial.reply.results[0]).toMatchObject({ ticket, status: 'closed', volume: 0.1 });
    const rest = (await positions('mt5', 'acc_b5')).positions.find((position) => position.ticket === ticket);
    expect(rest?.volume).toBeCloseTo(0.2, 8);
    const found = await lookup('mt5', 'acc_b5', [`${partial.base}-t${ticket}`]);
    expect(found.entries[0]).toMatchObject({ state: 'done', action: 'close' });
    const all = await close('mt5', 'acc_b5', { symbol: 'GBPUSD' });
    expect(all.reply).toMatchObject({ status: 'closed', matched: 1, closed: 1 });
    expect((await positions('mt5', 'acc_b5')).positions.some((position) => position.symbol === 'GBPUSD')).toBe(false);
  });

  it('answers the account state and a ping from the terminal', async () => {
    const state = connectorCodecs.stateReply.decode(
      await stack.request('mt5', 'acc_b5', 'state', connectorCodecs.stateRequest.encode({ account_id: 'acc_b5' })),
    );
    expect(state).toMatchObject({ connected: true, server: 'AlphaFX-Live', currency: 'USD', trade_allowed: true });
    expect(state.balance).toBeGreaterThan(0);
    expect(Math.abs(state.server_time_unix_ms - Date.now())).toBeLessThan(60_000);
    const ping = connectorCodecs.pingReply.decode(
      await stack.request('mt5', 'acc_b5', 'ping', connectorCodecs.pingRequest.encode({ account_id: 'acc_b5' })),
    );
    expect(ping).toMatchObject({ connected: true, server: 'AlphaFX-Live', platform: 'mt5' });
  });

  it('answers a malformed request 400 and trades nothing', async () => {
    const before = (await positions('mt5', 'acc_b5')).positions.length;
    const reply = await stack.nats.request(`${stack.subjectRoot}.mt5.acc_b5.place`, new Uint8Array([0xff, 0xff, 0xff]), { timeout: 5_000 });
    expect(reply.headers?.get('Nats-Service-Error-Code')).toBe('400');
    expect((await positions('mt5', 'acc_b5')).positions.length).toBe(before);
  });
});

describe('MT4 through the bridge', () => {
  it('fills and places, maps an MT4 refusal to its MT5 retcode, and closes by selector', async () => {
    const reply = await place('mt4', 'acc_b4', [{}, { operation: 'sellLimit', price: 5 }, { volume: 0.001 }]);
    expect(reply.results.map((result) => [result.status, result.retcode_description])).toEqual([
      ['filled', 'TRADE_RETCODE_DONE'],
      ['placed', 'TRADE_RETCODE_PLACED'],
      ['rejected', 'TRADE_RETCODE_INVALID_VOLUME'],
    ]);
    expect(reply.results[2]!.message).toContain('MT4 error 131');
    const { reply: closed } = await close('mt4', 'acc_b4', { symbol: 'EURUSD' });
    expect(closed).toMatchObject({ status: 'closed', matched: 1, closed: 1 });
    expect(closed.results[0]!.ticket).toBe(reply.results[0]!.order);
    expect((await positions('mt4', 'acc_b4')).positions).toEqual([]);
  });
});
