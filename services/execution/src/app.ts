import type { Clock } from '@mtx/shared/clock';
import { systemClock } from '@mtx/shared/clock';
import type { BillingServiceDefinition } from '@mtx/shared/generated/proto/mtx/billing/v1/BillingService';
import { startGrpcServer, type GrpcServerHandle, type ServiceClient } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import type { Db } from '@mtx/shared/mongo';
import type { NatsConnection } from '@mtx/shared/nats';
import type { ExecutionConfig } from './config';
import { developmentAccountSecretKey } from './config';
import { AccountRegistry } from './app/accounts';
import { BatchService } from './app/batches';
import { createSecretBox, parseSecretKey } from './domain/secrets';
import { TerminalClient } from './clients/terminals';
import { createExecutionGrpcImplementation } from './handlers/grpc';
import { createExecutionStore, type ExecutionStore } from './store/execution-store';
import { PeriodicJob } from '@mtx/shared/periodic-job';
import { grpcServices } from '@mtx/shared/grpc-services';
import { connectService } from '@mtx/shared/grpc-services';

export interface ExecutionApp {
  store: ExecutionStore;
  registry: AccountRegistry;
  batches: BatchService;
  terminals: TerminalClient;
  /** Serves gRPC on the port (0 picks a free one) and starts the reconciliation timer. */
  listen(port: number, host?: string): Promise<number>;
  close(graceMs?: number): Promise<void>;
}

/** Builds the execution service over a database and a NATS connection, without listening. */
export function createExecutionApp(options: {
  config: ExecutionConfig;
  database: Db;
  nats: NatsConnection;
  logger: Logger;
  clock?: Clock;
  billing?: ServiceClient<BillingServiceDefinition>;
}): ExecutionApp {
  const { config, database, nats, logger } = options;
  const clock = options.clock ?? systemClock;
  if (config.ACCOUNT_SECRET_KEY === developmentAccountSecretKey)
    logger.warn('ACCOUNT_SECRET_KEY is the development key; set your own outside development');
  const store = createExecutionStore(database);
  const terminals = new TerminalClient(nats, config.TERMINAL_SUBJECT_ROOT, logger);
  const billing =
    options.billing ?? (config.SEATS_REQUIRED ? connectService('billing', config.BILLING_GRPC_URL, config.GRPC_DEADLINE_MS) : undefined);
  const registry = new AccountRegistry({
    store,
    clock,
    logger,
    secrets: createSecretBox(parseSecretKey(config.ACCOUNT_SECRET_KEY)),
    terminals,
    billing,
    seatsRequired: config.SEATS_REQUIRED,
    cacheMs: config.ACCOUNT_CACHE_MS,
    pingDeadlineMs: config.PING_DEADLINE_MS,
    billingDeadlineMs: config.GRPC_DEADLINE_MS,
  });
  const batches = new BatchService({ store, registry, terminals, clock, logger, config });
  let server: GrpcServerHandle | undefined;
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
    async listen(port, host = '0.0.0.0') {
      terminals.start();
      server = await startGrpcServer(
        [
          {
            ...grpcServices.execution,
            implementation: createExecutionGrpcImplementation(registry, batches, logger),
          },
        ],
        `${host}:${port}`,
      );
      if (config.RECONCILE_INTERVAL_MS > 0) {
        reconciliation.start();
      }
      return server.port;
    },
    async close(graceMs = 5_000) {
      const reconciliationStopped = reconciliation.stop();
      // In-flight batches finish (their deadline is shorter than the grace) before the inbox goes away.
      await server?.close(graceMs);
      await reconciliationStopped;
      await terminals.close();
      if (!options.billing) billing?.close();
    },
  };
}
