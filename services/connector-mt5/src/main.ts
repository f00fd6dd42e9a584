import '@mtx/shared/instrumentation';
import { loadConnectorConfig } from '@mtx/connector-runtime/config';
import { handleShutdownSignals, runMain } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { startConnectorMt5 } from './app';

const logger = createLogger('connector-mt5');

runMain(logger, async () => {
  const config = loadConnectorConfig('mt5');
  const app = await startConnectorMt5({ config, logger });
  logger.info({ health_port: app.healthPort, broker: config.BROKER_SIM_GRPC_URL }, 'connector-mt5 ready');
  handleShutdownSignals(logger, () => app.close(config.SHUTDOWN_GRACE_MS), config.SHUTDOWN_GRACE_MS);
});
