import { Type, type Static } from '@sinclair/typebox';
import { defaultServerPlans } from '@mtx/shared/server-plans';
import { baseConfigProperties, metricsPortProperty, grpcAddressDefaults, listenBacklogProperty, loadConfig } from '@mtx/shared/config';

export const GatewayConfigSchema = Type.Object({
  ...baseConfigProperties,
  /** The operations listener: metrics and readiness detail, never published by the ingress (see metricsPortProperty). */
  METRICS_PORT: metricsPortProperty(9464),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  HOST: Type.String({ default: '127.0.0.1' }),
  /** Connections waiting to be accepted; see listenBacklogProperty. */
  LISTEN_BACKLOG: listenBacklogProperty,
  PUBLIC_BASE_URL: Type.Optional(Type.String()),
  WALLET_GRPC_URL: Type.String({ default: grpcAddressDefaults.WALLET_GRPC_URL }),
  PAYMENTS_GRPC_URL: Type.String({ default: grpcAddressDefaults.PAYMENTS_GRPC_URL }),
  BILLING_GRPC_URL: Type.String({ default: grpcAddressDefaults.BILLING_GRPC_URL }),
  EXECUTION_GRPC_URL: Type.String({ default: grpcAddressDefaults.EXECUTION_GRPC_URL }),
  NOTIFICATIONS_GRPC_URL: Type.String({ default: grpcAddressDefaults.NOTIFICATIONS_GRPC_URL }),
  GRPC_DEADLINE_MS: Type.Integer({ minimum: 100, default: 5_000 }),
  EXECUTION_DEADLINE_MS: Type.Integer({ minimum: 100, default: 5_000 }),
  /** Execution's read deadline (positions, account state): the gateway waits this long plus a margin. */
  READ_DEADLINE_MS: Type.Integer({ minimum: 50, default: 3_000 }),
  RATE_LIMIT_EXECUTION_PER_MINUTE: Type.Integer({ minimum: 1, default: 60 }),
  RATE_LIMIT_OTHER_PER_MINUTE: Type.Integer({ minimum: 1, default: 600 }),
  /**
   * How long slots a replica claims ahead for a steadily used bucket may be handed out (see the rate limiter):
   * such a request's answer waits for no store write. 0 claims every request's slot on its own path.
   */
  RATE_LIMIT_LEASE_MS: Type.Integer({ minimum: 0, maximum: 10_000, default: 1_000 }),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 256 * 1024 }),
  /**
   * Request line and headers together. Node's 16 KiB default is below the longest query the schemas accept
   * (GET /v1/positions: 20 account ids of 80 characters, each up to 12 bytes percent-encoded, about 20 KiB), so a
   * valid request would be refused before its route saw it.
   */
  HEADER_LIMIT_BYTES: Type.Integer({ minimum: 16 * 1024, maximum: 1024 * 1024, default: 32 * 1024 }),
  JSON_DEPTH_MAX: Type.Integer({ minimum: 2, default: 32 }),
  /**
   * How long a replica trusts a key it looked up. Revocations are announced to every replica over NATS
   * (events.gateway.key_revoked) and the cache is dropped when NATS comes back after an outage, so this bounds
   * only a lost announcement (or a gateway run without NATS).
   */
  API_KEY_CACHE_MS: Type.Integer({ minimum: 0, default: 60_000 }),
  ACCESS_LOG: Type.Boolean({ default: true }),
  /**
   * How long a composed GET /v1/wallet answer may be served from this gateway's memory. Every backend change is
   * announced over NATS and invalidates it at once, and this gateway's own writes do too, so this only bounds
   * staleness after a lost announcement. 0 composes every answer from the backends.
   */
  WALLET_READ_FRESH_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 1_000 }),
  /**
   * The same for GET /v1/subscription: billing announces every revision of the customer and the wallet every
   * movement of its balance. What changes with the clock alone (a seat passing its date) is seen this late at most.
   */
  SUBSCRIPTION_READ_FRESH_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 1_000 }),
  READ_MODEL_ENTRIES_MAX: Type.Integer({ minimum: 1, default: 100_000 }),
  IDEMPOTENCY_TTL_MS: Type.Integer({ minimum: 1_000, default: 15 * 60_000 }),
  /** How long a claim whose holder vanished (a gateway killed mid-request) blocks retries; above any request's deadline. */
  IDEMPOTENCY_LEASE_MS: Type.Integer({ minimum: 1_000, default: 60_000 }),
  /** The private-server plans (billing's setting; the plan names are the enum of POST /v1/servers). */
  SERVER_PLANS: Type.String({ default: defaultServerPlans }),
  /** Failed authentications per client address and minute before it is answered 429 (per gateway replica). */
  AUTH_FAILURES_PER_MINUTE: Type.Integer({ minimum: 1, default: 30 }),
  /** Client addresses never limited for failed authentications (comma-separated); default the loopback ones. */
  AUTH_FAILURES_EXEMPT: Type.String({ default: '127.0.0.1,::1,::ffff:127.0.0.1' }),
  /**
   * Addresses or CIDR ranges of the proxies in front of the gateway (comma-separated), whose X-Forwarded-For is
   * believed for the client address; empty: the peer's own address is the client's.
   */
  TRUSTED_PROXIES: Type.String({ default: '' }),
});

export type GatewayConfig = Static<typeof GatewayConfigSchema>;

export function loadGatewayConfig(environment: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(GatewayConfigSchema, environment);
}
