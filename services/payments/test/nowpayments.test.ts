import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@mtx/shared/config';
import { databaseName } from '@mtx/shared/mongo';
import type { WalletStack } from '../../../test/e2e/wallet-stack';
import { loadPaymentsConfig } from '../src/config';
import { configuredProviders } from '../src/providers/registry';
import { createPaymentsStore } from '../src/store/payments-store';
import {
  deliveriesSettled,
  deposit,
  expectCredited,
  nowPaymentsApi,
  startNowPaymentsStack,
  type NowPaymentsTopup,
} from './nowpayments-stack';

let stack: WalletStack;

beforeAll(async () => {
  stack = await startNowPaymentsStack();
});

afterAll(async () => stack?.close());

afterEach(async () => {
  expect((await stack.audit()).breaches).toEqual([]);
});

const customerId = () => `cus_${crypto.randomBytes(6).toString('hex')}`;
const store = () => createPaymentsStore(stack.mongo.db(databaseName(stack.prefix, 'payments')));
const payments = <T = any>(method: string, request: unknown) => stack.paymentsClient.call<T>(method, request);
const createTopup = (amountEurCents: number, assetCode = 'USDT', blockchainCode = 'TRON') =>
  payments<NowPaymentsTopup>('CreateTopup', {
    customer_id: customerId(),
    amount_eur_cents: amountEurCents,
    asset_code: assetCode,
    blockchain_code: blockchainCode,
  });
const unitsOf = (decimal: string | number, decimals: number) => {
  const text = typeof decimal === 'number' ? decimal.toFixed(decimals) : decimal;
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0').slice(0, decimals) || '0');
};
const invoiceIdOf = async (topup: NowPaymentsTopup) => (await store().topups.findOne({ _id: String(topup.id) }))!.invoice_id;

describe('settings', () => {
  it('refuses to start with NOWPayments chosen and a setting missing, naming each one', () => {
    const refusal = (environment: NodeJS.ProcessEnv) => {
      try {
        loadPaymentsConfig(environment);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error('the configuration was accepted');
    };
    const none = refusal({ PAYMENTS_PROVIDER: 'nowpayments' });
    for (const name of ['NOWPAYMENTS_API_KEY', 'NOWPAYMENTS_IPN_SECRET', 'PUBLIC_BASE_URL']) expect(none).toContain(name);
    const noSecret = refusal({
      PAYMENTS_PROVIDER: 'nowpayments',
      NOWPAYMENTS_API_KEY: 'key-0123456789',
      PUBLIC_BASE_URL: 'https://x.test',
    });
    expect(noSecret).toContain('NOWPAYMENTS_IPN_SECRET');
    expect(noSecret).not.toContain('key-0123456789');
    expect(
      refusal({ PAYMENTS_PROVIDER: 'nowpayments', NOWPAYMENTS_API_KEY: 'key-0123456789', NOWPAYMENTS_IPN_SECRET: 'ipn-0123456789' }),
    ).toContain('PUBLIC_BASE_URL');
    const complete = loadPaymentsConfig({
      PAYMENTS_PROVIDER: 'nowpayments',
      NOWPAYMENTS_API_KEY: 'key-0123456789',
      NOWPAYMENTS_IPN_SECRET: 'ipn-0123456789',
      PUBLIC_BASE_URL: 'https://pay.example.test/',
    });
    const configured = configuredProviders(complete);
    expect(configured.defaultProvider).toBe('nowpayments');
    expect(configured.providers.map((provider) => provider.name)).toContain('nowpayments');
  });
});

describe('assets from NOWPayments', () => {
  it("offers the merchant's enabled coins without memo coins or coins whose minimum is above the amount, at the estimate", async () => {
    const currencies = (await nowPaymentsApi(stack, '/full-currencies')).body.currencies as Array<{
      code: string;
      extra_id_exists: boolean;
    }>;
    expect(currencies.some((currency) => currency.extra_id_exists)).toBe(true);
    const { assets } = await payments<{ assets: Array<Record<string, any>> }>('ListAssets', { amount_eur_cents: 10_000 });
    const pairs = assets.map((asset) => `${asset.asset_code}/${asset.blockchain_code}`).sort();
    // BTC's minimum (EUR 150) is above EUR 100; USDC on Solana is listed but not enabled by the merchant; XRP needs a memo.
    expect(pairs).toEqual(
      [
        'BNB/BSC',
        'DOGE/DOGE',
        'ETH/ETH',
        'LTC/LTC',
        'SOL/SOL',
        'TRX/TRON',
        'USDC/ETH',
        'USDC/POLYGON',
        'USDT/BSC',
        'USDT/ETH',
        'USDT/TRON',
      ].sort(),
    );
    expect(assets.find((asset) => asset.asset_code === 'USDT' && asset.blockchain_code === 'BSC')).toMatchObject({
      is_stable: true,
      is_evm: true,
      decimals: 18,
      display_decimals: 2,
    });
    expect(assets.find((asset) => asset.asset_code === 'TRX')).toMatchObject({ is_stable: false, is_evm: false, decimals: 6 });
    const tickers: Record<string, string> = { 'USDT/TRON': 'usdttrc20', 'ETH/ETH': 'eth', 'USDT/BSC': 'usdtbsc', 'DOGE/DOGE': 'doge' };
    for (const [pair, ticker] of Object.entries(tickers)) {
      const row = assets.find((asset) => `${asset.asset_code}/${asset.blockchain_code}` === pair)!;
      const estimate = (await nowPaymentsApi(stack, `/estimate?amount=100.00&currency_from=eur&currency_to=${ticker}`)).body;
      expect(unitsOf(row.amount, row.decimals), pair).toBe(unitsOf(String(estimate.estimated_amount), row.decimals));
      // The row's minimum is NOWPayments' own EUR minimum for the coin, rounded up to the cent, at least 1000.
      const minimum = (await nowPaymentsApi(stack, `/min-amount?currency_from=${ticker}&currency_to=${ticker}&fiat_equivalent=eur`)).body;
      const minimumCents = Math.ceil(Number((Number(minimum.fiat_equivalent) * 100).toFixed(6)));
      expect(row.min_amount_eur_cents, pair).toBe(Math.max(1000, minimumCents));
    }
    const larger = await payments<{ assets: Array<Record<string, any>> }>('ListAssets', { amount_eur_cents: 20_000 });
    const btc = larger.assets.find((asset) => asset.asset_code === 'BTC')!;
    expect(btc.min_amount_eur_cents).toBeGreaterThan(10_000);
    expect(btc.min_amount_eur_cents).toBeLessThanOrEqual(20_000);
    await expect(createTopup(btc.min_amount_eur_cents - 1, 'BTC', 'BTC')).rejects.toMatchObject({
      code: 'invalid_request',
      details: { minimum_eur_cents: btc.min_amount_eur_cents },
    });
    expect(await createTopup(btc.min_amount_eur_cents, 'BTC', 'BTC')).toMatchObject({ status: 'pending', asset_code: 'BTC' });
    await expect(createTopup(10_000, 'BTC', 'BTC')).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(createTopup(10_000, 'USDC', 'SOL')).rejects.toMatchObject({ code: 'invalid_request' });
  });
});

describe('top-ups at NOWPayments', () => {
  it('creates a fixed-rate EUR payment for the top-up and ends the quote no later than NOWPayments does', async () => {
    const topup = await createTopup(2_500);
    const invoiceId = await invoiceIdOf(topup);
    const payment = (await nowPaymentsApi(stack, `/payment/${invoiceId}`)).body;
    expect(payment).toMatchObject({
      payment_status: 'waiting',
      pay_address: topup.deposit_address,
      price_amount: 25,
      price_currency: 'eur',
      pay_currency: 'usdttrc20',
      order_id: String(topup.id),
    });
    expect(BigInt(topup.deposit_amount)).toBe(unitsOf(payment.pay_amount, 6));
    expect(topup.deposit_amount_decimal).toBe(String(payment.pay_amount));
    const quote = (await stack.sandboxRequest('GET', `/v1/invoices/${invoiceId}`)).body;
    expect(new Date(topup.expires_at).getTime()).toBe(new Date(quote.expires_at).getTime());
    expect(new Date(topup.expires_at).getTime() - new Date(topup.created_at).getTime()).toBe(20 * 60_000);
    expect(topup).toMatchObject({ status: 'pending', credited_eur_cents: 0 });
  });
});

describe('crediting what NOWPayments reports', () => {
  it('credits a partial payment for what arrived, then the rest to exactly the price: paid', async () => {
    const topup = await createTopup(1_000);
    const total = BigInt(topup.deposit_amount);
    const first = (total * 4n) / 10n;
    await deposit(stack, topup, first);
    await expectCredited(stack, topup, Number((first * 1000n) / total));
    await deposit(stack, topup, total - first);
    await expectCredited(stack, topup, 1_000);
    await deliveriesSettled(stack);
    expect(await payments('GetTopup', { customer_id: topup.customer_id, id: topup.id })).toMatchObject({
      status: 'paid',
      credited_eur_cents: 1_000,
    });
    expect(await stack.ledgerEntries(topup.customer_id)).toBe(2);
  });

  it('credits an over-payment in full at the quoted rate', async () => {
    const topup = await createTopup(1_000);
    const total = BigInt(topup.deposit_amount);
    await deposit(stack, topup, total + total / 2n);
    await expectCredited(stack, topup, Number(((total + total / 2n) * 1000n) / total));
    await deliveriesSettled(stack);
    expect(await stack.ledgerEntries(topup.customer_id)).toBe(1);
  });

  it('credits several transactions adding up to the price exactly once each, whatever their IPNs repeat', async () => {
    const topup = await createTopup(1_800);
    const total = BigInt(topup.deposit_amount);
    const parts = [total / 3n, total / 4n, total - total / 3n - total / 4n];
    for (const [index, part] of parts.entries()) await deposit(stack, topup, part, index === 1 ? 'twice' : 'normal');
    await expectCredited(stack, topup, 1_800);
    await deliveriesSettled(stack);
    expect(await stack.ledgerEntries(topup.customer_id)).toBe(3);
  });

  it('credits a repeat deposit after the payment finished to the same top-up, as its own payment', async () => {
    const topup = await createTopup(1_200);
    const total = BigInt(topup.deposit_amount);
    await deposit(stack, topup, total);
    await expectCredited(stack, topup, 1_200);
    await deliveriesSettled(stack);
    const extra = total / 4n;
    await deposit(stack, topup, extra);
    await expectCredited(stack, topup, Number(((total + extra) * 1200n) / total));
    await deliveriesSettled(stack);
    const attempts = (await stack.sandboxRequest('GET', '/sandbox/deliveries')).body.attempts as Array<{ invoice_id: string }>;
    const invoiceId = await invoiceIdOf(topup);
    const repeatIds = new Set(attempts.map((attempt) => attempt.invoice_id).filter((id) => id !== invoiceId));
    expect(await stack.ledgerEntries(topup.customer_id)).toBe(2);
    expect(repeatIds.size).toBeGreaterThan(0);
  });

  it('credits coin arriving after the quote ended at the market rate of NOWPayments at that moment', async () => {
    const topup = await createTopup(1_000);
    stack.clock.advanceMs(21 * 60_000);
    // Expired on our side (NOWPayments cannot cancel a payment), and still credited when coin comes.
    expect(await payments('GetTopup', { customer_id: topup.customer_id, id: topup.id })).toMatchObject({ status: 'failed' });
    const late = BigInt(topup.deposit_amount) / 2n;
    const estimate = (await nowPaymentsApi(stack, '/estimate?amount=100.00&currency_from=eur&currency_to=usdttrc20')).body;
    const referenceUnits = unitsOf(String(estimate.estimated_amount), 6);
    const scaledRate = (10_000n * 10n ** 14n) / (100n * referenceUnits);
    await deposit(stack, topup, late);
    await expectCredited(stack, topup, Number((late * 100n * scaledRate) / 10n ** 14n));
    await deliveriesSettled(stack);
    expect(await stack.ledgerEntries(topup.customer_id)).toBe(1);
  });
});
