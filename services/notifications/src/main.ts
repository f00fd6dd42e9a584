import '@mtx/shared/instrumentation';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import { connectNats } from '@mtx/shared/nats';
import { createNotificationsApp } from './app';
import { loadNotificationsConfig } from './config';

const logger = createLogger('notifications');

runService(logger, async () => {
  const config = loadNotificationsConfig();
  const mongo = await connectMongo(config.MONGODB_URL);
  const nats = await connectNats(config.NATS_URL, 'notifications', logger);
  const app = createNotificationsApp({
    config,
    database: mongo.db(databaseName(config.MONGODB_DATABASE_PREFIX, 'notifications')),
    nats,
    logger,
  });
  return {
    app,
    graceMs: config.SHUTDOWN_GRACE_MS,
    operations: { port: config.METRICS_PORT },
    onStarted: () => logger.info({ port: app.port }, 'notifications listening'),
    release: async () => {
      await nats.drain().catch(() => undefined);
      await mongo.close();
    },
  };
});
