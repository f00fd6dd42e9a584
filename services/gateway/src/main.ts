import '@mtx/shared/instrumentation';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { createGatewayService } from './app';
import { loadGatewayConfig } from './config';
import { connectGatewayDependencies } from './dependencies';

const logger = createLogger('gateway');

runService(logger, async () => {
  const config = loadGatewayConfig();
  const connected = await connectGatewayDependencies(config, { logger });
  const app = await createGatewayService(connected.dependencies);
  return {
    app,
    graceMs: config.SHUTDOWN_GRACE_MS,
    operations: { port: config.METRICS_PORT, readiness: connected.dependencies.readiness },
    onStarted: () => logger.info({ port: app.port }, 'gateway listening'),
    release: () => connected.close(),
  };
});
