import { Type, type Static } from '@sinclair/typebox';
import path from 'node:path';
import { baseConfigProperties, metricsPortProperty, loadConfig } from '@mtx/shared/config';
import { defaultDataDirectory } from '@mtx/shared/infra/paths';

export const BrokerSimConfigSchema = Type.Object({
  ...baseConfigProperties,
  /** The operations listener: metrics and readiness detail, never published by the ingress (see metricsPortProperty). */
  METRICS_PORT: metricsPortProperty(9472),
  GRPC_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 50060 }),
  HTTP_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 50061 }),
  HOST: Type.String({ default: '0.0.0.0' }),
  /** Default execution latency of every trade request (benchmarks set 0). */
  BROKER_SIM_LATENCY_MS: Type.Integer({ minimum: 0, default: 20 }),
  /** How often prices move; 0 keeps them still. */
  PRICE_TICK_MS: Type.Integer({ minimum: 0, default: 500 }),
  /** A session unused this long is ended, as a trade server drops idle terminals; they log in again. */
  BROKER_SIM_SESSION_IDLE_MS: Type.Integer({ minimum: 1_000, default: 3_600_000 }),
  /** The data folder (`npm start`'s .data); the journal lives in its broker-sim/ folder. */
  DATA_DIR: Type.String({ default: defaultDataDirectory }),
  /** The journal file itself; default `<DATA_DIR>/broker-sim/<MONGODB_DATABASE_PREFIX>journal.ndjson`. */
  BROKER_SIM_JOURNAL_FILE: Type.Optional(Type.String({ minLength: 1 })),
});

export type BrokerSimConfig = Static<typeof BrokerSimConfigSchema>;

export function loadBrokerSimConfig(environment: NodeJS.ProcessEnv = process.env): BrokerSimConfig {
  return loadConfig(BrokerSimConfigSchema, environment);
}

/** Where the journal is: stacks sharing a data folder are told apart by their database prefix, as in the store. */
export function journalFileOf(config: BrokerSimConfig): string {
  return config.BROKER_SIM_JOURNAL_FILE ?? path.join(config.DATA_DIR, 'broker-sim', `${config.MONGODB_DATABASE_PREFIX}journal.ndjson`);
}
