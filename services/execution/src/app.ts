import { CustomerEventPublisher, customerEventChannel } from '@mtx/shared/customer-events';
import type { Clock } from '@mtx/shared/clock';
import { systemClock } from '@mtx/shared/clock';
import type { BillingServiceDefinition } from '@mtx/shared/generated/proto/mtx/billing/v1/BillingService';
import { startGrpcServer, type GrpcServerHandle, type ServiceClient } from '@mtx/shared/grpc';
import { startGrace, type ServiceApp } from '@mtx/shared/lifecycle';
import type { Logger } from '@mtx/shared/logger';
import type { Db } from '@mtx/shared/mongo';
import { announce, announcements, followAnnouncements, following } from '@mtx/shared/announcements';
import type { NatsConnection } from '@mtx/shared/nats';
import type { ExecutionConfig } from './config';
import { developmentAccountSecretKey } from './config';
import { AccountRegistry } from './app/accounts';
import { AccountTerminals, type TerminalRegistryPort } from './app/account-terminals';
import { developmentHostSealKey, createHostSeal } from '@mtx/shared/connector/terminal-host';
import { TerminalHostClient } from './clients/terminal-hosts';
import { TerminalRegistryWriter } from './clients/terminal-registry';
import { BatchService } from './app/batches';
import { HistoryReader } from './app/history';
import { Portfolio } from './app/portfolio';
import { AccountSettingsService } from './app/account-settings';
import { createSecretBox, parseSecretKey } from './domain/secrets';
import { TerminalClient } from './clients/terminals';
import { createExecutionGrpcImplementation } from './handlers/grpc';
import { createExecutionStore, type ExecutionStore } from './store/execution-store';
import { PeriodicJob } from '@mtx/shared/periodic-job';
import { grpcServices } from '@mtx/shared/grpc-services';

/** `start` serves gRPC on HOST:GRPC_PORT (0 picks a free port) and starts the reconciliation timer. */
export interface ExecutionApp extends ServiceApp {
  store: ExecutionStore;
  registry: AccountRegistry;
  batches: BatchService;
  terminals: TerminalClient;
  /** The gRPC port it serves on, once started. */
  readonly port: number;
}

/**
 * Builds the execution service over a database, a NATS connection and a billing client, touching none of them:
 * `start` makes sure of the stores and streams, follows account changes and serves.
 */
export function createExecutionApp(options: {
  config: ExecutionConfig;
  database: Db;
  nats: NatsConnection;
  logger: Logger;
  clock?: Clock;
  /** Seat checks (SEATS_REQUIRED) and billing status go through it; the caller opened it and closes it. */
  billing?: ServiceClient<BillingServiceDefinition>;
}): ExecutionApp {
  const { config, database, nats, logger } = options;
  const clock = options.clock ?? systemClock;
  if (config.ACCOUNT_SECRET_KEY === developmentAccountSecretKey)
    logger.warn('ACCOUNT_SECRET_KEY is the development key; set your own outside development');
  if (config.TERMINAL_HOST_SEAL_KEY === developmentHostSealKey)
    logger.warn('TERMINAL_HOST_SEAL_KEY is the development key; set your own (on execution and the terminal hosts) outside development');
  const store = createExecutionStore(database);
  const terminals = new TerminalClient(nats, config.TERMINAL_SUBJECT_ROOT, logger);
  const { billing } = options;
  if (config.SEATS_REQUIRED && !billing) throw new Error('SEATS_REQUIRED needs a billing client');
  // The registry bucket is opened in start(); nothing connects or disconnects an account before the server serves.
  let registryWriter: TerminalRegistryWriter | undefined;
  const openedRegistry = (): TerminalRegistryWriter => {
    if (!registryWriter) throw new Error('the terminal registry is not open (execution not started)');
    return registryWriter;
  };
  const terminalRegistry: TerminalRegistryPort = {
    put: (entry) => openedRegistry().put(entry),
    delete: (entry) => openedRegistry().delete(entry),
  };
  const accountTerminals = new AccountTerminals({
    hosts: new TerminalHostClient(nats, config.TERMINAL_SUBJECT_ROOT),
    registry: terminalRegistry,
    seal: createHostSeal(config.TERMINAL_HOST_SEAL_KEY),
    logger,
    startDeadlineMs: config.TERMINAL_START_DEADLINE_MS,
    askDeadlineMs: config.PING_DEADLINE_MS,
  });
  const registry = new AccountRegistry({
    store,
    clock,
    logger,
    secrets: createSecretBox(parseSecretKey(config.ACCOUNT_SECRET_KEY)),
    terminals: accountTerminals,
    billing,
    seatsRequired: config.SEATS_REQUIRED,
    cacheMs: config.ACCOUNT_CACHE_MS,
    // Lost, another replica trusts its cached account until ACCOUNT_CACHE_MS ends.
    announceChange: (accountId) => void announce(nats, announcements.accountChanged, { accountId }),
    billingDeadlineMs: config.GRPC_DEADLINE_MS,
  });
  const customerEvents = new CustomerEventPublisher(
    nats,
    customerEventChannel(config.MONGODB_DATABASE_PREFIX),
    logger,
    config.EVENT_ID_SECRET,
  );
  const batches = new BatchService({
    store,
    registry,
    terminals,
    clock,
    logger,
    config,
    publishEvent: (event) => customerEvents.publish(event),
  });
  const portfolio = new Portfolio({ registry, terminals, clock, readDeadlineMs: config.READ_DEADLINE_MS });
  const history = new HistoryReader({ registry, terminals, clock, readDeadlineMs: config.READ_DEADLINE_MS });
  const settings = new AccountSettingsService({ store, registry, clock, logger });
  let server: GrpcServerHandle | undefined;
  let accountChanges: { close(): void } | undefined;
  const reconciliation = new PeriodicJob({
    name: 'reconciliation',
    intervalMs: config.RECONCILE_INTERVAL_MS,
    logger,
    work: () => batches.reconcile(),
  });

  return {
    store,
    registry,
    batches,
    terminals,
    get port() {
      return server?.port ?? 0;
    },
    async start() {
      terminals.start();
      registryWriter = await TerminalRegistryWriter.open(nats, {
        bucket: config.TERMINAL_REGISTRY_BUCKET,
        replicas: config.TERMINAL_REGISTRY_REPLICAS,
      });
      // Until the server has the subscription, a change could go unheard: nothing is cached from before it.
      accountChanges = await followAnnouncements(
        nats,
        [following(announcements.accountChanged, ({ accountId }) => registry.observeChange(accountId))],
        [registry.cache],
        logger,
      );
      await batches.prepare();
      server = await startGrpcServer(
        [
          {
            ...grpcServices.execution,
            implementation: createExecutionGrpcImplementation({ registry, batches, portfolio, history, settings }, logger),
          },
        ],
        `${config.HOST}:${config.GRPC_PORT}`,
      );
      if (config.RECONCILE_INTERVAL_MS > 0) {
        reconciliation.start();
      }
    },
    async stop(graceMs) {
      const grace = startGrace(graceMs);
      const reconciliationStopped = reconciliation.stop();
      // In-flight batches finish (their deadline is shorter than the grace) before the inbox goes away.
      await server?.close(grace.remainingMs);
      // Answered batches' outcomes reach the store before it goes away (else recovery would redo them).
      await grace.within(batches.drain());
      await grace.within(reconciliationStopped);
      accountChanges?.close();
      await grace.within(terminals.close());
      await customerEvents.flush(Math.min(grace.remainingMs, 5_000));
    },
  };
}
