import { inject } from 'vitest';
import { systemClock, type Clock } from '@mtx/shared/clock';
import { createUnaryClient, startGrpcServer, type GrpcServerHandle, type UnaryClient } from '@mtx/shared/grpc';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import type { NatsConnection } from '@mtx/shared/nats';
import { createWalletApp, walletGrpcBinding, type WalletApp } from '../src/app';
import { loadWalletConfig } from '../src/config';

export interface WalletReplica {
  app: WalletApp;
  server: GrpcServerHandle;
  client: UnaryClient;
  address: string;
  close(): Promise<void>;
}

/** One in-process wallet replica serving gRPC on a free port, on the shared test store. */
export async function startWalletReplica(options: { mongo: MongoClient; prefix: string; nats?: NatsConnection; clock?: Clock; env?: Record<string, string> }): Promise<WalletReplica> {
  const config = loadWalletConfig({ MONGODB_URL: inject('mongodbUrl'), MONGODB_DATABASE_PREFIX: options.prefix, LOG_LEVEL: 'silent', GRPC_PORT: '0', GRPC_HOST: '127.0.0.1', ...options.env });
  const app = await createWalletApp({
    config,
    database: options.mongo.db(databaseName(options.prefix, 'wallet')),
    clock: options.clock ?? systemClock,
    logger: createLogger('wallet', { level: 'silent' }),
    ...(options.nats ? { nats: options.nats } : {}),
  });
  const server = await startGrpcServer([{ ...walletGrpcBinding, implementation: app.grpcImplementation }], '127.0.0.1:0');
  const address = `127.0.0.1:${server.port}`;
  const client = createUnaryClient(walletGrpcBinding.protoFile, walletGrpcBinding.serviceName, address, 10_000);
  return {
    app,
    server,
    client,
    address,
    async close() {
      client.close();
      await server.close(1_000);
      await app.stopBackgroundWork();
    },
  };
}

export async function connectTestMongo(): Promise<MongoClient> {
  return connectMongo(inject('mongodbUrl'));
}
