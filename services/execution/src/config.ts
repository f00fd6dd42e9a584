import { Type, type Static } from '@sinclair/typebox';
import { eventIdSecretProperty } from '@mtx/shared/customer-events';
import { baseConfigProperties, metricsPortProperty, grpcAddressDefaults, loadConfig } from '@mtx/shared/config';
import { developmentHostSealKey } from '@mtx/shared/connector/terminal-host';
import { terminalRegistryBucketDefault } from '@mtx/shared/connector/terminal-registry';

/**
 * Development key for trading-account passwords (AES-256-GCM). Anything beyond a laptop must set
 * ACCOUNT_SECRET_KEY (32 random bytes, base64 or hex); the service warns at boot when this one is in use.
 */
export const developmentAccountSecretKey = 'ZGV2LW9ubHktYWNjb3VudC1zZWNyZXQta2V5LTMyYiE=';

export const ExecutionConfigSchema = Type.Object({
  ...baseConfigProperties,
  /** The operations listener: metrics and readiness detail, never published by the ingress (see metricsPortProperty). */
  METRICS_PORT: metricsPortProperty(9468),
  /** The key of customer events' ids (see eventIdSecretProperty); the same on every publishing service. Never logged. */
  EVENT_ID_SECRET: eventIdSecretProperty,
  GRPC_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 50054 }),
  HOST: Type.String({ default: '0.0.0.0' }),
  BILLING_GRPC_URL: Type.String({ default: grpcAddressDefaults.BILLING_GRPC_URL }),
  GRPC_DEADLINE_MS: Type.Integer({ minimum: 100, default: 5_000 }),
  /** How long a batch waits for the terminals; a leg without a reply by then is `unknown`. */
  EXECUTION_DEADLINE_MS: Type.Integer({ minimum: 100, default: 5_000 }),
  /** How long a read (positions, account state) waits for the terminals; an account without a reply is `unknown`. */
  READ_DEADLINE_MS: Type.Integer({ minimum: 50, default: 3_000 }),
  /** Deadline of the reachability ping (require_reachable, connecting an account). */
  PING_DEADLINE_MS: Type.Integer({ minimum: 50, default: 1_500 }),
  ACCOUNT_SECRET_KEY: Type.String({ default: developmentAccountSecretKey }),
  /** Connecting an account takes a billing seat (false until billing runs, and in tests of execution alone). */
  SEATS_REQUIRED: Type.Boolean({ default: true }),
  TERMINAL_SUBJECT_ROOT: Type.String({ default: 'term', pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$' }),
  /**
   * The key sealing the password and the EA token handed to a terminal host (docs/terminal-bridge.md, "Terminal
   * hosts"): 32 random bytes, base64 or hex, the same on execution and every host and nowhere else. The default is
   * the development key (the service warns at boot when it is in use). Never logged.
   */
  TERMINAL_HOST_SEAL_KEY: Type.String({ default: developmentHostSealKey }),
  /**
   * How long a host has to log a new account's terminal in and get its EA admitted by a connector; later, the account
   * is connected anyway (its EA keeps dialling). It stays well inside the gateway's deadline for connecting an account
   * (twice its GRPC_DEADLINE_MS, 10 s by default), which also covers the seat and the store.
   */
  TERMINAL_START_DEADLINE_MS: Type.Integer({ minimum: 500, default: 5_000 }),
  /** The JetStream key-value bucket of the terminal registry (EA token digests), read by the connectors. */
  TERMINAL_REGISTRY_BUCKET: Type.String({ default: terminalRegistryBucketDefault, pattern: '^[A-Za-z0-9_-]+$' }),
  /** Copies of the registry bucket (3 on a 3-node NATS cluster); used when the bucket is created. */
  TERMINAL_REGISTRY_REPLICAS: Type.Integer({ minimum: 1, maximum: 5, default: 1 }),
  /**
   * How long a replica trusts an account it resolved (its document, billing status, opened password). Every change
   * is announced to every replica over NATS (events.execution.account_changed) and the cache is dropped while NATS
   * is down, so this bounds only a lost announcement. Each expiry costs a store read per account in use: at one
   * minute, 10,000 active accounts were 167 reads/s, a third of a read per 4-leg batch (bench:scale); at five,
   * a fifth of that.
   */
  ACCOUNT_CACHE_MS: Type.Integer({ minimum: 0, default: 300_000 }),
  RECONCILE_INTERVAL_MS: Type.Integer({ minimum: 0, default: 5_000 }),
  /** Margin after a batch's deadline before "not found at the broker" counts as "never executed" (clock skew). */
  RECONCILE_SETTLE_AFTER_MS: Type.Integer({ minimum: 0, default: 5_000 }),
  /** A leg still unknown after this long is no longer looked up (it stays unknown, and is logged). */
  RECONCILE_GIVE_UP_AFTER_MS: Type.Integer({ minimum: 60_000, default: 24 * 60 * 60_000 }),
  /** A batch whose outcomes were never written this long after its deadline is recovered (process died). */
  RECOVERY_AFTER_MS: Type.Integer({ minimum: 1_000, default: 60_000 }),
  /** Batches handled at once by this replica; beyond it a batch is refused with 503 before anything is sent. */
  BATCHES_IN_FLIGHT_MAX: Type.Integer({ minimum: 1, default: 1_000 }),
  /** How long late replies (after the deadline) are still taken into the stored batch. */
  LATE_REPLY_WINDOW_MS: Type.Integer({ minimum: 0, default: 120_000 }),
});

export type ExecutionConfig = Static<typeof ExecutionConfigSchema>;

export function loadExecutionConfig(environment: NodeJS.ProcessEnv = process.env): ExecutionConfig {
  return loadConfig(ExecutionConfigSchema, environment);
}
