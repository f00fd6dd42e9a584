import { Type, type Static } from '@sinclair/typebox';
import { baseConfigProperties, metricsPortProperty, loadConfig } from '@mtx/shared/config';

/** Shared with payments' default so a laptop works out of the box; every real deployment sets its own. */
export const developmentPostbackSecret = 'local-only-postback-secret';
export const developmentMerchantApiKey = 'local-only-sandbox-api-key';
/** The NOWPayments personality's API key and IPN secret: shared with payments' development settings (devstack). */
export const developmentNowPaymentsApiKey = 'local-only-nowpayments-api-key';
export const developmentNowPaymentsIpnSecret = 'local-only-nowpayments-ipn-secret';
/** The BTCPay personality's store, Greenfield key and webhook secret on a laptop (the devstack gives payments the same). */
export const developmentBtcpayStoreId = 'LocalOnlyBtcpayStore';
export const developmentBtcpayApiKey = 'local-only-btcpay-api-key';
export const developmentBtcpayWebhookSecret = 'local-only-btcpay-webhook-secret';

export const SandboxConfigSchema = Type.Object({
  ...baseConfigProperties,
  /** The operations listener: metrics and readiness detail, never published by the ingress (see metricsPortProperty). */
  METRICS_PORT: metricsPortProperty(9473),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8090 }),
  HOST: Type.String({ default: '0.0.0.0' }),
  /**
   * Where postbacks go, first match: POSTBACK_URL as given; `${PAYMENTS_HOOKS_URL}/v1/hooks/payments/sandbox`
   * (payments' own hook listener, the production route); `${GATEWAY_URL}/v1/hooks/payments/sandbox`.
   */
  GATEWAY_URL: Type.String({ default: 'http://127.0.0.1:8080' }),
  PAYMENTS_HOOKS_URL: Type.Optional(Type.String()),
  POSTBACK_URL: Type.Optional(Type.String()),
  /** HMAC-SHA256 key of the postback signature; shared with payments. Never logged. */
  POSTBACK_SECRET: Type.String({ minLength: 16, default: developmentPostbackSecret }),
  /** Key the merchant (payments) presents in `X-Api-Key` on the invoice API. Never logged. */
  SANDBOX_API_KEY: Type.String({ minLength: 8, default: developmentMerchantApiKey }),
  /** Deadline of one postback attempt. */
  POSTBACK_TIMEOUT_MS: Type.Integer({ minimum: 50, default: 5_000 }),
  /** Attempts per postback before the sandbox gives up (reconciliation then finds the payment). */
  POSTBACK_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 20, default: 6 }),
  /** First retry delay; doubles per attempt up to 30 s. */
  POSTBACK_RETRY_BASE_MS: Type.Integer({ minimum: 1, default: 250 }),
  /** How long a `late` delivery waits before its first postback. */
  POSTBACK_LATE_DELAY_MS: Type.Integer({ minimum: 0, default: 10_000 }),
  /** Postbacks in flight at once, and waiting; a full queue refuses new deposits with 503. */
  POSTBACK_CONCURRENCY: Type.Integer({ minimum: 1, default: 32 }),
  POSTBACK_QUEUE_MAX: Type.Integer({ minimum: 1, default: 10_000 }),
  /** The NOWPayments personality (`/nowpayments/v1`): the key it expects in `x-api-key`, and its IPN secret. Never logged. */
  NOWPAYMENTS_API_KEY: Type.String({ minLength: 8, default: developmentNowPaymentsApiKey }),
  NOWPAYMENTS_IPN_SECRET: Type.String({ minLength: 8, default: developmentNowPaymentsIpnSecret }),
  /** How long a NOWPayments payment's fixed rate holds (`expiration_estimate_date`); NOWPayments' own is about 20 minutes. */
  NOWPAYMENTS_QUOTE_MS: Type.Integer({ minimum: 60_000, default: 20 * 60_000 }),
  /** Rates move one step per this period (a deterministic random walk, so a given instant has one rate). */
  RATE_STEP_MS: Type.Integer({ minimum: 1_000, default: 60_000 }),
  /**
   * The BTCPay Server personality (docs/providers/btcpay.md), served under `/btcpay/api/v1`: its one store, the
   * Greenfield API key it accepts (`Authorization: token <key>`), and its webhook's secret (`BTCPay-Sig`). Never
   * logged. Webhooks go to BTCPAY_WEBHOOK_URL, else `${PAYMENTS_HOOKS_URL or GATEWAY_URL}/v1/hooks/payments/btcpay`.
   */
  BTCPAY_STORE_ID: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$', default: developmentBtcpayStoreId }),
  BTCPAY_API_KEY: Type.String({ minLength: 8, default: developmentBtcpayApiKey }),
  BTCPAY_WEBHOOK_SECRET: Type.String({ minLength: 8, default: developmentBtcpayWebhookSecret }),
  BTCPAY_WEBHOOK_URL: Type.Optional(Type.String()),
  /** How often the personality looks for invoices whose time passed (to send `InvoiceExpired`), and how many per look. */
  BTCPAY_EXPIRY_CHECK_MS: Type.Integer({ minimum: 10, default: 1_000 }),
  BTCPAY_EXPIRY_BATCH: Type.Integer({ minimum: 1, maximum: 10_000, default: 200 }),
});

export type SandboxConfig = Static<typeof SandboxConfigSchema>;

export function loadSandboxConfig(environment: NodeJS.ProcessEnv = process.env): SandboxConfig {
  return loadConfig(SandboxConfigSchema, environment);
}
