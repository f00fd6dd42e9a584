import { walletCreditedSubject } from '@mtx/shared/announcements';
import { Type, type Static } from '@sinclair/typebox';
import { eventIdSecretProperty } from '@mtx/shared/customer-events';
import { defaultServerPlans, parseServerPlans } from '@mtx/shared/server-plans';
import { baseConfigProperties, metricsPortProperty, grpcAddressDefaults, loadConfig } from '@mtx/shared/config';

export const BillingConfigSchema = Type.Object({
  ...baseConfigProperties,
  /** The operations listener: metrics and readiness detail, never published by the ingress (see metricsPortProperty). */
  METRICS_PORT: metricsPortProperty(9467),
  /** The key of customer events' ids (see eventIdSecretProperty); the same on every publishing service. Never logged. */
  EVENT_ID_SECRET: eventIdSecretProperty,
  GRPC_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 50053 }),
  GRPC_HOST: Type.String({ default: '0.0.0.0' }),
  WALLET_GRPC_URL: Type.String({ default: grpcAddressDefaults.WALLET_GRPC_URL }),
  EXECUTION_GRPC_URL: Type.String({ default: grpcAddressDefaults.EXECUTION_GRPC_URL }),
  /** Deadline of each call to the wallet (debits, balance reads). */
  WALLET_DEADLINE_MS: Type.Integer({ minimum: 100, default: 3_000 }),
  /** Deadline of each SetAccountBillingStatus call; failures are retried by the scheduler. */
  EXECUTION_DEADLINE_MS: Type.Integer({ minimum: 100, default: 3_000 }),
  SEAT_PRICE_EUR_CENTS: Type.Integer({ minimum: 1, maximum: 100_000, default: 1_200 }),
  /** JSON object plan → monthly price in EUR cents. */
  SERVER_PLANS: Type.String({ default: defaultServerPlans }),
  /** When false, the subscription's `wallet` summary is null and no balance is read. */
  WALLET_FEATURE_ENABLED: Type.Boolean({ default: true }),
  GRACE_PERIOD_HOURS: Type.Integer({ minimum: 0, maximum: 24 * 31, default: 72 }),
  UPCOMING_HORIZON_DAYS: Type.Integer({ minimum: 1, maximum: 366, default: 30 }),
  /** Whether this replica runs the periodic scheduler (it always answers RunSchedulerTick). */
  SCHEDULER_ENABLED: Type.Boolean({ default: true }),
  SCHEDULER_INTERVAL_MS: Type.Integer({ minimum: 100, default: 30_000 }),
  /** Length of one lease slot: one replica works per slot, and stops before the slot ends. */
  SCHEDULER_LEASE_MS: Type.Integer({ minimum: 1_000, default: 60_000 }),
  /**
   * Due seats (and as many due servers) taken per batch. A large batch keeps a customer's renewals in one batch
   * and one write, and on FerretDB, which scans for the due query, spreads each scan over many charges. Bounds the
   * scheduler's memory (about 1 KB per item).
   */
  SCHEDULER_BATCH_SIZE: Type.Integer({ minimum: 1, maximum: 50_000, default: 12_800 }),
  /**
   * Customers processed in parallel inside one batch. A customer's debits run one after another (the wallet
   * serialises each wallet's movements anyway), so this is how many debits are in flight: at 10-15 ms a debit
   * when busy, 128 keep the wallet's group commit fed at 1,000 charges/s (32 left billing waiting on the
   * wallet with a core idle). Store commands stay bounded by the driver pool, store writes by the write gate.
   */
  SCHEDULER_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 256, default: 128 }),
  /**
   * Store write commands the scheduler keeps in flight at once (grouped seat renewals, revision bumps). FerretDB
   * on SQLite runs one write at a time per database and makes the others sleep and retry, so a few in flight
   * write faster than many; at most 4, because each grouped command also holds several of FerretDB's connections.
   */
  SCHEDULER_WRITES_IN_FLIGHT: Type.Integer({ minimum: 1, maximum: 4, default: 2 }),
  /** A past-due item is retried at least this often even if no credit event arrives. */
  PAST_DUE_RETRY_INTERVAL_MS: Type.Integer({ minimum: 1_000, default: 60 * 60_000 }),
  /** A suspended item is retried this often without a credit event. */
  SUSPENDED_RETRY_INTERVAL_MS: Type.Integer({ minimum: 1_000, default: 6 * 60 * 60_000 }),
  /** Wait after a failure that may be transient (wallet or execution down). */
  FAILURE_BACKOFF_MS: Type.Integer({ minimum: 100, default: 60_000 }),
  /** A purchase whose debit outcome is unknown (wallet timed out) is resolved by the scheduler after this. */
  PENDING_PURCHASE_RECOVERY_MS: Type.Integer({ minimum: 1_000, default: 5 * 60_000 }),
  WALLET_CREDITED_SUBJECT: Type.String({ default: walletCreditedSubject }),
  /** NATS queue group shared by the replicas of one deployment; defaults to `billing.<database prefix>`. */
  BILLING_QUEUE_GROUP: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.-]+$' })),
  /** Customers whose seats and servers a replica keeps in memory (validated against a revision on each read). */
  VIEW_CACHE_CUSTOMERS: Type.Integer({ minimum: 0, default: 10_000 }),
  /**
   * How long the reaction to a credit (which past-due items to retry now) trusts a cached view without re-reading the
   * customer's revision (each customer's window is between three quarters of it and all of it, so views loaded
   * together are not reloaded together); reads and decisions always check it. Every replica announces its revision
   * changes over NATS, so this bounds only a lost announcement, after which the scheduler's pass retries. 0 (or no
   * NATS): every credit reads the revision. Under a stream of top-ups every customer is credited again and again, and
   * a 1 s window cost a store read per customer per second (a fifth of a read per postback at 1,000/s over 200
   * customers, and a FerretDB read costs about four document inserts); a missed retry waits at most for the
   * scheduler's pass (SCHEDULER_INTERVAL_MS).
   */
  VIEW_FRESH_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 10_000 }),
  /** Calls waiting per customer on one replica before new ones are refused with `unavailable`. */
  CUSTOMER_QUEUE_LIMIT: Type.Integer({ minimum: 1, default: 200 }),
  /**
   * Fault injection for the fault suite: a debit for a customer whose id starts with this prefix kills the process
   * (exit 137) right after the wallet applied it, before billing records what was bought. Empty (the default) is off.
   */
  BILLING_FAULT_CRASH_AFTER_DEBIT: Type.String({ default: '' }),
});

export type BillingConfig = Static<typeof BillingConfigSchema>;

export function loadBillingConfig(environment: NodeJS.ProcessEnv = process.env): BillingConfig {
  const config = loadConfig(BillingConfigSchema, environment);
  parseServerPlans(config.SERVER_PLANS);
  return config;
}
