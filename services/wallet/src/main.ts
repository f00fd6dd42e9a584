import '@mtx/shared/instrumentation';
import { systemClock } from '@mtx/shared/clock';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import { connectNats } from '@mtx/shared/nats';
import { createWalletApp } from './app';
import { loadWalletConfig } from './config';

const logger = createLogger('wallet');

runService(logger, async () => {
  const config = loadWalletConfig();
  const mongo = await connectMongo(config.MONGODB_URL);
  // noEcho: the server would hand back its own movement broadcasts (every credit and debit) to parse, whose heads it noted already.
  const nats = await connectNats(config.NATS_URL, 'wallet', logger, { noEcho: true });
  const app = createWalletApp({
    config,
    database: mongo.db(databaseName(config.MONGODB_DATABASE_PREFIX, 'wallet')),
    clock: systemClock,
    logger,
    nats,
  });
  if (config.WALLET_FAULT_CRASH_AFTER_LEDGER_WRITE)
    logger.warn({ prefix: config.WALLET_FAULT_CRASH_AFTER_LEDGER_WRITE }, 'fault injection armed: crash after ledger write');
  return {
    app,
    graceMs: config.SHUTDOWN_GRACE_MS,
    operations: { port: config.METRICS_PORT },
    onStarted: () => logger.info({ port: app.port }, 'wallet listening'),
    release: async () => {
      await nats.drain().catch(() => undefined);
      await mongo.close();
    },
  };
});
