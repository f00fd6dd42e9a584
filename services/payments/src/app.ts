import { CustomerEventPublisher, customerEventChannel } from '@mtx/shared/customer-events';
import type { Clock } from '@mtx/shared/clock';
import type { WalletServiceDefinition } from '@mtx/shared/generated/proto/mtx/wallet/v1/WalletService';
import { startGrpcServer, type GrpcServerHandle, type ServiceClient } from '@mtx/shared/grpc';
import type { ServiceApp } from '@mtx/shared/lifecycle';
import type { Logger } from '@mtx/shared/logger';
import type { Db } from '@mtx/shared/mongo';
import { announce, announcements, followAnnouncements, following } from '@mtx/shared/announcements';
import type { NatsConnection } from '@mtx/shared/nats';
import type { PaymentsConfig } from './config';
import { paymentsGrpcImplementation } from './handlers/grpc';
import type { PaymentProvider } from './providers/provider';
import { configuredProviders } from './providers/registry';
import { createPaymentsStore, ensurePaymentsIndexes } from './store/payments-store';
import { createTopups, type Topups } from './app/topups';
import { walletPortFromClient } from './clients/wallet';
import { PeriodicJob } from '@mtx/shared/periodic-job';
import { grpcServices } from '@mtx/shared/grpc-services';
import { observeCrediting } from './handlers/metrics';
import { createHooksServer } from './handlers/hooks-http';
import { JetStreamInbox } from './clients/inbox';
import { closeHttpWithin, listeningPort, startGrace } from '@mtx/shared/lifecycle';

export const paymentsGrpcBinding = grpcServices.payments;

export interface PaymentsAppOptions {
  config: PaymentsConfig;
  database: Db;
  clock: Clock;
  logger: Logger;
  wallet: ServiceClient<WalletServiceDefinition>;
  /** The postback inbox lives in JetStream; the broadcast of changes to other replicas' reads goes over it too. */
  nats: NatsConnection;
  /**
   * False: this replica neither broadcasts its changes to other replicas' read caches nor hears theirs, which
   * then reach it within PAYMENTS_PENDING_FRESH_MS (what a lost broadcast costs; tests measure it). Default true.
   */
  announceChanges?: boolean;
  /** Replaces the configured providers in tests of other provider behaviour; the first creates new top-ups. */
  providers?: PaymentProvider[];
  /** False leaves the periodic work to the caller (tests drive it on a manual clock); `start` still serves. */
  backgroundWork?: boolean;
}

export interface PaymentsApp extends ServiceApp {
  topups: Topups;
  /** The gRPC port it serves on, once started (GRPC_PORT 0 picks a free one). */
  readonly port: number;
  /** The port of its hook listener, once started (HOOKS_PORT 0 picks a free one). */
  readonly hooksPort: number;
}

/**
 * Builds payments (top-ups, provider, sweeps) without touching the store or NATS, so tests can run it in-process.
 * `start` prepares the postback inbox and the indexes, follows the change announcements, serves gRPC and the hook
 * listener, and runs the expiry sweep and the reconciliation poller on their intervals.
 */
export async function createPaymentsApp(options: PaymentsAppOptions): Promise<PaymentsApp> {
  const { config, database, clock, logger, nats } = options;
  // Lost, other replicas catch up within PAYMENTS_PENDING_FRESH_MS.
  const announceChanges = options.announceChanges !== false;
  const publishChanged = (customerId: string) => {
    if (announceChanges) void announce(nats, announcements.topupsChanged, { customerId });
  };
  const customerEvents = new CustomerEventPublisher(
    nats,
    customerEventChannel(config.MONGODB_DATABASE_PREFIX),
    logger,
    config.EVENT_ID_SECRET,
  );
  const store = createPaymentsStore(database);
  const inbox = new JetStreamInbox(nats, {
    deployment: config.MONGODB_DATABASE_PREFIX,
    replicas: config.PAYMENTS_INBOX_REPLICAS,
    retentionMs: config.PAYMENTS_INBOX_RETENTION_MS,
    redeliverAfterMs: config.PAYMENTS_INBOX_SWEEP_INTERVAL_MS,
    pendingMax: config.PAYMENTS_CREDIT_QUEUE_MAX,
    bytesMax: config.PAYMENTS_INBOX_BYTES_MAX,
    logger,
  });
  const configured = options.providers
    ? { providers: options.providers, defaultProvider: options.providers[0]!.name }
    : configuredProviders(config);
  const topups = createTopups({
    store,
    clock,
    logger,
    providers: new Map(configured.providers.map((provider) => [provider.name, provider])),
    defaultProvider: configured.defaultProvider,
    wallet: walletPortFromClient(options.wallet, config.WALLET_DEADLINE_MS),
    inbox,
    postbackToleranceMs: config.POSTBACK_TOLERANCE_MS,
    assetsCacheMs: config.PROVIDER_ASSETS_CACHE_MS,
    reconcileLookbackMs: config.RECONCILE_LOOKBACK_MS,
    crashBeforeCreditPrefix: config.PAYMENTS_FAULT_CRASH_BEFORE_CREDIT,
    pendingFreshMs: config.PAYMENTS_PENDING_FRESH_MS,
    publishChanged,
    publishEvent: (event) => customerEvents.publish(event),
    crediting: {
      batchMax: config.PAYMENTS_CREDIT_BATCH_MAX,
      inFlightMax: config.PAYMENTS_CREDIT_IN_FLIGHT_MAX,
      lingerMs: config.PAYMENTS_CREDIT_LINGER_MS,
      staleAfterMs: 3 * config.PAYMENTS_INBOX_SWEEP_INTERVAL_MS,
      retryAfterMs: config.PAYMENTS_INBOX_SWEEP_INTERVAL_MS,
    },
  });
  observeCrediting(topups.crediting);
  const jobs = [
    new PeriodicJob({
      name: 'expiry',
      intervalMs: config.EXPIRY_INTERVAL_MS,
      logger,
      work: () => topups.expireDue(config.EXPIRY_BATCH),
    }),
    new PeriodicJob({
      name: 'inbox-age',
      intervalMs: config.PAYMENTS_INBOX_SWEEP_INTERVAL_MS,
      logger,
      work: () => topups.crediting.check(),
    }),
    new PeriodicJob({
      name: 'reconciliation',
      intervalMs: config.RECONCILE_INTERVAL_MS,
      logger,
      work: () => topups.reconcileStep(config.RECONCILE_BATCH),
    }),
  ];

  const hooks = await createHooksServer(topups, logger);
  let server: GrpcServerHandle | undefined;
  let announcementFollower: { close(): void } | undefined;
  return {
    topups,
    get port() {
      return server?.port ?? 0;
    },
    get hooksPort() {
      return hooks.server.listening ? listeningPort(hooks.server) : 0;
    },
    async start() {
      await inbox.prepare();
      await ensurePaymentsIndexes(store);
      // Other replicas' changes keep this replica's pending top-ups current; while NATS is away, they are computed.
      if (announceChanges)
        announcementFollower = await followAnnouncements(
          nats,
          [following(announcements.topupsChanged, ({ customerId }) => topups.observeChanged(customerId))],
          [topups.pendingCache],
          logger,
        );
      server = await startGrpcServer(
        [{ ...grpcServices.payments, implementation: paymentsGrpcImplementation(topups, logger) }],
        `${config.GRPC_HOST}:${config.GRPC_PORT}`,
      );
      await hooks.listen({ port: config.HOOKS_PORT, host: config.HOOKS_HOST, backlog: config.HOOKS_LISTEN_BACKLOG });
      // The crediting worker is not background work a test drives by hand: an acknowledged postback is credited.
      if (config.PAYMENTS_CREDITING_ENABLED) await topups.crediting.start();
      if (options.backgroundWork !== false) {
        for (const job of jobs) job.start();
      }
    },
    async stop(graceMs) {
      const grace = startGrace(graceMs);
      await Promise.all([server?.close(graceMs), closeHttpWithin(hooks, graceMs)]);
      announcementFollower?.close();
      await grace.within(Promise.all(jobs.map((job) => job.stop())));
      // Not cut: it hands what it holds back to the inbox at once, and its batches in flight end at the wallet's deadline.
      await topups.crediting.stop();
      await customerEvents.flush(Math.min(grace.remainingMs, 5_000));
    },
  };
}
