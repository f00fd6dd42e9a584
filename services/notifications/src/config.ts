import { Type, type Static } from '@sinclair/typebox';
import { baseConfigProperties, metricsPortProperty, loadConfig } from '@mtx/shared/config';

/**
 * Development key for webhook signing secrets at rest (AES-256-GCM). Anything beyond a laptop must set
 * WEBHOOK_SECRET_KEY (32 random bytes, base64 or hex); the service warns at boot when this one is in use.
 */
export const developmentWebhookSecretKey = 'ZGV2LW9ubHktd2ViaG9vay1zZWNyZXQta2V5LTMyYiE=';

export const NotificationsConfigSchema = Type.Object({
  ...baseConfigProperties,
  /** The operations listener: metrics and readiness detail, never published by the ingress (see metricsPortProperty). */
  METRICS_PORT: metricsPortProperty(9469),
  GRPC_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 50055 }),
  HOST: Type.String({ default: '0.0.0.0' }),
  WEBHOOK_SECRET_KEY: Type.String({ default: developmentWebhookSecretKey }),
  /** Endpoints may point at private, loopback and link-local addresses: local runs and tests only. */
  WEBHOOKS_ALLOW_PRIVATE: Type.Boolean({ default: false }),
  /** A delivery that has not answered by then counts as failed (and is retried). */
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 10_000 }),
  /** First retry after this long, doubling up to WEBHOOK_RETRY_MAX_MS, each with ±50 % jitter. */
  WEBHOOK_RETRY_BASE_MS: Type.Integer({ minimum: 10, default: 5_000 }),
  WEBHOOK_RETRY_MAX_MS: Type.Integer({ minimum: 10, default: 3_600_000 }),
  /** An endpoint that has failed one event for this long is disabled. */
  WEBHOOK_RETRY_FOR_MS: Type.Integer({ minimum: 1_000, default: 3 * 24 * 3_600_000 }),
  /** Deliveries in flight at once, over every endpoint; when all are taken, waiting customers take turns. */
  WEBHOOK_DELIVERIES_IN_FLIGHT_MAX: Type.Integer({ minimum: 1, default: 1_000 }),
  /**
   * Deliveries one customer may have in flight at once (each endpoint has at most one), and so the connections
   * it may hold to one host: with the default, every endpoint of a customer delivers without waiting on another.
   */
  WEBHOOK_CUSTOMER_DELIVERIES_IN_FLIGHT_MAX: Type.Integer({ minimum: 1, maximum: 100, default: 16 }),
  WEBHOOK_ENDPOINTS_PER_CUSTOMER_MAX: Type.Integer({ minimum: 1, maximum: 100, default: 16 }),
  /** Copies of the NOTIFY stream: 3 on a 3-node cluster, 1 on a single server. */
  NOTIFY_STREAM_REPLICAS: Type.Integer({ minimum: 1, maximum: 5, default: 1 }),
  /** The leader's lease: a replica that dies is replaced by another within about this long. */
  NOTIFY_LEADER_LEASE_MS: Type.Integer({ minimum: 1_000, default: 10_000 }),
  /** How often the leader re-reads the enabled endpoints (a change it was not told of). */
  NOTIFY_ENDPOINTS_RESCAN_MS: Type.Integer({ minimum: 1_000, default: 30_000 }),
  /** How long events are listed by GET /v1/events. */
  EVENTS_RETENTION_DAYS: Type.Integer({ minimum: 1, default: 30 }),
});

export type NotificationsConfig = Static<typeof NotificationsConfigSchema>;

export function loadNotificationsConfig(environment: NodeJS.ProcessEnv = process.env): NotificationsConfig {
  return loadConfig(NotificationsConfigSchema, environment);
}
