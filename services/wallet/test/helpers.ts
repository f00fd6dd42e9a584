import type { CommandStartedEvent } from 'mongodb';
import { afterAll, afterEach, beforeAll, expect, inject } from 'vitest';
import { systemClock, type Clock } from '@mtx/shared/clock';
import { createUnaryClient, type UnaryClient } from '@mtx/shared/grpc';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';
import type { NatsConnection } from '@mtx/shared/nats';
import { auditLedger, createWalletApp, walletGrpcBinding, type WalletApp } from '../src/app';
import { loadWalletConfig } from '../src/config';
import { createLedger, type MovementOutcome } from '../src/app/ledger';
import { createLedgerStore, ensureLedgerIndexes, type LedgerStore } from '../src/store/ledger-store';

export interface WalletReplica {
  app: WalletApp;
  client: UnaryClient<any>;
  address: string;
  close(): Promise<void>;
}

/** One in-process wallet replica serving gRPC on a free port, on the shared test store. */
export async function startWalletReplica(options: {
  mongo: MongoClient;
  prefix: string;
  nats?: NatsConnection;
  clock?: Clock;
  env?: Record<string, string>;
}): Promise<WalletReplica> {
  const config = loadWalletConfig({
    MONGODB_URL: inject('mongodbUrl'),
    MONGODB_DATABASE_PREFIX: options.prefix,
    LOG_LEVEL: 'silent',
    GRPC_PORT: '0',
    GRPC_HOST: '127.0.0.1',
    ...options.env,
  });
  const app = await createWalletApp({
    config,
    database: options.mongo.db(databaseName(options.prefix, 'wallet')),
    clock: options.clock ?? systemClock,
    logger: createLogger('wallet', { level: 'silent' }),
    ...(options.nats ? { nats: options.nats } : {}),
    backgroundWork: false,
  });
  await app.start();
  const address = `127.0.0.1:${app.port}`;
  const client = createUnaryClient<any>(walletGrpcBinding.protoFile, walletGrpcBinding.serviceName, address, 10_000);
  return {
    app,
    client,
    address,
    async close() {
      client.close();
      await app.stop(1_000);
    },
  };
}

export async function connectTestMongo(): Promise<MongoClient> {
  return connectMongo(inject('mongodbUrl'));
}

export interface TwoReplicaSuite {
  mongo: MongoClient;
  prefix: string;
  replicaA: WalletReplica;
  replicaB: WalletReplica;
}

/**
 * Two replicas on one fresh store, as in production (contention across processes is what the insert-linearised
 * ledger exists for), with the suite's hooks: the ledger audit after every test, teardown after all. The
 * fields are filled in by beforeAll.
 */
export function twoReplicasOnOneStore(label: string): TwoReplicaSuite {
  const suite = {} as TwoReplicaSuite;
  beforeAll(async () => {
    suite.mongo = await connectTestMongo();
    suite.prefix = testDatabasePrefix(label);
    suite.replicaA = await startWalletReplica({ mongo: suite.mongo, prefix: suite.prefix });
    suite.replicaB = await startWalletReplica({ mongo: suite.mongo, prefix: suite.prefix });
  });
  afterAll(async () => {
    await suite.replicaA?.close();
    await suite.replicaB?.close();
    await suite.mongo
      ?.db(databaseName(suite.prefix, 'wallet'))
      .dropDatabase()
      .catch(() => undefined);
    await suite.mongo?.close();
  });
  afterEach(async () => {
    const report = await auditLedger(suite.mongo.db(databaseName(suite.prefix, 'wallet')));
    expect(report.breaches).toEqual([]);
    expect(report.ok).toBe(true);
  });
  return suite;
}

/** A top-up credit through a replica's gRPC API (the entry id doubles as the reference). */
export const creditCall = (replica: WalletReplica, customerId: string, entryId: string, amount: number) =>
  replica.client.call<MovementOutcome>('Credit', {
    customer_id: customerId,
    entry_id: entryId,
    amount_eur_cents: amount,
    reason: 'topup',
    reference: entryId,
  });

/** A seat debit through a replica's gRPC API (the entry id doubles as the reference). */
export const debitCall = (replica: WalletReplica, customerId: string, entryId: string, amount: number) =>
  replica.client.call<MovementOutcome>('Debit', {
    customer_id: customerId,
    entry_id: entryId,
    amount_eur_cents: amount,
    reason: 'seat',
    reference: entryId,
  });

/**
 * A clock one millisecond later at every reading, shared by the ledgers of a test: movements (and runs, which
 * read it once) get distinct `created_at`, as they do in practice unless two fall in the same millisecond.
 */
export function tickingClock(): Clock {
  let ms = Date.now();
  return { now: () => new Date(++ms) };
}

/**
 * Wallet databases of their own for the tests of one file, on a client that records every command it sends:
 * `freshStore()` makes one (and makes it `store`), the latest is audited after each test (whatever a test did,
 * the ledger it leaves is sound), and all are dropped after the file.
 */
export function watchedStores(label: string) {
  const prefixes: string[] = [];
  const stores = {
    mongo: undefined as unknown as MongoClient,
    commands: [] as CommandStartedEvent[],
    store: undefined as LedgerStore | undefined,
    async freshStore(): Promise<LedgerStore> {
      const prefix = testDatabasePrefix(label);
      prefixes.push(prefix);
      const fresh = createLedgerStore(stores.mongo.db(databaseName(prefix, 'wallet')));
      await ensureLedgerIndexes(fresh);
      stores.store = fresh;
      return fresh;
    },
  };
  beforeAll(async () => {
    stores.mongo = await connectMongo(inject('mongodbUrl'), { monitorCommands: true });
    stores.mongo.on('commandStarted', (event) => stores.commands.push(event));
  });
  afterEach(async () => {
    if (stores.store) expect((await auditLedger(stores.store.database)).breaches).toEqual([]);
  });
  afterAll(async () => {
    for (const prefix of prefixes)
      await stores.mongo
        .db(databaseName(prefix, 'wallet'))
        .dropDatabase()
        .catch(() => undefined);
    await stores.mongo?.close();
  });
  return stores;
}

/** What a crashing in-process ledger throws where the real process would have died. */
export class LedgerCrash extends Error {}

/**
 * An in-process ledger on `store` that "dies" right after the ledger insert of any entry id starting with
 * `crash:` (the fault injection the real process exits on), by throwing LedgerCrash.
 */
export function crashingLedger(store: LedgerStore, clock: Clock = systemClock) {
  return createLedger({
    store,
    clock,
    logger: createLogger('wallet', { level: 'silent' }),
    crashAfterLedgerWritePrefix: 'crash:',
    exit: () => {
      throw new LedgerCrash('fault injection: the process died here');
    },
  });
}
