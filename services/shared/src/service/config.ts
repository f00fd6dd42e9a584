import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * Environment is parsed once, at boot, against a schema. A bad value stops the process with every problem
 * listed, instead of surfacing as an odd failure hours later.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig<T extends TObject>(schema: T, environment: NodeJS.ProcessEnv = process.env): Static<T> {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = environment[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const withDefaults = Value.Default(schema, raw);
  const converted = Value.Convert(schema, withDefaults);
  if (!Value.Check(schema, converted)) {
    const problems = [...Value.Errors(schema, converted)].map((error) => `${error.path.slice(1) || '(root)'}: ${error.message}`);
    throw new ConfigError(problems);
  }
  return converted as Static<T>;
}

/** Settings every service has. Services extend this with their own. */
export const baseConfigProperties = {
  LOG_LEVEL: Type.Union(
    [
      Type.Literal('fatal'),
      Type.Literal('error'),
      Type.Literal('warn'),
      Type.Literal('info'),
      Type.Literal('debug'),
      Type.Literal('trace'),
      Type.Literal('silent'),
    ],
    { default: 'info' },
  ),
  MONGODB_URL: Type.String({ default: 'mongodb://127.0.0.1:27017/' }),
  MONGODB_DATABASE_PREFIX: Type.String({ default: 'mtx_' }),
  NATS_URL: Type.String({ default: 'nats://127.0.0.1:4222' }),
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 0, default: 10_000 }),
} satisfies TProperties;

/**
 * Connections a public HTTP listener lets the kernel hold before it accepts them (capped by the host's
 * net.core.somaxconn). Node's default, 511, overflows when many clients connect at once while the event loop is
 * busy (a burst of providers' postbacks, clients reconnecting after a restart): the kernel then drops their
 * connection attempts, and each client waits its SYN retransmission (1 s, then 3 s, 7 s) before being served.
 */
export const listenBacklogProperty = Type.Integer({ minimum: 1, maximum: 65_535, default: 4_096 });

/**
 * METRICS_PORT: the service's operations listener (`/metrics`, `/healthz`, `/readyz` with each check; see
 * operations-listener.ts), never published by the ingress. Each service has its own default so that services run
 * side by side on one host do not collide; 0 picks a free port (tests).
 */
export function metricsPortProperty(defaultPort: number) {
  return Type.Integer({ minimum: 0, maximum: 65535, default: defaultPort });
}

export const grpcAddressDefaults = {
  WALLET_GRPC_URL: '127.0.0.1:50051',
  PAYMENTS_GRPC_URL: '127.0.0.1:50052',
  BILLING_GRPC_URL: '127.0.0.1:50053',
  EXECUTION_GRPC_URL: '127.0.0.1:50054',
  NOTIFICATIONS_GRPC_URL: '127.0.0.1:50055',
} as const;
