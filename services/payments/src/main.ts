import '@mtx/shared/instrumentation';
import { systemClock } from '@mtx/shared/clock';
import { createServiceClient } from '@mtx/shared/grpc';
import type { WalletServiceDefinition } from '@mtx/shared/generated/proto/mtx/wallet/v1/WalletService';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import { connectNats } from '@mtx/shared/nats';
import { createPaymentsApp } from './app';
import { developmentPostbackSecret, loadPaymentsConfig } from './config';
import { grpcServices } from '@mtx/shared/grpc-services';
import { defaultIdleCollectionOptions, startIdleCollection } from './app/idle-collection';

const logger = createLogger('payments');

runService(logger, async () => {
  const config = loadPaymentsConfig();
  const mongo = await connectMongo(config.MONGODB_URL);
  // noEcho: the server would hand back its own top-up change announcements (every credit) to parse, whose caches it cleared already.
  const nats = await connectNats(config.NATS_URL, 'payments', logger, { noEcho: true });
  const wallet = createServiceClient<WalletServiceDefinition>(
    grpcServices.wallet.protoFile,
    grpcServices.wallet.serviceName,
    config.WALLET_GRPC_URL,
    config.WALLET_DEADLINE_MS,
  );
  const app = await createPaymentsApp({
    config,
    database: mongo.db(databaseName(config.MONGODB_DATABASE_PREFIX, 'payments')),
    clock: systemClock,
    logger,
    wallet,
    nats,
  });
  if (config.PAYMENTS_FAULT_CRASH_BEFORE_CREDIT)
    logger.warn({ prefix: config.PAYMENTS_FAULT_CRASH_BEFORE_CREDIT }, 'fault injection armed: crash before credit');
  if (config.POSTBACK_SECRET === developmentPostbackSecret)
    logger.warn('POSTBACK_SECRET is the development default; set your own outside a laptop');
  const idleCollection =
    config.PAYMENTS_IDLE_COLLECTION_GROWTH_MB > 0
      ? startIdleCollection(
          (report) =>
            logger.debug(
              {
                pause_ms: Math.round(report.pauseMs),
                heap_before_mb: Math.round(report.heapUsedBeforeBytes / 1_048_576),
                heap_after_mb: Math.round(report.heapUsedAfterBytes / 1_048_576),
              },
              'collected the heap while idle',
            ),
          { ...defaultIdleCollectionOptions, growthBytesMin: config.PAYMENTS_IDLE_COLLECTION_GROWTH_MB * 1_048_576 },
        )
      : undefined;
  return {
    app,
    graceMs: config.SHUTDOWN_GRACE_MS,
    operations: { port: config.METRICS_PORT },
    onStarted: () => logger.info({ port: app.port, provider_url: config.CRYPTO_SANDBOX_URL }, 'payments listening'),
    release: async () => {
      idleCollection?.stop();
      wallet.close();
      await nats.drain().catch(() => undefined);
      await mongo.close();
    },
  };
});
