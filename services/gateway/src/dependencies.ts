import { systemClock, type Clock } from '@mtx/shared/clock';
import { checkGrpcHealth, createUnaryClient } from '@mtx/shared/grpc';
import { createLogger, type Logger } from '@mtx/shared/logger';
import { connectMongo, databaseName, pingMongo } from '@mtx/shared/mongo';
import { connectNats } from '@mtx/shared/nats';
import type { BackendClients, GatewayDependencies } from './app';
import type { WalletAnswer } from './handlers/wallet';
import type { GatewayConfig } from './config';
import { createAuthenticator } from './domain/authenticator';
import { createIdempotency } from './domain/idempotency';
import { createRateLimiter } from './domain/rate-limiter';
import { ReadModel } from './domain/read-model';
import { followAnnouncements } from './handlers/announcements';
import { createGatewayStore, ensureGatewayIndexes } from './store/gateway-store';

export const backendProtos = {
  wallet: { file: 'wallet/v1/wallet.proto', service: 'mtx.wallet.v1.WalletService', name: 'WalletService' },
  payments: { file: 'payments/v1/payments.proto', service: 'mtx.payments.v1.PaymentsService', name: 'PaymentsService' },
  billing: { file: 'billing/v1/billing.proto', service: 'mtx.billing.v1.BillingService', name: 'BillingService' },
  execution: { file: 'execution/v1/execution.proto', service: 'mtx.execution.v1.ExecutionService', name: 'ExecutionService' },
} as const;

export interface ConnectedGateway {
  dependencies: GatewayDependencies;
  close(): Promise<void>;
}

/** Connects the gateway's store and gRPC clients. Nothing listens yet. */
export async function connectGatewayDependencies(config: GatewayConfig, options: { logger?: Logger; clock?: Clock } = {}): Promise<ConnectedGateway> {
  const logger = options.logger ?? createLogger('gateway');
  const clock = options.clock ?? systemClock;
  const mongo = await connectMongo(config.MONGODB_URL);
  const database = mongo.db(databaseName(config.MONGODB_DATABASE_PREFIX, 'gateway'));
  const store = createGatewayStore(database);
  await ensureGatewayIndexes(store);
  const addresses: Record<keyof BackendClients, string> = {
    wallet: config.WALLET_GRPC_URL,
    payments: config.PAYMENTS_GRPC_URL,
    billing: config.BILLING_GRPC_URL,
    execution: config.EXECUTION_GRPC_URL,
  };
  const clients = Object.fromEntries(
    (Object.keys(backendProtos) as Array<keyof BackendClients>).map((name) => [name, createUnaryClient(backendProtos[name].file, backendProtos[name].service, addresses[name], config.GRPC_DEADLINE_MS)]),
  ) as unknown as BackendClients;
  const nats = await connectNats(config.NATS_URL, 'gateway', logger);
  const readModels = { wallet: new ReadModel<WalletAnswer>({ freshMs: config.WALLET_READ_FRESH_MS, entriesMax: config.READ_MODEL_ENTRIES_MAX }) };
  const announcements = await followAnnouncements(nats, Object.values(readModels) as Array<ReadModel<unknown>>, logger);
  const dependencies: GatewayDependencies = {
    config,
    logger,
    clock,
    store,
    clients,
    authenticator: createAuthenticator({ store, clock, cacheMs: config.API_KEY_CACHE_MS }),
    rateLimiter: createRateLimiter({ store, clock }),
    idempotency: createIdempotency({ store, clock, ttlMs: config.IDEMPOTENCY_TTL_MS }),
    readModels,
    readiness: async () => {
      const entries = await Promise.all([
        pingMongo(database).then((ok) => ['store', ok] as const),
        ...(Object.keys(addresses) as Array<keyof BackendClients>).map((name) => checkGrpcHealth(addresses[name], 1_000).then((ok) => [name, ok] as const)),
      ]);
      return Object.fromEntries(entries);
    },
  };
  return {
    dependencies,
    async close() {
      announcements.close();
      for (const client of Object.values(clients)) client.close();
      await Promise.all([mongo.close(), nats.drain().catch(() => undefined)]);
    },
  };
}
