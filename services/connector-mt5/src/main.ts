import '@mtx/shared/instrumentation';
import { loadConnectorConfig } from '@mtx/connector-runtime/config';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { connectNats } from '@mtx/shared/nats';
import { createConnectorMt5 } from './app';

const logger = createLogger('connector-mt5');

runService(logger, async () => {
  const config = loadConnectorConfig('mt5');
  const nats = await connectNats(config.NATS_URL, 'connector-mt5', logger);
  const app = createConnectorMt5({ config, logger, nats });
  return {
    app,
    graceMs: config.SHUTDOWN_GRACE_MS,
    operations: { port: config.METRICS_PORT },
    release: () => nats.drain().catch(() => undefined),
    onStarted: () => logger.info({ health_port: app.healthPort, terminal_port: app.terminalPort }, 'connector-mt5 ready'),
  };
});
