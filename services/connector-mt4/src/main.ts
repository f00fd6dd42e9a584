import '@mtx/shared/instrumentation';
import { loadConnectorConfig } from '@mtx/connector-runtime/config';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { startConnectorMt4 } from './app';

const logger = createLogger('connector-mt4');

runService(logger, async () => {
  const config = loadConnectorConfig('mt4');
  const app = await startConnectorMt4({ config, logger });
  logger.info({ health_port: app.healthPort, broker: config.BROKER_SIM_GRPC_URL }, 'connector-mt4 ready');
  return { graceMs: config.SHUTDOWN_GRACE_MS, stop: (graceMs) => app.close(graceMs) };
});
