import { inject } from 'vitest';
import { ManualClock } from '@mtx/shared/clock';
import { createUnaryClient, type UnaryClient } from '@mtx/shared/grpc';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { createWalletApp, walletGrpcBinding, type WalletApp } from '../../wallet/src/app';
import { loadWalletConfig } from '../../wallet/src/config';
import { createBillingApp, type BillingApp } from '../src/app';
import { billingCollections } from '../src/store/billing-store';
import { loadBillingConfig } from '../src/config';
import { executionPortFromClient } from '../src/clients/execution';
import { walletPortFromClient } from '../src/clients/wallet';
import type { ExecutionPort, WalletPort } from '../src/domain/ports';
import { grpcServices } from '@mtx/shared/grpc-services';

export interface BillingReplica {
  app: BillingApp;
  client: UnaryClient<any>;
  address: string;
}

export interface BillingHarness {
  mongo: MongoClient;
  nats: NatsConnection;
  prefix: string;
  clock: ManualClock;
  wallet: { app: WalletApp; client: UnaryClient<any>; address: string };
  /** The first billing replica; more come from addReplica. */
  billing: BillingReplica;
  addReplica(options?: { clock?: ManualClock }): Promise<BillingReplica>;
  credit(customerId: string, amountEurCents: number, entryId?: string): Promise<void>;
  balance(customerId: string): Promise<number>;
  close(): Promise<void>;
}

let creditCounter = 0;

/**
 * The real wallet (its app factory, gRPC on a free port, publishing credit events on the real NATS) and
 * billing replicas on the shared test store, all in-process so a ManualClock can move billing's time.
 */
export async function startBillingHarness(
  options: {
    env?: Record<string, string>;
    execution?: ExecutionPort;
    executionAddress?: string;
    start?: Date | string;
    wrapWallet?: (wallet: WalletPort) => WalletPort;
  } = {},
): Promise<BillingHarness> {
  const prefix = testDatabasePrefix('bill');
  const mongo = await connectMongo(inject('mongodbUrl'));
  const logger = createLogger('billing-test', { level: 'silent' });
  const nats = await connectNats(inject('natsUrl'), 'billing-test', logger);
  const walletConfig = loadWalletConfig({
    MONGODB_URL: inject('mongodbUrl'),
    MONGODB_DATABASE_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: '0',
  });
  const walletApp = await createWalletApp({
    config: walletConfig,
    database: mongo.db(databaseName(prefix, 'wallet')),
    clock: { now: () => new Date() },
    logger,
    nats,
    backgroundWork: false,
  });
  await walletApp.start();
  const walletAddress = `127.0.0.1:${walletApp.port}`;
  const walletClient = createUnaryClient<any>(walletGrpcBinding.protoFile, walletGrpcBinding.serviceName, walletAddress, 10_000);
  const clock = new ManualClock(options.start ?? '2027-03-10T09:00:00Z');
  const executionClient = createUnaryClient<any>(
    'execution/v1/execution.proto',
    'mtx.execution.v1.ExecutionService',
    options.executionAddress ?? '127.0.0.1:1',
    2_000,
  );
  const replicas: BillingReplica[] = [];
  const addReplica = async (replicaOptions: { clock?: ManualClock } = {}): Promise<BillingReplica> => {
    const config = loadBillingConfig({
      MONGODB_URL: inject('mongodbUrl'),
      MONGODB_DATABASE_PREFIX: prefix,
      LOG_LEVEL: 'silent',
      SCHEDULER_ENABLED: 'false',
      FAILURE_BACKOFF_MS: '60000',
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: '0',
      ...options.env,
    });
    const app = createBillingApp({
      config,
      collections: billingCollections(mongo.db(databaseName(prefix, 'billing'))),
      clock: replicaOptions.clock ?? clock,
      logger: createLogger('billing', { level: 'silent' }),
      wallet: (options.wrapWallet ?? ((wallet: WalletPort) => wallet))(walletPortFromClient(walletClient, 5_000)),
      execution: options.execution ?? executionPortFromClient(executionClient, 2_000),
      nats,
    });
    await app.start();
    const address = `127.0.0.1:${app.port}`;
    const client = createUnaryClient<any>(grpcServices.billing.protoFile, grpcServices.billing.serviceName, address, 30_000);
    const replica = { app, client, address };
    replicas.push(replica);
    return replica;
  };
  const billing = await addReplica();
  return {
    mongo,
    nats,
    prefix,
    clock,
    wallet: { app: walletApp, client: walletClient, address: walletAddress },
    billing,
    addReplica,
    async credit(customerId, amountEurCents, entryId) {
      await walletClient.call('Credit', {
        customer_id: customerId,
        entry_id: entryId ?? `topup:test-${process.pid}-${Date.now()}-${++creditCounter}`,
        amount_eur_cents: amountEurCents,
        reason: 'topup',
        reference: 'test',
      });
    },
    async balance(customerId) {
      const wallet = await walletClient.call<{ balance_eur_cents: number }>('GetWallet', { customer_id: customerId });
      return Number(wallet.balance_eur_cents);
    },
    async close() {
      for (const replica of replicas) {
        replica.client.close();
        await replica.app.stop(1_000);
      }
      executionClient.close();
      walletClient.close();
      await walletApp.stop(1_000);
      await nats.drain().catch(() => undefined);
      await mongo
        .db(databaseName(prefix, 'billing'))
        .dropDatabase()
        .catch(() => undefined);
      await mongo
        .db(databaseName(prefix, 'wallet'))
        .dropDatabase()
        .catch(() => undefined);
      await mongo.close();
    },
  };
}

export const customerIdFor = (label: string) => `cus_${label}_${Math.random().toString(36).slice(2, 10)}`;
