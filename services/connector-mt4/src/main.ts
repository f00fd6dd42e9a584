import '@mtx/shared/instrumentation';
import { loadConnectorConfig } from '@mtx/connector-runtime/config';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { createConnectorMt4 } from './app';

const logger = createLogger('connector-mt4');

runService(logger, async () => {
  const config = loadConnectorConfig('mt4');
  const app = await createConnectorMt4({ config, logger });
  return {
    app,
    graceMs: config.SHUTDOWN_GRACE_MS,
    operations: { port: config.METRICS_PORT },
    onStarted: () => logger.info({ health_port: app.healthPort, broker: config.BROKER_SIM_GRPC_URL }, 'connector-mt4 ready'),
  };
});
