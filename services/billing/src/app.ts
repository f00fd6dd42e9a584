import { CustomerEventPublisher, customerEventChannel, type CustomerEventDraft } from '@mtx/shared/customer-events';
import crypto from 'node:crypto';
import type { Clock } from '@mtx/shared/clock';
import { startGrpcServer, type GrpcServerHandle } from '@mtx/shared/grpc';
import { startGrace, type ServiceApp } from '@mtx/shared/lifecycle';
import type { Logger } from '@mtx/shared/logger';
import { announce, announcements, followAnnouncements, following } from '@mtx/shared/announcements';
import type { NatsConnection } from '@mtx/shared/nats';
import { parseServerPlans } from '@mtx/shared/server-plans';
import type { BillingConfig } from './config';
import { BillingService } from './app/billing';
import { KeyedSerialQueue } from './domain/keyed-queue';
import type { ExecutionPort, WalletPort } from './domain/ports';
import { RenewalEngine } from './app/renewal-engine';
import { Scheduler } from './app/scheduler';
import { subscribeCreditEvents } from './handlers/credit-events';
import { billingGrpcImplementation } from './handlers/grpc';
import { BillingStore, ensureBillingIndexes, type BillingCollections } from './store/billing-store';
import { grpcServices } from '@mtx/shared/grpc-services';

/** Every replica's view cache and every gateway's read model follow these announcements of a new revision. */
export function announceRevisions(nats: NatsConnection | undefined): (customerId: string, revision: string) => void {
  return (customerId, revision) => void announce(nats, announcements.billingChanged, { customerId, revision });
}

/** The renewal engine's policy, as configured (shared with tests that build the engine on their own). */
export function renewalPolicy(config: BillingConfig) {
  return {
    seatPriceEurCents: config.SEAT_PRICE_EUR_CENTS,
    gracePeriodHours: config.GRACE_PERIOD_HOURS,
    pastDueRetryIntervalMs: config.PAST_DUE_RETRY_INTERVAL_MS,
    suspendedRetryIntervalMs: config.SUSPENDED_RETRY_INTERVAL_MS,
    failureBackoffMs: config.FAILURE_BACKOFF_MS,
    pendingPurchaseRecoveryMs: config.PENDING_PURCHASE_RECOVERY_MS,
  };
}

export interface BillingAppDependencies {
  config: BillingConfig;
  /** Billing's collections (`billingCollections(database)`: one layout on every store); building sends the store nothing. */
  collections: BillingCollections;
  clock: Clock;
  logger: Logger;
  wallet: WalletPort;
  execution: ExecutionPort;
  /** Without it, past-due renewals are retried by the scheduler only. */
  nats?: NatsConnection;
  instanceId?: string;
}

/**
 * `start` moves a former sharded layout over and makes sure of the indexes, serves gRPC, subscribes to credit
 * events and revision announcements, and starts the scheduler (if enabled).
 */
export interface BillingApp extends ServiceApp {
  service: BillingService;
  scheduler: Scheduler;
  store: BillingStore;
  /** The gRPC port it serves on, once started (GRPC_PORT 0 picks a free one). */
  readonly port: number;
}

/** Builds billing without touching the store or NATS, listening or starting anything, so tests can run several on one store. */
export function createBillingApp(dependencies: BillingAppDependencies): BillingApp {
  const { config, clock, logger, collections } = dependencies;
  const store = new BillingStore(collections, {
    cacheCustomers: config.VIEW_CACHE_CUSTOMERS,
    schedulerWritesInFlight: config.SCHEDULER_WRITES_IN_FLIGHT,
    viewFreshMs: dependencies.nats ? config.VIEW_FRESH_MS : 0,
    onRevisionChanged: announceRevisions(dependencies.nats),
  });
  const queue = new KeyedSerialQueue(config.CUSTOMER_QUEUE_LIMIT);
  const customerEvents = dependencies.nats
    ? new CustomerEventPublisher(dependencies.nats, customerEventChannel(config.MONGODB_DATABASE_PREFIX), logger, config.EVENT_ID_SECRET)
    : undefined;
  const publishEvent = customerEvents ? (event: CustomerEventDraft) => customerEvents.publish(event) : undefined;
  const renewals = new RenewalEngine(
    store,
    dependencies.wallet,
    dependencies.execution,
    clock,
    renewalPolicy(config),
    logger,
    publishEvent,
  );
  const service = new BillingService(
    store,
    dependencies.wallet,
    renewals,
    queue,
    clock,
    {
      seatPriceEurCents: config.SEAT_PRICE_EUR_CENTS,
      serverPlans: parseServerPlans(config.SERVER_PLANS),
      walletFeatureEnabled: config.WALLET_FEATURE_ENABLED,
      horizonDays: config.UPCOMING_HORIZON_DAYS,
      pendingPurchaseRecoveryMs: config.PENDING_PURCHASE_RECOVERY_MS,
      ...(publishEvent ? { publishEvent } : {}),
    },
    logger,
  );
  const scheduler = new Scheduler(
    store,
    renewals,
    queue,
    clock,
    logger,
    {
      instanceId: dependencies.instanceId ?? `billing-${crypto.randomBytes(6).toString('hex')}`,
      leaseMs: config.SCHEDULER_LEASE_MS,
      batchSize: config.SCHEDULER_BATCH_SIZE,
      concurrency: config.SCHEDULER_CONCURRENCY,
    },
    publishEvent
      ? (customerId, balanceEurCents, reads) =>
          void service
            .checkLowBalance(customerId, balanceEurCents, reads)
            .catch((error: unknown) => logger.warn({ err: error, customer_id: customerId }, 'low-balance check failed'))
      : undefined,
  );
  let creditEvents: { close(): Promise<void> } | undefined;
  let revisionAnnouncements: { close(): void } | undefined;
  let server: GrpcServerHandle | undefined;
  let storePrepared = false;
  return {
    service,
    scheduler,
    store,
    get port() {
      return server?.port ?? 0;
    },
    async start() {
      if (!storePrepared) {
        await ensureBillingIndexes(collections);
        storePrepared = true;
      }
      server = await startGrpcServer(
        [{ ...grpcServices.billing, implementation: billingGrpcImplementation(service, scheduler, logger) }],
        `${config.GRPC_HOST}:${config.GRPC_PORT}`,
      );
      if (dependencies.nats && !revisionAnnouncements) {
        // Without a revision, the customer alone is enough to distrust its view.
        revisionAnnouncements = await followAnnouncements(
          dependencies.nats,
          [following(announcements.billingChanged, ({ customerId, revision }) => store.observeRevision(customerId, revision ?? null))],
          [store.viewCache],
          logger,
        );
      }
      if (dependencies.nats && !creditEvents) {
        creditEvents = subscribeCreditEvents(dependencies.nats, service, logger, {
          subject: config.WALLET_CREDITED_SUBJECT,
          queueGroup: config.BILLING_QUEUE_GROUP ?? `billing.${config.MONGODB_DATABASE_PREFIX.replace(/[^A-Za-z0-9_-]/g, '_')}`,
          concurrency: 16,
        });
      }
      if (config.SCHEDULER_ENABLED) scheduler.start(config.SCHEDULER_INTERVAL_MS);
    },
    async stop(graceMs) {
      const grace = startGrace(graceMs);
      // Stop taking calls first, then let the scheduler finish its batch and drain the credit events, within the grace.
      await server?.close(grace.remainingMs);
      await grace.within(scheduler.stop());
      await grace.within(creditEvents?.close());
      revisionAnnouncements?.close();
      await customerEvents?.flush(Math.min(grace.remainingMs, 5_000));
    },
  };
}
