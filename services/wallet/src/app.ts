import type { Clock } from '@mtx/shared/clock';
import type { Logger } from '@mtx/shared/logger';
import type { Db } from '@mtx/shared/mongo';
import { announce, announcements, followAnnouncements, following, walletCreditedSubject } from '@mtx/shared/announcements';
import { injectTraceHeaders, natsHeaders, publishBestEffort, type NatsConnection } from '@mtx/shared/nats';
import type { WalletConfig } from './config';
import { walletGrpcImplementation } from './handlers/grpc';
import { createLedger, type CreditedEvent, type Ledger, type MovedEvent } from './app/ledger';
import { createLedgerStore, ensureLedgerIndexes } from './store/ledger-store';
import { PeriodicJob } from '@mtx/shared/periodic-job';
import { grpcServices } from '@mtx/shared/grpc-services';
import { startGrpcServer, type GrpcServerHandle } from '@mtx/shared/grpc';
import { startGrace, type ServiceApp } from '@mtx/shared/lifecycle';

export { auditLedger, type AuditReport } from './audit';

export { walletCreditedSubject };

export const walletGrpcBinding = grpcServices.wallet;

export interface WalletAppOptions {
  config: WalletConfig;
  database: Db;
  clock: Clock;
  logger: Logger;
  nats?: NatsConnection;
  exit?: (code: number) => never;
  /** False leaves the periodic work to the caller (tests drive it on a manual clock); `start` still serves. */
  backgroundWork?: boolean;
}

export interface WalletApp extends ServiceApp {
  ledger: Ledger;
  /** The gRPC port it serves on, once started (GRPC_PORT 0 picks a free one). */
  readonly port: number;
}

/**
 * Builds the wallet (ledger, gRPC handlers, recovery) without touching the store or NATS, so tests can run it
 * in-process. `start` makes sure of the ledger's indexes, follows the movement announcements, serves gRPC and runs
 * the start-up recovery sweep in the background, then the periodic one.
 */
export function createWalletApp(options: WalletAppOptions): WalletApp {
  const { config, database, clock, logger, nats } = options;
  const store = createLedgerStore(database);
  const publishCredited = (event: CreditedEvent) => {
    // The credit stands; billing also retries on its own schedule, so a lost announcement only delays it.
    if (nats && !publishBestEffort(nats, walletCreditedSubject, JSON.stringify(event), injectTraceHeaders(natsHeaders()))) {
      logger.warn({ entry_id: event.entry_id }, 'could not announce a credit');
    }
  };
  // Lost, other replicas' reads catch up within WALLET_READ_FRESH_MS.
  const publishMoved = (event: MovedEvent) =>
    void announce(nats, announcements.walletMoved, {
      customerId: event.customer_id,
      sequence: event.sequence,
      balanceEurCents: event.balance_eur_cents,
      heldEurCents: event.held_eur_cents,
    });
  const ledger = createLedger({
    store,
    clock,
    logger,
    publishCredited,
    publishMoved,
    readFreshMs: config.WALLET_READ_FRESH_MS,
    queueMax: config.WALLET_QUEUE_MAX,
    headCacheMax: config.WALLET_HEAD_CACHE_MAX,
    recoveryBatch: config.WALLET_RECOVERY_BATCH,
    crashAfterLedgerWritePrefix: config.WALLET_FAULT_CRASH_AFTER_LEDGER_WRITE,
    ...(options.exit ? { exit: options.exit } : {}),
  });

  // The start-up sweep is thorough (a predecessor may have died mid-movement); the periodic passes are steps.
  const recovery = new PeriodicJob({
    name: 'ledger recovery',
    intervalMs: config.WALLET_RECOVERY_INTERVAL_MS,
    logger,
    initialWork: async () => {
      const result = await ledger.recoverAll();
      logger.info(result, 'start-up recovery sweep done');
    },
    work: () => ledger.recoverStep(),
  });

  let server: GrpcServerHandle | undefined;
  let announcementFollower: { close(): void } | undefined;
  return {
    ledger,
    get port() {
      return server?.port ?? 0;
    },
    async start() {
      await ensureLedgerIndexes(store);
      // Other replicas' movements keep this replica's read heads current; while NATS is away, reads go to the store.
      if (nats)
        announcementFollower = await followAnnouncements(
          nats,
          [following(announcements.walletMoved, (moved) => ledger.observeMoved(moved))],
          [ledger.readCache],
          logger,
        );
      server = await startGrpcServer(
        [{ ...grpcServices.wallet, implementation: walletGrpcImplementation(ledger, database, logger) }],
        `${config.GRPC_HOST}:${config.GRPC_PORT}`,
      );
      if (options.backgroundWork !== false) recovery.start();
    },
    async stop(graceMs) {
      const grace = startGrace(graceMs);
      await server?.close(grace.remainingMs);
      announcementFollower?.close();
      // A recovery pass cut short is finished by the next replica's start-up sweep.
      await grace.within(recovery.stop());
    },
  };
}
