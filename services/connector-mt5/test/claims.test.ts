import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorApp } from '@mtx/connector-runtime/app';
import type { CloseReplyMessage, PlaceReplyMessage } from '@mtx/shared/connector/messages';
import { type BridgeStack, connectorCodecs, eventually, newToken, startBridgeStack } from './bridge-stack';

/** Claims per account message: one JetStream round trip per message, and a message seen before sends nothing. */
let stack: BridgeStack;
let mt5: ConnectorApp;
let sequence = 0;
const server = 'AlphaFX-Live';

beforeAll(async () => {
  stack = await startBridgeStack('claims');
  mt5 = await stack.connector('mt5');
  for (const [accountId, login] of [
    ['acc_claims1', '9601'],
    ['acc_claims2', '9602'],
    ['acc_claims3', '9603'],
    ['acc_claims4', '9604'],
  ] as const) {
    const token = newToken();
    await stack.register('mt5', accountId, server, login, token);
    stack.terminal(server, login, token, [mt5]);
  }
  await eventually('four accounts attached', () => mt5.runtime.routedAccounts === 4);
});

afterAll(async () => {
  await stack?.close();
});

const claimed = async (key: string) => (await stack.claims.get(key)) !== null;

async function openCount(accountId: string): Promise<number> {
  const payload = connectorCodecs.positionsRequest.encode({ account_id: accountId, deadline_unix_ms: Date.now() + 5_000 });
  return connectorCodecs.positionsReply.decode(await stack.request('mt5', accountId, 'positions', payload)).positions.length;
}

async function place(accountId: string, batchId: string, clientIds: string[]): Promise<PlaceReplyMessage> {
  const payload = connectorCodecs.placeRequest.encode({
    account_id: accountId,
    legs: clientIds.map((clientId, index) => ({
      client_id: clientId,
      leg_index: index,
      symbol: 'EURUSD',
      operation: index % 2 ? 'sell' : 'buy',
      volume: 0.1,
    })),
    deadline_unix_ms: Date.now() + 3_000,
    batch_id: batchId,
  });
  return connectorCodecs.placeReply.decode(await stack.request('mt5', accountId, 'place', payload));
}

async function close(accountId: string, base: string): Promise<CloseReplyMessage> {
  const payload = connectorCodecs.closeRequest.encode({
    account_id: accountId,
    selector: { symbol: 'EURUSD', symbol_match: 'exact', side: 'any', kind: 'position' },
    tickets: [],
    client_id_base: base,
    deadline_unix_ms: Date.now() + 3_000,
    closes_max: 20,
    batch_id: base.split('-')[0]!,
  });
  return connectorCodecs.closeReply.decode(await stack.request('mt5', accountId, 'close', payload));
}

describe('claims per account message', () => {
  it('claims a 5-leg message once, under its batch and account, and no leg on its own', async () => {
    const batchId = `bat_claimsA${process.pid}x${++sequence}`;
    const legs = Array.from({ length: 5 }, (_, index) => `${batchId}-${index}`);
    const reply = await place('acc_claims1', batchId, legs);
    expect(reply.results.map((result) => result.status)).toEqual(['filled', 'filled', 'filled', 'filled', 'filled']);
    expect(await claimed(`${batchId}-p-acc_claims1`)).toBe(true);
    for (const leg of legs) expect(await claimed(leg), leg).toBe(false);
  });

  it('sends nothing for a message seen before, and answers each leg with what the first did (found by its tag)', async () => {
    const batchId = `bat_claimsB${process.pid}x${++sequence}`;
    const legs = Array.from({ length: 3 }, (_, index) => `${batchId}-${index}`);
    const first = await place('acc_claims2', batchId, legs);
    const before = await openCount('acc_claims2');
    expect(before).toBe(3);
    const again = await place('acc_claims2', batchId, legs);
    expect(await openCount('acc_claims2')).toBe(before);
    expect(again.results.map((result) => [result.status, result.order])).toEqual(
      first.results.map((result) => [result.status, result.order]),
    );
    for (const result of again.results) expect(result.message).toContain('not sent again');
    // A leg the first message did not carry is not sent either: it can only be left unsent, never sent twice.
    const widened = await place('acc_claims2', batchId, [...legs, `${batchId}-9`]);
    expect(await openCount('acc_claims2')).toBe(before);
    expect(widened.results[3]!.status).toBe('unknown');
  });

  it("claims each leg on its own when the message is not one batch's", async () => {
    const batchId = `bat_claimsC${process.pid}x${++sequence}`;
    const foreign = `bat_other${process.pid}x${sequence}-0`;
    const reply = await place('acc_claims3', batchId, [`${batchId}-0`, foreign]);
    expect(reply.results.map((result) => result.status)).toEqual(['filled', 'filled']);
    expect(await claimed(`${batchId}-p-acc_claims3`)).toBe(false);
    expect(await claimed(`${batchId}-0`)).toBe(true);
    expect(await claimed(foreign)).toBe(true);
  });

  it("claims an account's closes once per message, and a close message seen before sends nothing", async () => {
    const batchId = `bat_claimsD${process.pid}x${++sequence}`;
    await place('acc_claims4', batchId, [`${batchId}-0`, `${batchId}-1`]);
    const base = `${batchId}-c-acc_claims4`;
    const closed = await close('acc_claims4', base);
    expect(closed.status).toBe('closed');
    expect(closed.closed).toBe(2);
    expect(await claimed(base)).toBe(true);
    await place('acc_claims4', `${batchId}x`, [`${batchId}x-0`]);
    const again = await close('acc_claims4', base);
    // The new position is not closed by the repeated message: nothing is sent again.
    expect(await openCount('acc_claims4')).toBe(1);
    expect(again.results.every((result) => result.status !== 'closed' || result.message.includes('not sent again'))).toBe(true);
  });
});
