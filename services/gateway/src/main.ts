import '@mtx/shared/instrumentation';
import { handleShutdownSignals, runMain } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { buildGateway } from './app';
import { loadGatewayConfig } from './config';
import { connectGatewayDependencies } from './dependencies';

const logger = createLogger('gateway');

runMain(logger, async () => {
  const config = loadGatewayConfig();
  const connected = await connectGatewayDependencies(config, { logger });
  const app = await buildGateway(connected.dependencies);
  const idempotencySweep = setInterval(() => void connected.dependencies.idempotency.sweep().catch(() => undefined), 60_000);
  idempotencySweep.unref();
  await app.listen({ port: config.PORT, host: config.HOST });
  logger.info({ port: config.PORT }, 'gateway listening');
  handleShutdownSignals(
    logger,
    async () => {
      clearInterval(idempotencySweep);
      // Fastify stops accepting, answers 503 to new requests on kept-alive sockets, and waits for in-flight ones.
      await app.close();
      await connected.close();
    },
    config.SHUTDOWN_GRACE_MS,
  );
});
