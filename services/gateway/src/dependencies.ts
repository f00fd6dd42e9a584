import { systemClock, type Clock } from '@mtx/shared/clock';
import { checkGrpcHealth } from '@mtx/shared/grpc';
import { createLogger, type Logger } from '@mtx/shared/logger';
import { connectMongo, databaseName, pingMongo } from '@mtx/shared/mongo';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import { createObservableCounter, createObservableGauge, instruments, observeTogether } from '@mtx/shared/instruments';
import type { BackendClients, GatewayDependencies } from './context';
import type { SubscriptionBody } from './handlers/subscription-schemas';
import type { WalletAnswer } from './handlers/wallet-schemas';
import type { SerializedAnswer } from './handlers/serialized-answer';
import type { GatewayConfig } from './config';
import { AuthFailureLimiter } from './domain/auth-failures';
import { createAuthenticator, type Authenticator } from './app/authenticator';
import { createIdempotency } from './app/idempotency';
import { createRateLimiter } from './app/rate-limiter';
import { followAnnouncements } from '@mtx/shared/announcements';
import { FreshCache } from '@mtx/shared/fresh-cache';
import { gatewayFollowings } from './handlers/announcements';
import { createGatewayStore, ensureGatewayIndexes } from './store/gateway-store';
import { connectService } from '@mtx/shared/grpc-services';

/** The services behind the gateway, each a client typed by its proto. */
export const backendServices = ['wallet', 'payments', 'billing', 'execution', 'notifications'] as const;

export interface ConnectedGateway {
  dependencies: GatewayDependencies;
  close(): Promise<void>;
}

/**
 * How the read models answer, for the SRE: `hit` (from memory), `load` (composed from the backends), `joined`
 * (shared a load already in flight), plus invalidations and entries held. A hit ratio falling to zero while
 * traffic is normal means the announcements stopped (NATS down: the models are off) or churn outruns them.
 */
function observeReadModels(readModels: Record<string, FreshCache<unknown>>): void {
  const reads = createObservableCounter(instruments.gatewayReadModelReads);
  const invalidations = createObservableCounter(instruments.gatewayReadModelInvalidations);
  const entries = createObservableGauge(instruments.gatewayReadModelEntries);
  observeTogether(
    'gateway',
    (observer) => {
      for (const [model, readModel] of Object.entries(readModels)) {
        const { stats } = readModel;
        observer.observe(reads, stats.hits, { 'mtx.read_model': model, 'mtx.outcome': 'hit' });
        observer.observe(reads, stats.loads, { 'mtx.read_model': model, 'mtx.outcome': 'load' });
        observer.observe(reads, stats.joined, { 'mtx.read_model': model, 'mtx.outcome': 'joined' });
        observer.observe(invalidations, stats.invalidations, { 'mtx.read_model': model });
        observer.observe(entries, stats.size, { 'mtx.read_model': model });
      }
    },
    [reads, invalidations, entries],
  );
}

/**
 * A customer read steadily has its answer reloaded once half its window has passed, behind the reads, so none of
 * them waits for the backends' answer (billing's 500-seat subscription took 4–5 ms at p50 and was the slowest
 * reads' share of the tail); one read in a window of a customer read rarely still loads on its path.
 */
const readModelRefreshAheadShare = 0.5;

const natsStartupWaitMs = 2_000;
const natsRetryMs = 1_000;

/**
 * Connects to NATS in the background (retrying until it answers, or until closed) and then follows the
 * announcements; the read models stay off until then. `ready` settles once following (or once closed).
 */
function followAnnouncementsWhenConnected(
  url: string,
  readModels: Array<FreshCache<unknown>>,
  authenticator: Authenticator,
  logger: Logger,
): { ready: Promise<void>; close(): Promise<void> } {
  const caches = [...readModels, authenticator.cache];
  for (const cache of caches) cache.suspend();
  let closed = false;
  let connection: NatsConnection | undefined;
  let following: { close(): void } | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let wake: () => void = () => undefined;
  const ready = (async () => {
    for (let attempt = 1; !closed; attempt += 1) {
      try {
        connection = await connectNats(url, 'gateway', logger);
        break;
      } catch (error) {
        if (attempt === 1)
          logger.warn(
            { err: { message: (error as Error)?.message } },
            'no NATS connection yet: GET /v1/wallet is composed on every read until there is one',
          );
        await new Promise<void>((resolve) => {
          wake = resolve;
          retryTimer = setTimeout(resolve, natsRetryMs);
        });
      }
    }
    if (connection && !closed)
      following = await followAnnouncements(connection, gatewayFollowings(readModels, authenticator), caches, logger);
  })();
  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      wake();
      await ready.catch(() => undefined);
      following?.close();
      await connection?.drain().catch(() => undefined);
    },
  };
}

/** Connects the gateway's store and gRPC clients. Nothing listens yet. */
export async function connectGatewayDependencies(
  config: GatewayConfig,
  options: { logger?: Logger; clock?: Clock } = {},
): Promise<ConnectedGateway> {
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
    notifications: config.NOTIFICATIONS_GRPC_URL,
  };
  const clients = Object.fromEntries(
    backendServices.map((name) => [name, connectService(name, addresses[name], config.GRPC_DEADLINE_MS)]),
  ) as unknown as BackendClients;
  const readModels = {
    wallet: new FreshCache<SerializedAnswer<WalletAnswer>>({
      freshMs: config.WALLET_READ_FRESH_MS,
      entriesMax: config.READ_MODEL_ENTRIES_MAX,
      refreshAheadShare: readModelRefreshAheadShare,
    }),
    subscription: new FreshCache<SerializedAnswer<SubscriptionBody>>({
      freshMs: config.SUBSCRIPTION_READ_FRESH_MS,
      entriesMax: config.READ_MODEL_ENTRIES_MAX,
      refreshAheadShare: readModelRefreshAheadShare,
    }),
  };
  observeReadModels(readModels);
  const authenticator = createAuthenticator({ store, clock, cacheMs: config.API_KEY_CACHE_MS });
  createObservableCounter(instruments.gatewayAuthLookups).addCallback((observer) => observer.observe(authenticator.lookups));
  const announcements = followAnnouncementsWhenConnected(
    config.NATS_URL,
    Object.values(readModels) as Array<FreshCache<unknown>>,
    authenticator,
    logger,
  );
  // NATS only feeds the read models and key revocations (bounded by API_KEY_CACHE_MS without it), so the gateway serves without it (every read composed) rather than wait.
  await Promise.race([announcements.ready, new Promise((resolve) => setTimeout(resolve, natsStartupWaitMs).unref())]);
  const dependencies: GatewayDependencies = {
    config,
    logger,
    clock,
    store,
    clients,
    authenticator,
    authFailures: new AuthFailureLimiter({
      clock,
      failuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
      exemptAddresses: config.AUTH_FAILURES_EXEMPT.split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    }),
    rateLimiter: createRateLimiter({ store, clock, leaseMs: config.RATE_LIMIT_LEASE_MS }),
    idempotency: createIdempotency({ store, clock, ttlMs: config.IDEMPOTENCY_TTL_MS, leaseMs: config.IDEMPOTENCY_LEASE_MS }),
    readModels,
    readiness: async () => {
      const entries = await Promise.all([
        pingMongo(database).then((ok) => ['store', ok] as const),
        ...(Object.keys(addresses) as Array<keyof BackendClients>).map((name) =>
          checkGrpcHealth(addresses[name], 1_000).then((ok) => [name, ok] as const),
        ),
      ]);
      return Object.fromEntries(entries);
    },
  };
  return {
    dependencies,
    async close() {
      for (const client of Object.values(clients)) client.close();
      await Promise.all([mongo.close(), announcements.close()]);
    },
  };
}
