import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorCodecs, terminalSubject } from '@mtx/shared/connector/messages';
import { createLogger } from '@mtx/shared/logger';
import { connectNats } from '@mtx/shared/nats';
import { eventually } from '@mtx/shared/testing';
import { inject } from 'vitest';
import { startExecutionE2e, type ExecutionE2e } from './execution-helpers';
import { sentWith } from '../../services/broker-sim/src/terminal/terminal-account';
import { clientTag, tagOfComment } from '../../services/connector-runtime/src/bridge/client-tag';

let e2e: ExecutionE2e;
type Account = Awaited<ReturnType<ExecutionE2e['connect']>>;
let mt5Accounts: Account[];
let mt4Accounts: Account[];

beforeAll(async () => {
  e2e = await startExecutionE2e('e2efault');
  await e2e.control('/control/prices', 'POST', { frozen_all: true });
  mt5Accounts = [await e2e.connect('mt5', 'AlphaFX-Live'), await e2e.connect('mt5', 'BetaMarkets-Server')];
  mt4Accounts = [await e2e.connect('mt4', 'GammaTrade-Real'), await e2e.connect('mt4', 'DeltaPrime-ECN')];
}, 240_000);

afterAll(async () => e2e?.close());

const symbolFor = (account: Account) => `EURUSD${account.symbol_suffix}`;
const path = (account: Account) => `/control/accounts/${account.server}/${account.login}`;

/** Deals at the trade server per client-id tag: an order carries its client id as a tag in its comment. */
async function dealsByTag(account: Account): Promise<Map<string, Array<{ order: number }>>> {
  const deals = (await e2e.control(`${path(account)}/deals`)).body.deals as Array<{ clientId: string; order: number }>;
  const byTag = new Map<string, Array<{ order: number }>>();
  for (const deal of deals) {
    const tag = tagOfComment(sentWith(deal.clientId).comment);
    if (tag) byTag.set(tag, [...(byTag.get(tag) ?? []), deal]);
  }
  return byTag;
}

describe('a connector killed with SIGKILL in the middle of a batch', () => {
  it('leaves its legs unknown, not rejected; after restart nothing executed twice and reconciliation settles every unknown', async () => {
    // The mt5 accounts' trade server takes 900 ms per order. A terminal carries out one trade at a time, so when the
    // connector dies each mt5 terminal has one leg at the trade server and the rest waiting in its EA, which forgets
    // them with the connection (docs/terminal-bridge.md, "Requests in flight when a connection drops").
    for (const account of mt5Accounts) await e2e.control(`${path(account)}/faults`, 'PUT', { delay_ms: 900 });
    const legs = Array.from({ length: 20 }, (_, index) => {
      const account = index < 10 ? mt5Accounts[index % 2]! : mt4Accounts[index % 2]!;
      return { account_id: account.id, symbol: symbolFor(account), operation: index % 3 === 0 ? 'sell' : 'buy', volume: 0.1 };
    });
    const pending = e2e.api('POST', '/v1/orders', { orders: legs });
    await eventually(
      async () => {
        for (const account of mt5Accounts) {
          const requests = (await e2e.control(`${path(account)}/requests`)).body.requests as Array<{ state: string }>;
          if (!requests.some((record) => record.state === 'processing')) return false;
        }
        return true;
      },
      5_000,
      20,
    );
    const connector = e2e.stack.services.get('connector-mt5')!;
    await connector.kill('SIGKILL');
    const response = await pending;
    expect(response.status).toBe(200);
    const results = response.body.results as Array<{ status: string; retcode?: number; order: number }>;
    // Sent, never answered: each may have executed, so `unknown`, never `rejected`.
    expect(results.slice(0, 10).map((result) => result.status)).toEqual(Array(10).fill('unknown'));
    expect(results.slice(0, 10).every((result) => result.retcode === undefined && result.order === 0)).toBe(true);
    expect(results.slice(10).map((result) => result.status)).toEqual(Array(10).fill('filled'));
    expect(response.body.summary).toEqual({ requested: 20, filled: 10, placed: 0, failed: 0, unknown: 10 });

    await connector.restart();
    for (const account of mt5Accounts) await e2e.control(`${path(account)}/faults`, 'DELETE');

    const settled = await eventually(
      async () => {
        const batch = await e2e.api('GET', `/v1/orders/batches/${response.body.batch_id}`);
        return batch.body.settled ? batch.body : undefined;
      },
      20_000,
      250,
    );
    // Each mt5 terminal finished the trade it had started; what waited in its EA never executed.
    expect(settled.summary.unknown).toBe(0);
    expect(settled.summary.filled + settled.summary.failed).toBe(20);
    expect(settled.summary.filled).toBeGreaterThanOrEqual(12);
    expect(settled.results.slice(10)).toEqual(response.body.results.slice(10));

    // Every leg settled filled has exactly one deal, with its order; every leg settled as not executed has none.
    const batchId = response.body.batch_id as string;
    for (const account of [...mt5Accounts, ...mt4Accounts]) {
      const byTag = await dealsByTag(account);
      for (const [tag, deals] of byTag) expect(deals, `deals tagged ${tag}`).toHaveLength(1);
      for (const [index, leg] of legs.entries()) {
        if (leg.account_id !== account.id) continue;
        const deals = byTag.get(clientTag(`${batchId}-${index}`)) ?? [];
        const result = settled.results[index] as { status: string; order: number };
        if (result.status === 'filled')
          expect(
            deals.map((deal) => deal.order),
            `leg ${index}`,
          ).toEqual([result.order]);
        else expect(deals, `leg ${index} (${result.status})`).toHaveLength(0);
      }
    }

    // The restarted connector refuses to send those client ids again: it answers from the trade server's record.
    const received = (await e2e.control('/control/stats')).body.trade_requests_received as number;
    const nats = await connectNats(inject('natsUrl'), 'fault-test', createLogger('fault-test', { level: 'silent' }));
    try {
      const account = mt5Accounts[0]!;
      const indexes = legs
        .map((leg, index) => ({ leg, index }))
        .filter(({ leg, index }) => leg.account_id === account.id && settled.results[index].status === 'filled');
      expect(indexes.length).toBeGreaterThan(0);
      const payload = connectorCodecs.placeRequest.encode({
        account_id: account.id,
        legs: indexes.map(({ leg, index }) => ({
          client_id: `${batchId}-${index}`,
          leg_index: index,
          symbol: leg.symbol,
          operation: leg.operation,
          volume: leg.volume,
        })),
        deadline_unix_ms: Date.now() + 5_000,
        batch_id: batchId,
      });
      const reply = await eventually(async () => {
        const answer = await nats
          .request(terminalSubject(e2e.subjectRoot, 'mt5', account.id, 'place'), payload, { timeout: 8_000 })
          .catch(() => undefined);
        return answer ? connectorCodecs.placeReply.decode(answer.data) : undefined;
      }, 10_000);
      expect(reply.results.map((result) => result.order)).toEqual(indexes.map(({ index }) => settled.results[index].order));
      expect(reply.results.every((result) => result.status === 'filled' && result.message.startsWith('duplicate request'))).toBe(true);
    } finally {
      await nats.close();
    }
    expect((await e2e.control('/control/stats')).body.trade_requests_received).toBe(received);
  });
});
