import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import { eventually, testDatabasePrefix } from '@mtx/shared/testing';
import { auditLedger } from '../src/app';
import { connectTestMongo, startWalletReplica, type WalletReplica } from './helpers';

/**
 * GET /v1/wallet's balance comes from the wallet's read cache: exact at once for movements the serving replica
 * applied, following other replicas' movements by broadcast, and never older than WALLET_READ_FRESH_MS when a
 * broadcast is lost. `consistent` reads bypass it.
 */
let mongo: MongoClient;
let prefix: string;
const opened: Array<{ close(): Promise<void> }> = [];

const newWallet = () => `cus_${crypto.randomBytes(6).toString('hex')}`;
const credit = (replica: WalletReplica, customerId: string, entryId: string, amount: number) =>
  replica.client.call('Credit', {
    customer_id: customerId,
    entry_id: entryId,
    amount_eur_cents: amount,
    reason: 'topup',
    reference: entryId,
  });
const read = (replica: WalletReplica, customerId: string, consistent = false) =>
  replica.client.call<{ balance_eur_cents: number; sequence: number }>('GetWallet', { customer_id: customerId, consistent });

async function replica(env: Record<string, string>, options: { nats?: NatsConnection; mongo?: MongoClient } = {}): Promise<WalletReplica> {
  const started = await startWalletReplica({ mongo: options.mongo ?? mongo, prefix, env, ...(options.nats ? { nats: options.nats } : {}) });
  opened.push(started);
  return started;
}

beforeAll(async () => {
  mongo = await connectTestMongo();
  prefix = testDatabasePrefix('walletcache');
});

afterEach(async () => {
  const report = await auditLedger(mongo.db(databaseName(prefix, 'wallet')));
  expect(report.breaches).toEqual([]);
});

afterAll(async () => {
  for (const item of opened.reverse()) await item.close();
  await mongo
    ?.db(databaseName(prefix, 'wallet'))
    .dropDatabase()
    .catch(() => undefined);
  await mongo?.close();
});

describe('wallet read cache', () => {
  it('shows a movement this replica applied at once, and answers fresh reads without touching the store', async () => {
    // A client of its own with command monitoring, so the store commands of this replica alone are counted.
    const monitored = await connectMongo(inject('mongodbUrl'), { monitorCommands: true });
    opened.push({ close: () => monitored.close() });
    const finds: string[] = [];
    monitored.on('commandStarted', (event) => {
      if (event.commandName === 'find') finds.push(String((event.command as { find?: string }).find));
    });
    const only = await replica({ WALLET_READ_FRESH_MS: '60000' }, { mongo: monitored });
    const customer = newWallet();
    expect(await read(only, customer)).toMatchObject({ balance_eur_cents: 0, sequence: 0 });
    for (let index = 1; index <= 5; index++) {
      await credit(only, customer, `t:${customer}:${index}`, 100);
      expect(await read(only, customer)).toMatchObject({ balance_eur_cents: index * 100, sequence: index });
    }
    finds.length = 0;
    for (let index = 0; index < 50; index++) expect(await read(only, customer)).toMatchObject({ balance_eur_cents: 500, sequence: 5 });
    expect(finds).toEqual([]);
    // A consistent read goes to the store and agrees.
    expect(await read(only, customer, true)).toMatchObject({ balance_eur_cents: 500, sequence: 5 });
    expect(finds.filter((collection) => collection === 'ledger').length).toBeGreaterThan(0);
  });

  it('follows another replica by broadcast, well inside the freshness window', async () => {
    const logger = createLogger('test', { level: 'silent' });
    const natsA = await connectNats(inject('natsUrl'), 'wallet-cache-a', logger);
    const natsB = await connectNats(inject('natsUrl'), 'wallet-cache-b', logger);
    opened.push({ close: () => natsA.close() }, { close: () => natsB.close() });
    // A window of a minute: only the broadcast can make A see B's movement during this test.
    const a = await replica({ WALLET_READ_FRESH_MS: '60000' }, { nats: natsA });
    const b = await replica({ WALLET_READ_FRESH_MS: '60000' }, { nats: natsB });
    await natsA.flush();
    await natsB.flush();
    const customer = newWallet();
    await credit(a, customer, `t:${customer}:1`, 700);
    expect(await read(a, customer)).toMatchObject({ balance_eur_cents: 700, sequence: 1 });
    await credit(b, customer, `t:${customer}:2`, 300);
    await eventually(async () => expect(await read(a, customer)).toMatchObject({ balance_eur_cents: 1000, sequence: 2 }), 5_000, 10);
    // A broadcast older than what a replica knows never moves its head back.
    a.app.ledger.observeMoved({ customerId: customer, sequence: 1, balanceEurCents: 700, heldEurCents: 0 });
    expect(await read(a, customer)).toMatchObject({ balance_eur_cents: 1000, sequence: 2 });
  });

  it('without the broadcast, is stale for at most the freshness window; consistent reads never are', async () => {
    const windowMs = 400;
    const a = await replica({ WALLET_READ_FRESH_MS: String(windowMs) });
    const b = await replica({ WALLET_READ_FRESH_MS: String(windowMs) });
    const customer = newWallet();
    await credit(a, customer, `t:${customer}:1`, 200);
    expect(await read(a, customer)).toMatchObject({ balance_eur_cents: 200 });
    const movedAtMs = performance.now();
    await credit(b, customer, `t:${customer}:2`, 50);
    await eventually(async () => expect(await read(a, customer)).toMatchObject({ balance_eur_cents: 250, sequence: 2 }), 5_000, 20);
    expect(performance.now() - movedAtMs).toBeLessThan(windowMs + 1_000);
    await credit(b, customer, `t:${customer}:3`, 25);
    expect(await read(a, customer, true)).toMatchObject({ balance_eur_cents: 275, sequence: 3 });
  });

  it('with WALLET_READ_FRESH_MS=0, every read sees another replica at once', async () => {
    const a = await replica({ WALLET_READ_FRESH_MS: '0' });
    const b = await replica({ WALLET_READ_FRESH_MS: '0' });
    const customer = newWallet();
    for (let index = 1; index <= 4; index++) {
      await credit(index % 2 === 0 ? a : b, customer, `t:${customer}:${index}`, 10);
      expect(await read(a, customer)).toMatchObject({ balance_eur_cents: index * 10, sequence: index });
      expect(await read(b, customer)).toMatchObject({ balance_eur_cents: index * 10, sequence: index });
    }
  });
});
