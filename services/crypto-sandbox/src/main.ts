import '@mtx/shared/instrumentation';
import { systemClock } from '@mtx/shared/clock';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import { createSandboxApp, postbackUrlOf } from './app';
import { developmentPostbackSecret, loadSandboxConfig } from './config';

const logger = createLogger('crypto-sandbox');

runService(logger, async () => {
  const config = loadSandboxConfig();
  const mongo = await connectMongo(config.MONGODB_URL);
  const sandbox = await createSandboxApp({
    config,
    database: mongo.db(databaseName(config.MONGODB_DATABASE_PREFIX, 'crypto-sandbox')),
    clock: systemClock,
    logger,
  });
  if (config.POSTBACK_SECRET === developmentPostbackSecret)
    logger.warn('POSTBACK_SECRET is the development default; set your own outside a laptop');
  return {
    app: sandbox,
    graceMs: config.SHUTDOWN_GRACE_MS,
    operations: { port: config.METRICS_PORT },
    onStarted: () => {
      logger.info({ port: sandbox.port, postback_url: postbackUrlOf(config) }, 'crypto-sandbox listening');
      logger.info(
        { api_url: `http://127.0.0.1:${sandbox.port}/nowpayments/v1` },
        'a FAKE of NOWPayments is served under /nowpayments/v1: no real money moves through it',
      );
      logger.info(
        { btcpay_url: `http://127.0.0.1:${sandbox.port}/btcpay`, store_id: config.BTCPAY_STORE_ID },
        'a FAKE BTCPay Server (Greenfield API) is served under /btcpay: for development and tests, it moves no real money',
      );
    },
    release: () => mongo.close(),
  };
});
