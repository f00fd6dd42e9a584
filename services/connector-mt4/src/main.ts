import '@mtx/shared/instrumentation';
import { loadConnectorConfig } from '@mtx/connector-runtime/config';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { connectNats } from '@mtx/shared/nats';
import { createConnectorMt4 } from './app';

const logger = createLogger('connector-mt4');

runService(logger, async () => {
  const config = loadConnectorConfig('mt4');
  const nats = await connectNats(config.NATS_URL, 'connector-mt4', logger);
  const app = createConnectorMt4({ config, logger, nats });
  return {
    app,
    graceMs: config.SHUTDOWN_GRACE_MS,
    operations: { port: config.METRICS_PORT },
    release: () => nats.drain().catch(() => undefined),
    onStarted: () => logger.info({ health_port: app.healthPort, terminal_port: app.terminalPort }, 'connector-mt4 ready'),
  };
});
