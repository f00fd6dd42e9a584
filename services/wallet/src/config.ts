import { Type, type Static } from '@sinclair/typebox';
import { baseConfigProperties, metricsPortProperty, grpcAddressDefaults, loadConfig } from '@mtx/shared/config';

export const WalletConfigSchema = Type.Object({
  ...baseConfigProperties,
  /** The operations listener: metrics and readiness detail, never published by the ingress (see metricsPortProperty). */
  METRICS_PORT: metricsPortProperty(9465),
  GRPC_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: Number(grpcAddressDefaults.WALLET_GRPC_URL.split(':')[1]) }),
  GRPC_HOST: Type.String({ default: '0.0.0.0' }),
  /** Movements waiting for one wallet in this process; beyond it callers get 503 and retry. */
  WALLET_QUEUE_MAX: Type.Integer({ minimum: 1, default: 1_000 }),
  /** Wallet heads kept in memory (least recently used evicted); a miss costs one lookup. */
  WALLET_HEAD_CACHE_MAX: Type.Integer({ minimum: 1, default: 100_000 }),
  /**
   * How stale GET /v1/wallet may be after another replica's movement if its broadcast (`events.wallet.moved`)
   * is lost: a known head younger than this answers without a store lookup. Movements this replica applies are
   * seen at once; 0 makes every read linearisable (one lookup each). Debits always decide on the true head.
   */
  WALLET_READ_FRESH_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 1_000 }),
  /**
   * How often a recovery step runs: it finishes (announcement, checkpoint) a movement whose writer,
   * possibly another replica, died right after its ledger insert. Start-up runs one full sweep at once.
   */
  WALLET_RECOVERY_INTERVAL_MS: Type.Integer({ minimum: 100, default: 60_000 }),
  /** Wallets one recovery step visits (a few `_id` lookups each); a full sweep takes several steps on a large ledger. */
  WALLET_RECOVERY_BATCH: Type.Integer({ minimum: 1, default: 200 }),
  /**
   * Fault injection for the crash tests: a movement whose entry id starts with this prefix kills the process
   * (exit 137) right after its ledger insert, before its announcement and checkpoint.
   * Empty (the default) is off.
   */
  WALLET_FAULT_CRASH_AFTER_LEDGER_WRITE: Type.String({ default: '' }),
});

export type WalletConfig = Static<typeof WalletConfigSchema>;

export function loadWalletConfig(environment: NodeJS.ProcessEnv = process.env): WalletConfig {
  return loadConfig(WalletConfigSchema, environment);
}
