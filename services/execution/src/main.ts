import '@mtx/shared/instrumentation';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import { connectNats } from '@mtx/shared/nats';
import { connectService } from '@mtx/shared/grpc-services';
import { createExecutionApp } from './app';
import { loadExecutionConfig } from './config';

const logger = createLogger('execution');

runService(logger, async () => {
  const config = loadExecutionConfig();
  const mongo = await connectMongo(config.MONGODB_URL);
  const nats = await connectNats(config.NATS_URL, 'execution', logger);
  // Creating the client dials nothing; seat checks are its only use.
  const billing = config.SEATS_REQUIRED ? connectService('billing', config.BILLING_GRPC_URL, config.GRPC_DEADLINE_MS) : undefined;
  const app = createExecutionApp({
    config,
    database: mongo.db(databaseName(config.MONGODB_DATABASE_PREFIX, 'execution')),
    nats,
    logger,
    ...(billing ? { billing } : {}),
  });
  return {
    app,
    graceMs: config.SHUTDOWN_GRACE_MS,
    operations: { port: config.METRICS_PORT },
    onStarted: () =>
      logger.info(
        { port: app.port, deadline_ms: config.EXECUTION_DEADLINE_MS, seats_required: config.SEATS_REQUIRED },
        'execution listening',
      ),
    release: async () => {
      billing?.close();
      await nats.drain().catch(() => undefined);
      await mongo.close();
    },
  };
});
