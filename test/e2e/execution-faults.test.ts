import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorCodecs, terminalSubject } from '@mtx/shared/connector/messages';
import { createLogger } from '@mtx/shared/logger';
import { connectNats } from '@mtx/shared/nats';
import { eventually } from '@mtx/shared/testing';
import { inject } from 'vitest';
import { startExecutionE2e, type ExecutionE2e } from './execution-helpers';

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

describe('a connector killed with SIGKILL in the middle of a batch', () => {
  it('leaves its legs unknown, not rejected; after restart nothing executed twice and reconciliation settles every unknown', async () => {
    // The mt5 broker accounts take 900 ms per order, so the connector dies with every mt5 leg at the broker.
    for (const account of mt5Accounts) await e2e.control(`${path(account)}/faults`, 'PUT', { delay_ms: 900 });
    const legs = Array.from({ length: 20 }, (_, index) => {
      const account = index < 10 ? mt5Accounts[index % 2]! : mt4Accounts[index % 2]!;
      return { account_id: account.id, symbol: symbolFor(account), operation: index % 3 === 0 ? 'sell' : 'buy', volume: 0.1 };
    });
    const pending = e2e.api('POST', '/v1/orders', { orders: legs });
    await eventually(
      async () => {
        let processing = 0;
        for (const account of mt5Accounts)
          processing += ((await e2e.control(`${path(account)}/requests`)).body.requests as unknown[]).length;
        return processing >= 10;
      },
      5_000,
      20,
    );
    const connector = e2e.stack.services.get('connector-mt5')!;
    await connector.kill('SIGKILL');
    const response = await pending;
    expect(response.status).toBe(200);
    const results = response.body.results as Array<{
      account_id: string;
      status: string;
      retcode?: number;
      order: number;
      platform: string;
    }>;
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
    expect(settled.summary).toEqual({ requested: 20, filled: 20, placed: 0, failed: 0, unknown: 0 });
    expect(settled.results.slice(10)).toEqual(results.slice(10));

    // Every leg executed exactly once at the broker: one request record and one deal per client id.
    const batchId = response.body.batch_id as string;
    for (const account of [...mt5Accounts, ...mt4Accounts]) {
      const requests = (await e2e.control(`${path(account)}/requests`)).body.requests as Array<{ clientId: string; state: string }>;
      const deals = (await e2e.control(`${path(account)}/deals`)).body.deals as Array<{ clientId: string; order: number }>;
      const expected = legs
        .map((leg, index) => ({ leg, clientId: `${batchId}-${index}` }))
        .filter(({ leg }) => leg.account_id === account.id);
      for (const { clientId } of expected) {
        expect(
          requests.filter((record) => record.clientId === clientId && record.state === 'done'),
          clientId,
        ).toHaveLength(1);
        expect(
          deals.filter((deal) => deal.clientId === clientId),
          clientId,
        ).toHaveLength(1);
      }
      for (const [index, leg] of legs.entries()) {
        if (leg.account_id !== account.id) continue;
        expect(deals.find((deal) => deal.clientId === `${batchId}-${index}`)!.order).toBe(settled.results[index].order);
      }
    }

    // The restarted connector refuses to send those client ids again: it answers from the broker's record.
    const received = (await e2e.control('/control/stats')).body.trade_requests_received as number;
    const nats = await connectNats(inject('natsUrl'), 'fault-test', createLogger('fault-test', { level: 'silent' }));
    try {
      const account = mt5Accounts[0]!;
      const indexes = legs.map((leg, index) => ({ leg, index })).filter(({ leg }) => leg.account_id === account.id);
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
      const reply = connectorCodecs.placeReply.decode(
        (await nats.request(terminalSubject(e2e.subjectRoot, 'mt5', account.id, 'place'), payload, { timeout: 8_000 })).data,
      );
      expect(reply.results.map((result) => result.order)).toEqual(indexes.map(({ index }) => settled.results[index].order));
      expect(reply.results.every((result) => result.status === 'filled' && result.message.startsWith('duplicate request'))).toBe(true);
    } finally {
      await nats.close();
    }
    expect((await e2e.control('/control/stats')).body.trade_requests_received).toBe(received);
  });
});
