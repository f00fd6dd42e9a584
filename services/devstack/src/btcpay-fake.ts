/**
 * `PAYMENTS_PROVIDER=btcpay npm start`: payments talks to the crypto-sandbox's fake BTCPay Server (its `/btcpay`
 * Greenfield API), with the sandbox's development store, key and webhook secret (the defaults of
 * services/crypto-sandbox/src/config.ts), and the fake sends its webhooks to payments' hook listener. Only settings
 * not already given are filled in, so a real BTCPay Server can be used by setting all four. docs/providers/btcpay.md.
 * Returns the line to print, or undefined when BTCPay is not the provider or a real server is configured.
 */
export function useBtcpayFake(env: NodeJS.ProcessEnv): string | undefined {
  if (env.PAYMENTS_PROVIDER !== 'btcpay' || env.BTCPAY_URL !== undefined) return undefined;
  env.BTCPAY_URL = `${env.CRYPTO_SANDBOX_URL}/btcpay`;
  env.BTCPAY_STORE_ID ??= 'LocalOnlyBtcpayStore';
  env.BTCPAY_API_KEY ??= 'local-only-btcpay-api-key';
  env.BTCPAY_WEBHOOK_SECRET ??= 'local-only-btcpay-webhook-secret';
  env.BTCPAY_WEBHOOK_URL ??= `${env.PAYMENTS_HOOKS_URL}/v1/hooks/payments/btcpay`;
  return `PAYMENTS_PROVIDER=btcpay runs against a FAKE BTCPay Server (the crypto-sandbox at ${env.BTCPAY_URL}); no real money moves`;
}
