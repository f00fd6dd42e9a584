import '@mtx/shared/instrumentation';
import { loadConnectorConfig } from '@mtx/connector-runtime/config';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { createConnectorMt5 } from './app';

const logger = createLogger('connector-mt5');

runService(logger, async () => {
  const config = loadConnectorConfig('mt5');
  const app = await createConnectorMt5({ config, logger });
  return {
    app,
    graceMs: config.SHUTDOWN_GRACE_MS,
    operations: { port: config.METRICS_PORT },
    onStarted: () => logger.info({ health_port: app.healthPort, broker: config.BROKER_SIM_GRPC_URL }, 'connector-mt5 ready'),
  };
});
