import '@mtx/shared/instrumentation';
import { systemClock } from '@mtx/shared/clock';
import { startGrpcServer } from '@mtx/shared/grpc';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import { connectNats } from '@mtx/shared/nats';
import { createWalletApp, walletGrpcBinding } from './app';
import { loadWalletConfig } from './config';

const logger = createLogger('wallet');

runService(logger, async () => {
  const config = loadWalletConfig();
  const mongo = await connectMongo(config.MONGODB_URL);
  const nats = await connectNats(config.NATS_URL, 'wallet', logger);
  const app = await createWalletApp({
    config,
    database: mongo.db(databaseName(config.MONGODB_DATABASE_PREFIX, 'wallet')),
    clock: systemClock,
    logger,
    nats,
  });
  const server = await startGrpcServer(
    [{ ...walletGrpcBinding, implementation: app.grpcImplementation }],
    `${config.GRPC_HOST}:${config.GRPC_PORT}`,
  );
  app.startBackgroundWork();
  if (config.WALLET_FAULT_CRASH_AFTER_LEDGER_WRITE)
    logger.warn({ prefix: config.WALLET_FAULT_CRASH_AFTER_LEDGER_WRITE }, 'fault injection armed: crash after ledger write');
  logger.info({ port: server.port }, 'wallet listening');
  return {
    graceMs: config.SHUTDOWN_GRACE_MS,
    stop: async (graceMs) => {
      await server.close(graceMs);
      await app.stopBackgroundWork();
      await nats.drain().catch(() => undefined);
      await mongo.close();
    },
  };
});
