import { Type, type Static } from '@sinclair/typebox';
import { eventIdSecretProperty } from '@mtx/shared/customer-events';
import {
  ConfigError,
  baseConfigProperties,
  metricsPortProperty,
  grpcAddressDefaults,
  listenBacklogProperty,
  loadConfig,
} from '@mtx/shared/config';

/** Local-only defaults shared with the crypto-sandbox, so a laptop works out of the box; deployments set their own. */
export const developmentPostbackSecret = 'local-only-postback-secret';
export const developmentSandboxApiKey = 'local-only-sandbox-api-key';

export const PaymentsConfigSchema = Type.Object({
  ...baseConfigProperties,
  /** The operations listener: metrics and readiness detail, never published by the ingress (see metricsPortProperty). */
  METRICS_PORT: metricsPortProperty(9466),
  /** The key of customer events' ids (see eventIdSecretProperty); the same on every publishing service. Never logged. */
  EVENT_ID_SECRET: eventIdSecretProperty,
  GRPC_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: Number(grpcAddressDefaults.PAYMENTS_GRPC_URL.split(':')[1]) }),
  GRPC_HOST: Type.String({ default: '0.0.0.0' }),
  /**
   * Payments' own hook listener: `POST /v1/hooks/payments/<provider>` (and `/healthz`), where the ingress sends
   * the provider's postbacks. 0 picks a free port.
   */
  HOOKS_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8088 }),
  HOOKS_HOST: Type.String({ default: '0.0.0.0' }),
  /** Connections waiting to be accepted on the hook listener; see listenBacklogProperty. */
  HOOKS_LISTEN_BACKLOG: listenBacklogProperty,
  WALLET_GRPC_URL: Type.String({ default: grpcAddressDefaults.WALLET_GRPC_URL }),
  WALLET_DEADLINE_MS: Type.Integer({ minimum: 100, default: 5_000 }),
  /** The crypto-sandbox provider's base address and merchant key (X-Api-Key). The key is never logged. */
  CRYPTO_SANDBOX_URL: Type.String({ default: 'http://127.0.0.1:8090' }),
  SANDBOX_API_KEY: Type.String({ minLength: 8, default: developmentSandboxApiKey }),
  /** HMAC-SHA256 key of the sandbox's postbacks; shared with it. Never logged. */
  POSTBACK_SECRET: Type.String({ minLength: 16, default: developmentPostbackSecret }),
  /** A postback whose signed timestamp is further than this from now is refused (replay window). */
  POSTBACK_TOLERANCE_MS: Type.Integer({ minimum: 1_000, default: 5 * 60_000 }),
  /**
   * The provider new top-ups are created with. Every provider whose settings are complete also accepts its
   * callbacks at `POST /v1/hooks/payments/<name>`, so top-ups created before a switch keep being credited.
   */
  PAYMENTS_PROVIDER: Type.Union([Type.Literal('sandbox'), Type.Literal('nowpayments'), Type.Literal('btcpay')], { default: 'sandbox' }),
  /**
   * The public address providers call back (the ingress in front of the hook listener, or the gateway), without a
   * trailing slash: NOWPayments is sent `<PUBLIC_BASE_URL>/v1/hooks/payments/nowpayments` with each payment.
   */
  PUBLIC_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$', maxLength: 1_024 })),
  /** NOWPayments' API, with its version (`/v1`); the key is sent as `x-api-key`. Both secrets are never logged. */
  NOWPAYMENTS_API_URL: Type.String({ pattern: '^https?://', default: 'https://api.nowpayments.io/v1' }),
  NOWPAYMENTS_API_KEY: Type.Optional(Type.String({ minLength: 8, maxLength: 256 })),
  /** The IPN secret key of the NOWPayments dashboard: HMAC-SHA512 key of `x-nowpayments-sig`. */
  NOWPAYMENTS_IPN_SECRET: Type.Optional(Type.String({ minLength: 8, maxLength: 256 })),
  /** The BTCPay Server's root address, the store, a Greenfield API key of that store, and its webhook's secret. */
  BTCPAY_URL: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 1_024 })),
  BTCPAY_STORE_ID: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' })),
  BTCPAY_API_KEY: Type.Optional(Type.String({ minLength: 8, maxLength: 256 })),
  BTCPAY_WEBHOOK_SECRET: Type.Optional(Type.String({ minLength: 8, maxLength: 256 })),
  PROVIDER_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 5_000 }),
  /** How long the provider's asset list and rates are reused before asking again. */
  PROVIDER_ASSETS_CACHE_MS: Type.Integer({ minimum: 0, default: 5_000 }),
  /**
   * How stale the pending top-ups in GET /v1/wallet may be after another replica changed them and its broadcast
   * (`events.payments.topups_changed`) was lost; this replica's own changes are seen at once. 0: read every time.
   */
  PAYMENTS_PENDING_FRESH_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 1_000 }),
  EXPIRY_INTERVAL_MS: Type.Integer({ minimum: 100, default: 15_000 }),
  EXPIRY_BATCH: Type.Integer({ minimum: 1, default: 200 }),
  RECONCILE_INTERVAL_MS: Type.Integer({ minimum: 100, default: 30_000 }),
  RECONCILE_BATCH: Type.Integer({ minimum: 1, default: 50 }),
  /** Top-ups whose quote ended longer ago than this are no longer polled (late coin then needs its postback). */
  RECONCILE_LOOKBACK_MS: Type.Integer({ minimum: 60_000, default: 24 * 60 * 60_000 }),
  /**
   * The postback inbox (docs/architecture.md, "Money in"): a JetStream stream (`PAYMENTS_INBOX_<prefix>`) where a postback is recorded
   * before it is acknowledged, shared by every replica's crediting worker. Copies of it (3 on the production
   * cluster: a postback is acknowledged once a majority holds it), how long a transaction's record is kept (a
   * redelivery within it is a `duplicate`; later ones are credited no further, by the wallet's entry id), and its
   * size bound (past it postbacks are refused with 503 and the provider retries).
   */
  PAYMENTS_INBOX_REPLICAS: Type.Integer({ minimum: 1, maximum: 5, default: 1 }),
  PAYMENTS_INBOX_RETENTION_MS: Type.Integer({ minimum: 60_000, default: 30 * 24 * 60 * 60_000 }),
  PAYMENTS_INBOX_BYTES_MAX: Type.Integer({ minimum: 1_048_576, default: 256 * 1_048_576 }),
  /** Records delivered to crediting workers and not yet settled, across replicas: the backlog's bound. */
  PAYMENTS_CREDIT_QUEUE_MAX: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 10_000 }),
  /** Records per CreditMany, and batches in flight in one replica. */
  PAYMENTS_CREDIT_BATCH_MAX: Type.Integer({ minimum: 1, maximum: 500, default: 256 }),
  PAYMENTS_CREDIT_IN_FLIGHT_MAX: Type.Integer({ minimum: 1, maximum: 64, default: 2 }),
  /**
   * Least time between two crediting batches: a batch that is not full waits for more records until this long
   * after the previous one went (a postback after a quiet spell goes at once). Fewer, larger batches: less CPU per
   * postback under load, for at most this much more time between acknowledgement and credit. 0: no wait.
   */
  PAYMENTS_CREDIT_LINGER_MS: Type.Integer({ minimum: 0, maximum: 1_000, default: 10 }),
  /**
   * Whether this replica drains the inbox into the wallet. Off, it still serves the API and records postbacks:
   * a deployment can run the crediting in replicas of its own, so a crediting batch never delays a postback's
   * acknowledgement on the same event loop.
   */
  PAYMENTS_CREDITING_ENABLED: Type.Boolean({ default: true }),
  /**
   * A full collection of this process's heap once it has been idle for 0.3 s, if the heap grew this much since the
   * last one; 0 turns it off. See src/app/idle-collection.ts.
   */
  PAYMENTS_IDLE_COLLECTION_GROWTH_MB: Type.Integer({ minimum: 0, maximum: 65_536, default: 64 }),
  /**
   * The sweep: a record left unsettled (a crash between record and credit, a credit the wallet refused) is
   * delivered again this long after its last delivery, to whichever replica asks; the oldest unsettled record's
   * age (`mtx.payments.inbox.oldest_age`) is refreshed on the same interval.
   */
  PAYMENTS_INBOX_SWEEP_INTERVAL_MS: Type.Integer({ minimum: 100, default: 10_000 }),
  /**
   * Fault injection for the fault suite: a payment recorded for the first time whose wallet entry id
   * (`topup:<provider>:<transaction>`) starts with this prefix kills the process (exit 137) after the record is
   * inserted and before the wallet credit. Empty (the default) is off.
   */
  PAYMENTS_FAULT_CRASH_BEFORE_CREDIT: Type.String({ default: '' }),
});

export type PaymentsConfig = Static<typeof PaymentsConfigSchema>;

/** Each provider's settings: all present (it is configured), all absent, or a refusal to start naming the rest. */
export const providerSettings = {
  nowpayments: ['NOWPAYMENTS_API_KEY', 'NOWPAYMENTS_IPN_SECRET'],
  btcpay: ['BTCPAY_URL', 'BTCPAY_STORE_ID', 'BTCPAY_API_KEY', 'BTCPAY_WEBHOOK_SECRET'],
} as const satisfies Record<string, readonly (keyof PaymentsConfig)[]>;

/** Whether a provider's settings are all present. */
export function providerConfigured(config: PaymentsConfig, provider: keyof typeof providerSettings): boolean {
  return providerSettings[provider].every((name) => config[name] !== undefined);
}

export function loadPaymentsConfig(environment: NodeJS.ProcessEnv = process.env): PaymentsConfig {
  const config = loadConfig(PaymentsConfigSchema, environment);
  const problems: string[] = [];
  for (const [provider, names] of Object.entries(providerSettings) as [
    keyof typeof providerSettings,
    readonly (keyof PaymentsConfig)[],
  ][]) {
    const missing = names.filter((name) => config[name] === undefined);
    const chosen = config.PAYMENTS_PROVIDER === provider;
    if (missing.length > 0 && (chosen || missing.length < names.length))
      problems.push(
        `${missing.join(', ')}: required ${chosen ? `with PAYMENTS_PROVIDER=${provider}` : `once any ${provider} setting is given`}`,
      );
  }
  if (config.PAYMENTS_PROVIDER === 'nowpayments' && config.PUBLIC_BASE_URL === undefined)
    problems.push('PUBLIC_BASE_URL: required with PAYMENTS_PROVIDER=nowpayments (its callback address is sent with each payment)');
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
