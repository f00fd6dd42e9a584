import '@mtx/shared/instrumentation';
import { handleShutdownSignals, runMain } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import { createBrokerSimApp } from './app';
import { loadBrokerSimConfig } from './config';

const logger = createLogger('broker-sim');

runMain(logger, async () => {
  const config = loadBrokerSimConfig();
  const mongo = await connectMongo(config.MONGODB_URL);
  const app = createBrokerSimApp({ config, database: mongo.db(databaseName(config.MONGODB_DATABASE_PREFIX, 'broker_sim')), logger });
  const ports = await app.listen(config.GRPC_PORT, config.HTTP_PORT, config.HOST);
  logger.info({ grpc_port: ports.grpcPort, http_port: ports.httpPort, latency_ms: config.BROKER_SIM_LATENCY_MS }, 'broker-sim listening');
  handleShutdownSignals(
    logger,
    async () => {
      await app.close(config.SHUTDOWN_GRACE_MS);
      await mongo.close();
    },
    config.SHUTDOWN_GRACE_MS,
  );
});
