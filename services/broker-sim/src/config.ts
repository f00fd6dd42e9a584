import { Type, type Static } from '@sinclair/typebox';
import { baseConfigProperties, loadConfig } from '@mtx/shared/config';

export const BrokerSimConfigSchema = Type.Object({
  ...baseConfigProperties,
  GRPC_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 50060 }),
  HTTP_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 50061 }),
  HOST: Type.String({ default: '0.0.0.0' }),
  /** Default execution latency of every trade request (benchmarks set 0). */
  BROKER_SIM_LATENCY_MS: Type.Integer({ minimum: 0, default: 20 }),
  /** How often prices move; 0 keeps them still. */
  PRICE_TICK_MS: Type.Integer({ minimum: 0, default: 500 }),
});

export type BrokerSimConfig = Static<typeof BrokerSimConfigSchema>;

export function loadBrokerSimConfig(environment: NodeJS.ProcessEnv = process.env): BrokerSimConfig {
  return loadConfig(BrokerSimConfigSchema, environment);
}
