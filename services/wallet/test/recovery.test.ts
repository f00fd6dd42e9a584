import crypto from 'node:crypto';
import { connect, type NatsConnection, type Subscription } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createUnaryClient } from '@mtx/shared/grpc';
import { startServiceProcess, type ServiceProcess } from '@mtx/devstack/services';
import { databaseName, type MongoClient } from '@mtx/shared/mongo';
import { eventually, testDatabasePrefix } from '@mtx/shared/testing';
import { auditLedger, walletCreditedSubject, walletGrpcBinding } from '../src/app';
import { createLedgerStore } from '../src/store/ledger-store';
import { connectTestMongo } from './helpers';

let mongo: MongoClient;
let nats: NatsConnection;
let prefix: string;
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  mongo = await connectTestMongo();
  nats = await connect({ servers: inject('natsUrl') });
  prefix = testDatabasePrefix('walletcrash');
});

afterAll(async () => {
  for (const process of processes) await process.stop(5_000);
  await nats?.close();
  await mongo
    ?.db(databaseName(prefix, 'wallet'))
    .dropDatabase()
    .catch(() => undefined);
  await mongo?.close();
});

function startWallet(extra: Record<string, string>): Promise<ServiceProcess> {
  return startServiceProcess({
    name: 'wallet',
    env: {
      ...process.env,
      MONGODB_URL: inject('mongodbUrl'),
      NATS_URL: inject('natsUrl'),
      MONGODB_DATABASE_PREFIX: prefix,
      LOG_LEVEL: 'error',
      WALLET_RECOVERY_INTERVAL_MS: '200',
      ...extra,
    },
  }).then((started) => {
    processes.push(started);
    return started;
  });
}

function collect(subscription: Subscription, into: Array<Record<string, unknown>>): void {
  void (async () => {
    for await (const message of subscription) into.push(JSON.parse(new TextDecoder().decode(message.data)) as Record<string, unknown>);
  })();
}

describe('crash between the ledger write and the cached head update', () => {
  it('kills the real process after the insert, and recovery on restart finishes the checkpoint and announcement', async () => {
    const customer = `cus_${crypto.randomBytes(6).toString('hex')}`;
    const events: Array<Record<string, unknown>> = [];
    const subscription = nats.subscribe(walletCreditedSubject);
    collect(subscription, events);
    const store = createLedgerStore(mongo.db(databaseName(prefix, 'wallet')));

    const crashing = await startWallet({ WALLET_FAULT_CRASH_AFTER_LEDGER_WRITE: 'crash:' });
    const client = createUnaryClient<any>(walletGrpcBinding.protoFile, walletGrpcBinding.serviceName, crashing.address, 5_000);
    const credit = (entryId: string, amount: number) =>
      client.call('Credit', { customer_id: customer, entry_id: entryId, amount_eur_cents: amount, reason: 'topup', reference: '' });
    // Fifteen movements, so the crashing one is the sixteenth: the one that also owes the first checkpoint.
    for (let index = 1; index <= 15; index++)
      expect(await credit(`ok:${index}`, 100)).toMatchObject({ applied: true, balance_eur_cents: 100 * index });
    await expect(credit('crash:1', 500)).rejects.toMatchObject({ code: 'unavailable' });
    expect(await crashing.exited()).toBe(137);
    client.close();

    // The insert is the commit: the entry is there; its checkpoint and announcement are not.
    expect(await store.ledger.findOne({ _id: `${customer}:16` })).toMatchObject({ entry_id: 'crash:1', balance_after_eur_cents: 2000 });
    expect(await store.checkpoints.findOne({ _id: `${customer}:1` })).toBeNull();
    expect(events.filter((event) => event.customer_id === customer).map((event) => event.entry_id)).not.toContain('crash:1');
    // Hints that lag are still a sound ledger: nothing points ahead of the head.
    expect((await auditLedger(store.database)).breaches).toEqual([]);

    const restarted = await startWallet({});
    await eventually(async () => (await store.checkpoints.findOne({ _id: `${customer}:1` })) !== null, 15_000);
    expect(await store.checkpoints.findOne({ _id: `${customer}:1` })).toMatchObject({
      seq: 16,
      balance_eur_cents: 2000,
      held_eur_cents: 0,
    });
    await eventually(
      async () =>
        events.some((event) => event.customer_id === customer && event.entry_id === 'crash:1' && event.balance_eur_cents === 2000),
      5_000,
    );

    const again = createUnaryClient<any>(walletGrpcBinding.protoFile, walletGrpcBinding.serviceName, restarted.address, 5_000);
    expect(
      await again.call('Credit', { customer_id: customer, entry_id: 'crash:1', amount_eur_cents: 500, reason: 'topup', reference: '' }),
    ).toMatchObject({ replay: true, balance_eur_cents: 2000 });
    expect(await again.call('GetWallet', { customer_id: customer })).toMatchObject({ balance_eur_cents: 2000, sequence: 16 });
    const audit = await again.call<{ ok: boolean; breaches: string[] }>('Audit', {});
    expect(audit.breaches).toEqual([]);
    expect(audit.ok).toBe(true);
    again.close();
    subscription.unsubscribe();
  });
});
