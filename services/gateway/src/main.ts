import '@mtx/shared/instrumentation';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { buildGateway } from './app';
import { loadGatewayConfig } from './config';
import { connectGatewayDependencies } from './dependencies';
import { PeriodicJob } from '@mtx/shared/periodic-job';

const logger = createLogger('gateway');

runService(logger, async () => {
  const config = loadGatewayConfig();
  const connected = await connectGatewayDependencies(config, { logger });
  const app = await buildGateway(connected.dependencies);
  // Expiry is enforced on read; the sweep only bounds storage.
  const idempotencySweep = new PeriodicJob({
    name: 'idempotency sweep',
    intervalMs: 60_000,
    logger,
    work: () => connected.dependencies.idempotency.sweep(),
  });
  idempotencySweep.start();
  await app.listen({ port: config.PORT, host: config.HOST });
  logger.info({ port: config.PORT }, 'gateway listening');
  return {
    graceMs: config.SHUTDOWN_GRACE_MS,
    stop: async () => {
      await idempotencySweep.stop();
      // Fastify stops accepting, answers 503 to new requests on kept-alive sockets, and waits for in-flight ones.
      await app.close();
      await connected.close();
    },
  };
});
