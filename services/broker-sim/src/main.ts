import '@mtx/shared/instrumentation';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { createBrokerSimApp } from './app';
import { journalFileOf, loadBrokerSimConfig, terminalsFileOf } from './config';

const logger = createLogger('broker-sim');

runService(logger, async () => {
  const config = loadBrokerSimConfig();
  const app = createBrokerSimApp({ config, journalFile: journalFileOf(config), terminalsFile: terminalsFileOf(config), logger });
  return {
    app,
    graceMs: config.SHUTDOWN_GRACE_MS,
    operations: { port: config.METRICS_PORT },
    onStarted: () =>
      logger.info(
        { grpc_port: app.ports.grpcPort, http_port: app.ports.httpPort, latency_ms: config.BROKER_SIM_LATENCY_MS },
        'broker-sim listening',
      ),
  };
});
