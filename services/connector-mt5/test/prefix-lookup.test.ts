import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorApp } from '@mtx/connector-runtime/app';
import type { CloseSelectorMessage, OrderLegMessage } from '@mtx/shared/connector/messages';
import { type BridgeStack, connectorCodecs, eventually, newToken, startBridgeStack } from './bridge-stack';

/**
 * A close request whose answer was lost is looked up by its client-id prefix: the connectors read the closes
 * from the terminal's history in the request's window (docs/terminal-bridge.md, "Closes by client-id prefix").
 */
let stack: BridgeStack;
let sequence = 0;
const nextId = (label: string) => `bat_${label}${process.pid}x${++sequence}`;
const accounts = {
  mt5: { platform: 'mt5', id: 'acc_px5', server: 'AlphaFX-Live', login: '8301' },
  mt4: { platform: 'mt4', id: 'acc_px4', server: 'OmegaCapital-Demo', login: '8401' },
  mt4Stops: { platform: 'mt4', id: 'acc_px4s', server: 'OmegaCapital-Demo', login: '8402' },
} as const;
type Account = (typeof accounts)[keyof typeof accounts];

beforeAll(async () => {
  stack = await startBridgeStack('prefix');
  const connectors = { mt5: await stack.connector('mt5'), mt4: await stack.connector('mt4') };
  for (const account of Object.values(accounts)) {
    const app: ConnectorApp = connectors[account.platform];
    const token = newToken();
    await stack.register(account.platform, account.id, account.server, account.login, token);
    const link = stack.terminal(account.server, account.login, token, [app]);
    await eventually(`${account.id} attached`, () => link.stats.connected && app.runtime.routedAccounts >= 1);
  }
  await eventually(
    'every account routed',
    () => connectors.mt4.runtime.routedAccounts === 2 && connectors.mt5.runtime.routedAccounts === 1,
  );
});

afterAll(async () => {
  await stack?.close();
});

async function place(account: Account, legs: Array<Partial<OrderLegMessage>>) {
  const batchId = nextId('p');
  const payload = connectorCodecs.placeRequest.encode({
    account_id: account.id,
    legs: legs.map((leg, index) => ({
      client_id: `${batchId}-${index}`,
      leg_index: index,
      symbol: 'GBPUSD',
      operation: 'buy',
      volume: 0.1,
      ...leg,
    })),
    deadline_unix_ms: Date.now() + 5_000,
    batch_id: batchId,
  });
  const reply = connectorCodecs.placeReply.decode(await stack.request(account.platform, account.id, 'place', payload));
  expect(reply.results.every((result) => result.status === 'filled' || result.status === 'placed')).toBe(true);
  return reply.results.map((result) => result.order);
}

async function close(account: Account, selector: Partial<CloseSelectorMessage>) {
  const base = nextId('c');
  const payload = connectorCodecs.closeRequest.encode({
    account_id: account.id,
    selector: { symbol: 'GBPUSD', symbol_match: 'exact', side: 'any', kind: 'position', ...selector },
    tickets: [],
    client_id_base: base,
    deadline_unix_ms: Date.now() + 5_000,
    closes_max: 20,
    batch_id: base,
  });
  const reply = connectorCodecs.closeReply.decode(await stack.request(account.platform, account.id, 'close', payload));
  return { prefix: `${base}-`, reply };
}

async function lookupPrefix(account: Account, prefix: string, fromUnixMs: number) {
  const payload = connectorCodecs.lookupRequest.encode({
    account_id: account.id,
    client_ids: [],
    client_id_prefix: prefix,
    from_unix_ms: fromUnixMs,
  });
  const reply = connectorCodecs.lookupReply.decode(await stack.request(account.platform, account.id, 'lookup', payload));
  expect(reply.connected).toBe(true);
  return reply;
}

/**
 * Places two legs, closes them both and looks the closes up by the close's prefix: one `close` record per ticket,
 * each paired with the close result it stands for.
 */
async function closeTwoAndLookUp(account: Account, legs: Array<Partial<OrderLegMessage>>) {
  const fromUnixMs = Date.now() - 2_000;
  const tickets = await place(account, legs);
  const { prefix, reply } = await close(account, {});
  expect(reply).toMatchObject({ status: 'closed', matched: 2, closed: 2 });
  const found = await lookupPrefix(account, prefix, fromUnixMs);
  expect(found.entries.map((entry) => [entry.client_id, entry.state, entry.action])).toEqual(
    [...tickets].sort((a, b) => a - b).map((ticket) => [`${prefix}t${ticket}`, 'done', 'close']),
  );
  const pairs = reply.results.map((closed) => ({
    closed,
    entry: found.entries.find((candidate) => candidate.ticket?.ticket === closed.ticket),
  }));
  return { fromUnixMs, tickets, prefix, pairs };
}

describe('MT5', () => {
  it('finds the closing deals of a prefix by their tags, and nothing for another prefix', async () => {
    const { fromUnixMs, pairs } = await closeTwoAndLookUp(accounts.mt5, [{ volume: 0.1 }, { operation: 'sell', volume: 0.2 }]);
    for (const { closed, entry } of pairs) {
      expect(entry?.ticket).toMatchObject({
        symbol: closed.symbol,
        type: closed.type,
        kind: 'position',
        volume: closed.volume,
        status: 'closed',
        retcode: 10009,
        price: closed.price,
        client_id: closed.client_id,
      });
    }
    expect((await lookupPrefix(accounts.mt5, `${nextId('other')}-`, fromUnixMs)).entries).toEqual([]);
  });

  it('claims a pending order deleted in the window, which its delete cannot tag', async () => {
    const fromUnixMs = Date.now() - 2_000;
    const [ticket] = await place(accounts.mt5, [{ operation: 'buyLimit', price: 0.5 }]);
    const { prefix, reply } = await close(accounts.mt5, { kind: 'pending' });
    expect(reply).toMatchObject({ status: 'closed', matched: 1, closed: 1 });
    const found = await lookupPrefix(accounts.mt5, prefix, fromUnixMs);
    expect(found.entries).toHaveLength(1);
    expect(found.entries[0]).toMatchObject({ client_id: `${prefix}t${ticket}`, state: 'done', action: 'delete' });
    expect(found.entries[0]!.ticket).toMatchObject({
      ticket,
      kind: 'pending',
      type: reply.results[0]!.type,
      status: 'closed',
      volume: 0.1,
    });
    // The window is what bounds the claim: the same delete is not claimed from a window that starts after it.
    expect((await lookupPrefix(accounts.mt5, prefix, Date.now() + 5_000)).entries).toEqual([]);
  });

  it('finds nothing by a prefix given without a window, and says so', async () => {
    await place(accounts.mt5, [{}]);
    const { prefix, reply } = await close(accounts.mt5, {});
    expect(reply.closed).toBe(1);
    const found = await lookupPrefix(accounts.mt5, prefix, 0);
    expect(found.entries).toEqual([]);
    expect(found.message).toContain('from_unix_ms');
  });
});

describe('MT4', () => {
  it('finds the orders closed in the window by ticket, and nothing for another prefix', async () => {
    const { fromUnixMs, tickets, prefix, pairs } = await closeTwoAndLookUp(accounts.mt4, [
      { volume: 0.1 },
      { operation: 'sell', volume: 0.3 },
    ]);
    for (const { closed, entry } of pairs) {
      expect(entry?.ticket).toMatchObject({
        symbol: closed.symbol,
        type: closed.type,
        volume: closed.volume,
        status: 'closed',
        retcode: 10009,
      });
      expect(entry?.ticket?.price).toBeCloseTo(closed.price ?? 0, 8);
    }
    // A prefix is not searched: another one names the same closes under its own ids (MT4 keeps no close id).
    const other = `${nextId('other')}-`;
    expect((await lookupPrefix(accounts.mt4, other, fromUnixMs)).entries.map((entry) => entry.client_id)).toEqual(
      [...tickets].sort((a, b) => a - b).map((ticket) => `${other}t${ticket}`),
    );
    expect((await lookupPrefix(accounts.mt4, prefix, Date.now() + 5_000)).entries).toEqual([]);
  });

  it('leaves out what the trade server closed at a stop loss or take profit', async () => {
    const fromUnixMs = Date.now() - 2_000;
    const { server, login } = accounts.mt4Stops;
    const bid = stack.broker.prices.bidOf('EURUSD');
    // Stops already crossed: the next market pass closes both, as the trade server would.
    const stopped = await stack.broker.seedPosition(server, login, { symbol: 'EURUSD', type: 'buy', volume: 0.1, sl: bid + 0.01 });
    const taken = await stack.broker.seedPosition(server, login, { symbol: 'EURUSD', type: 'buy', volume: 0.1, tp: bid - 0.01 });
    expect(await stack.broker.applyMarket()).toBe(2);
    const [ticket] = await place(accounts.mt4Stops, [{}]);
    const { prefix, reply } = await close(accounts.mt4Stops, {});
    expect(reply.closed).toBe(1);
    const found = await lookupPrefix(accounts.mt4Stops, prefix, fromUnixMs);
    expect(found.entries.map((entry) => entry.ticket?.ticket)).toEqual([ticket]);
    expect(found.entries.map((entry) => entry.ticket?.ticket)).not.toContain(stopped.ticket);
    expect(found.entries.map((entry) => entry.ticket?.ticket)).not.toContain(taken.ticket);
  });
});
