import '@mtx/shared/instrumentation';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { createBrokerSimApp } from './app';
import { journalFileOf, loadBrokerSimConfig } from './config';

const logger = createLogger('broker-sim');

runService(logger, async () => {
  const config = loadBrokerSimConfig();
  const app = await createBrokerSimApp({ config, journalFile: journalFileOf(config), logger });
  const ports = await app.listen(config.GRPC_PORT, config.HTTP_PORT, config.HOST);
  logger.info({ grpc_port: ports.grpcPort, http_port: ports.httpPort, latency_ms: config.BROKER_SIM_LATENCY_MS }, 'broker-sim listening');
  return { graceMs: config.SHUTDOWN_GRACE_MS, stop: (graceMs) => app.close(graceMs) };
});
