import '@mtx/shared/instrumentation';
import { systemClock } from '@mtx/shared/clock';
import { runService } from '@mtx/shared/lifecycle';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import { connectNats } from '@mtx/shared/nats';
import { createBillingApp } from './app';
import { billingCollections } from './store/billing-store';
import { loadBillingConfig } from './config';
import { executionPortFromClient } from './clients/execution';
import { walletPortFromClient } from './clients/wallet';
import type { WalletPort } from './domain/ports';
import { connectService } from '@mtx/shared/grpc-services';

const logger = createLogger('billing');

/** The fault hook (BILLING_FAULT_CRASH_AFTER_DEBIT): dies between the wallet's debit and billing's own record of it. */
function withCrashAfterDebit(wallet: WalletPort, customerPrefix: string): WalletPort {
  if (!customerPrefix) return wallet;
  logger.warn({ prefix: customerPrefix }, 'fault injection armed: crash after debit');
  return {
    ...wallet,
    async debit(request) {
      const result = await wallet.debit(request);
      if (request.customer_id.startsWith(customerPrefix)) {
        logger.fatal({ entry_id: request.entry_id }, 'fault injection: crashing between the debit and its record');
        process.exit(137);
      }
      return result;
    },
    async debitMany(request) {
      const results = await wallet.debitMany(request);
      // As for debit: only a call that took (or had taken) money for some entry.
      if (
        request.customer_id.startsWith(customerPrefix) &&
        results.some((result) => result.outcome === 'applied' || result.outcome === 'replay')
      ) {
        logger.fatal(
          { entry_ids: request.entries.map((entry) => entry.entry_id) },
          'fault injection: crashing between the debit and its record',
        );
        process.exit(137);
      }
      return results;
    },
  };
}

runService(logger, async () => {
  const config = loadBillingConfig();
  const mongo = await connectMongo(config.MONGODB_URL);
  const database = mongo.db(databaseName(config.MONGODB_DATABASE_PREFIX, 'billing'));
  const walletClient = connectService('wallet', config.WALLET_GRPC_URL, config.WALLET_DEADLINE_MS);
  const executionClient = connectService('execution', config.EXECUTION_GRPC_URL, config.EXECUTION_DEADLINE_MS);
  const nats = await connectNats(config.NATS_URL, 'billing', logger);
  const collections = billingCollections(database);
  const app = createBillingApp({
    config,
    collections,
    clock: systemClock,
    logger,
    wallet: withCrashAfterDebit(walletPortFromClient(walletClient, config.WALLET_DEADLINE_MS), config.BILLING_FAULT_CRASH_AFTER_DEBIT),
    execution: executionPortFromClient(executionClient, config.EXECUTION_DEADLINE_MS),
    nats,
  });
  return {
    app,
    graceMs: config.SHUTDOWN_GRACE_MS,
    operations: { port: config.METRICS_PORT },
    onStarted: () => logger.info({ port: app.port, scheduler: config.SCHEDULER_ENABLED }, 'billing listening'),
    release: async () => {
      await nats.drain().catch(() => undefined);
      walletClient.close();
      executionClient.close();
      await mongo.close();
    },
  };
});
