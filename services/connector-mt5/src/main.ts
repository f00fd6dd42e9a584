import '@mtx/shared/instrumentation';
import { loadConnectorConfig } from '@mtx/connector-runtime/config';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { startConnectorMt5 } from './app';

const logger = createLogger('connector-mt5');

runService(logger, async () => {
  const config = loadConnectorConfig('mt5');
  const app = await startConnectorMt5({ config, logger });
  logger.info({ health_port: app.healthPort, broker: config.BROKER_SIM_GRPC_URL }, 'connector-mt5 ready');
  return { graceMs: config.SHUTDOWN_GRACE_MS, stop: (graceMs) => app.close(graceMs) };
});
