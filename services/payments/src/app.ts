import { CustomerEventPublisher, customerEventChannel } from '@mtx/shared/customer-events';
import type { Clock } from '@mtx/shared/clock';
import type { WalletServiceDefinition } from '@mtx/shared/generated/proto/mtx/wallet/v1/WalletService';
import { startGrpcServer, type GrpcServerHandle, type ServiceClient } from '@mtx/shared/grpc';
import type { ServiceApp } from '@mtx/shared/lifecycle';
import type { Logger } from '@mtx/shared/logger';
import type { Db } from '@mtx/shared/mongo';
import { announcementSubjects, publishBestEffort, type NatsConnection } from '@mtx/shared/nats';
import type { PaymentsConfig } from './config';
import { paymentsGrpcImplementation } from './handlers/grpc';
import type { PaymentProvider } from './providers/provider';
import { createSandboxProvider } from './providers/sandbox';
import { createPaymentsStore, ensurePaymentsIndexes } from './store/payments-store';
import { createTopups, type Topups } from './app/topups';
import { walletPortFromClient } from './clients/wallet';
import { PeriodicJob } from '@mtx/shared/periodic-job';
import { grpcServices } from '@mtx/shared/grpc-services';
import { observeCrediting } from './handlers/metrics';
import { createHooksServer } from './handlers/hooks-http';
import { listeningPort } from '@mtx/shared/lifecycle';

export const paymentsGrpcBinding = grpcServices.payments;
/** NATS subject every payments replica hears (no queue group): a customer's top-ups changed, for the read caches. */
export const topupsChangedSubject = announcementSubjects.topupsChanged;

export interface PaymentsAppOptions {
  config: PaymentsConfig;
  database: Db;
  clock: Clock;
  logger: Logger;
  wallet: ServiceClient<WalletServiceDefinition>;
  /** Optional: without it, other replicas' changes reach this one's reads within PAYMENTS_PENDING_FRESH_MS. */
  nats?: NatsConnection;
  /** Replaces the configured providers (the sandbox) in tests of other provider behaviour. */
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
 * Builds payments (top-ups, provider, sweeps) without listening, so tests can run it in-process. `start` serves
 * gRPC and runs the expiry sweep and the reconciliation poller on their intervals.
 */
export async function createPaymentsApp(options: PaymentsAppOptions): Promise<PaymentsApp> {
  const { config, database, clock, logger, nats } = options;
  // Lost, other replicas catch up within PAYMENTS_PENDING_FRESH_MS.
  const publishChanged = (customerId: string) => void publishBestEffort(nats, topupsChangedSubject, customerId);
  const customerEvents = nats ? new CustomerEventPublisher(nats, customerEventChannel(config.MONGODB_DATABASE_PREFIX), logger) : undefined;
  const store = createPaymentsStore(database);
  await ensurePaymentsIndexes(store);
  const providerList = options.providers ?? [
    createSandboxProvider({
      baseUrl: config.CRYPTO_SANDBOX_URL,
      apiKey: config.SANDBOX_API_KEY,
      postbackSecret: config.POSTBACK_SECRET,
      timeoutMs: config.PROVIDER_TIMEOUT_MS,
    }),
  ];
  const topups = createTopups({
    store,
    clock,
    logger,
    providers: new Map(providerList.map((provider) => [provider.name, provider])),
    defaultProvider: providerList[0]!.name,
    wallet: walletPortFromClient(options.wallet, config.WALLET_DEADLINE_MS),
    postbackToleranceMs: config.POSTBACK_TOLERANCE_MS,
    assetsCacheMs: config.PROVIDER_ASSETS_CACHE_MS,
    reconcileLookbackMs: config.RECONCILE_LOOKBACK_MS,
    crashBeforeCreditPrefix: config.PAYMENTS_FAULT_CRASH_BEFORE_CREDIT,
    pendingFreshMs: config.PAYMENTS_PENDING_FRESH_MS,
    publishChanged,
    publishEvent: (event) => customerEvents?.publish(event),
    crediting: {
      queueMax: config.PAYMENTS_CREDIT_QUEUE_MAX,
      batchMax: config.PAYMENTS_CREDIT_BATCH_MAX,
      inFlightMax: config.PAYMENTS_CREDIT_IN_FLIGHT_MAX,
      sweepAgeMs: config.PAYMENTS_INBOX_SWEEP_AGE_MS,
      sweepBatchMax: config.PAYMENTS_INBOX_SWEEP_BATCH,
    },
  });
  observeCrediting(topups.crediting);
  const decoder = new TextDecoder();
  const changedSubscription = nats?.subscribe(topupsChangedSubject, {
    callback: (error, message) => {
      if (!error) topups.observeChanged(decoder.decode(message.data));
    },
  });

  const jobs = [
    new PeriodicJob({
      name: 'expiry',
      intervalMs: config.EXPIRY_INTERVAL_MS,
      logger,
      work: () => topups.expireDue(config.EXPIRY_BATCH),
    }),
    new PeriodicJob({
      name: 'inbox-sweep',
      intervalMs: config.PAYMENTS_INBOX_SWEEP_INTERVAL_MS,
      logger,
      // A replica that starts after a crash finishes what its predecessor recorded but did not credit.
      initialWork: () => topups.crediting.sweep(),
      work: () => topups.crediting.sweep(),
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
  return {
    topups,
    get port() {
      return server?.port ?? 0;
    },
    get hooksPort() {
      return hooks.server.listening ? listeningPort(hooks.server) : 0;
    },
    async start() {
      server = await startGrpcServer(
        [{ ...grpcServices.payments, implementation: paymentsGrpcImplementation(topups, logger) }],
        `${config.GRPC_HOST}:${config.GRPC_PORT}`,
      );
      await hooks.listen({ port: config.HOOKS_PORT, host: config.HOOKS_HOST });
      if (options.backgroundWork !== false) {
        for (const job of jobs) job.start();
      }
    },
    async stop(graceMs) {
      await Promise.all([server?.close(graceMs), hooks.close()]);
      changedSubscription?.unsubscribe();
      await Promise.all(jobs.map((job) => job.stop()));
      await topups.crediting.stop();
      await customerEvents?.flush(Math.min(graceMs, 5_000));
    },
  };
}
