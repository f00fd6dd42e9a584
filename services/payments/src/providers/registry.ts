import type { PaymentsConfig } from '../config';
import { developmentPostbackSecret, providerConfigured } from '../config';
import { createNowPaymentsProvider } from './nowpayments';
import { createBtcpayProvider } from './btcpay';
import type { PaymentProvider } from './provider';
import { createSandboxProvider } from './sandbox';

/** The providers a payments replica knows: the one new top-ups go to, and every other one it still credits. */
export interface ConfiguredProviders {
  /** Every configured provider; each accepts its callbacks at `POST /v1/hooks/payments/<name>`. */
  providers: PaymentProvider[];
  /** `PAYMENTS_PROVIDER`: the one new top-ups are created with. */
  defaultProvider: string;
}

/** The address a provider calls back, under PUBLIC_BASE_URL. */
export function callbackUrlOf(config: PaymentsConfig, providerName: string): string | undefined {
  return config.PUBLIC_BASE_URL === undefined
    ? undefined
    : `${config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/v1/hooks/payments/${providerName}`;
}

/**
 * Builds every provider whose settings are complete (`loadPaymentsConfig` has refused half-given ones). The
 * sandbox takes callbacks only where it is the provider or its secret is not the development default: a
 * production replica never credits a postback signed with a key that is published in this repository.
 */
export function configuredProviders(config: PaymentsConfig): ConfiguredProviders {
  const providers: PaymentProvider[] = [];
  if (config.PAYMENTS_PROVIDER === 'sandbox' || config.POSTBACK_SECRET !== developmentPostbackSecret) {
    providers.push(
      createSandboxProvider({
        baseUrl: config.CRYPTO_SANDBOX_URL,
        apiKey: config.SANDBOX_API_KEY,
        postbackSecret: config.POSTBACK_SECRET,
        timeoutMs: config.PROVIDER_TIMEOUT_MS,
      }),
    );
  }
  if (providerConfigured(config, 'nowpayments')) {
    providers.push(
      createNowPaymentsProvider({
        apiUrl: config.NOWPAYMENTS_API_URL,
        apiKey: config.NOWPAYMENTS_API_KEY!,
        ipnSecret: config.NOWPAYMENTS_IPN_SECRET!,
        callbackUrl: callbackUrlOf(config, 'nowpayments'),
        timeoutMs: config.PROVIDER_TIMEOUT_MS,
        estimateCacheMs: config.PROVIDER_ASSETS_CACHE_MS,
      }),
    );
  }
  if (providerConfigured(config, 'btcpay')) {
    providers.push(
      createBtcpayProvider({
        baseUrl: config.BTCPAY_URL!,
        storeId: config.BTCPAY_STORE_ID!,
        apiKey: config.BTCPAY_API_KEY!,
        webhookSecret: config.BTCPAY_WEBHOOK_SECRET!,
        timeoutMs: config.PROVIDER_TIMEOUT_MS,
      }),
    );
  }
  if (!providers.some((provider) => provider.name === config.PAYMENTS_PROVIDER))
    throw new Error(`PAYMENTS_PROVIDER=${config.PAYMENTS_PROVIDER} has no adapter in this build`);
  return { providers, defaultProvider: config.PAYMENTS_PROVIDER };
}
