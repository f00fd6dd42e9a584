import { describe, expect, it } from 'vitest';
import { loadPaymentsConfig } from '../../payments/src/config';
import { loadSandboxConfig } from '../../crypto-sandbox/src/config';
import { useBtcpayFake } from '../src/btcpay-fake';

describe('PAYMENTS_PROVIDER=btcpay on the dev stack', () => {
  const addresses = { CRYPTO_SANDBOX_URL: 'http://127.0.0.1:4101', PAYMENTS_HOOKS_URL: 'http://127.0.0.1:4102' };

  it("points payments at the sandbox's fake with the fake's own development store, key and secret", () => {
    const env: NodeJS.ProcessEnv = { PAYMENTS_PROVIDER: 'btcpay', ...addresses };
    expect(useBtcpayFake(env)).toMatch(/FAKE BTCPay Server/);
    const sandbox = loadSandboxConfig(env);
    expect(loadPaymentsConfig(env)).toMatchObject({
      BTCPAY_URL: 'http://127.0.0.1:4101/btcpay',
      BTCPAY_STORE_ID: sandbox.BTCPAY_STORE_ID,
      BTCPAY_API_KEY: sandbox.BTCPAY_API_KEY,
      BTCPAY_WEBHOOK_SECRET: sandbox.BTCPAY_WEBHOOK_SECRET,
    });
    expect(sandbox.BTCPAY_WEBHOOK_URL).toBe('http://127.0.0.1:4102/v1/hooks/payments/btcpay');
  });

  it('leaves a real server and other providers alone', () => {
    const real: NodeJS.ProcessEnv = { PAYMENTS_PROVIDER: 'btcpay', BTCPAY_URL: 'https://pay.example.com', ...addresses };
    expect(useBtcpayFake(real)).toBeUndefined();
    expect(real).toEqual({ PAYMENTS_PROVIDER: 'btcpay', BTCPAY_URL: 'https://pay.example.com', ...addresses });
    const sandbox: NodeJS.ProcessEnv = { ...addresses };
    expect(useBtcpayFake(sandbox)).toBeUndefined();
    expect(sandbox).toEqual(addresses);
  });
});
