import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConfigError } from '@mtx/shared/config';
import { createLogger } from '@mtx/shared/logger';
import { connectMongo, databaseName } from '@mtx/shared/mongo';
import { eventually, startTcpProxy } from '@mtx/shared/testing';
import type { WalletStack } from '../../../test/e2e/wallet-stack';
import { createPaymentsApp } from '../src/app';
import { loadPaymentsConfig } from '../src/config';
import { eurCentsForUnits, parseScaledDecimal } from '../src/domain/money';
import { btcpayStore, signBtcpay, startBtcpayStack, type BtcpayStack } from './btcpay-stack';

let btcpay: BtcpayStack;
let stack: WalletStack;

beforeAll(async () => {
  btcpay = await startBtcpayStack({ mongodbUrl: inject('mongodbUrl'), natsUrl: inject('natsUrl') });
  stack = btcpay.stack;
});

afterAll(async () => btcpay?.close());

afterEach(async () => {
  expect((await stack.audit()).breaches).toEqual([]);
});

interface Topup {
  id: number;
  status: string;
  amount_eur_cents: number;
  credited_eur_cents: number;
  asset_code: string;
  blockchain_code: string;
  deposit_address: string;
  deposit_amount: string;
  deposit_amount_decimal: string;
  expires_at: string;
}

const customerId = () => `cus_${crypto.randomBytes(6).toString('hex')}`;
const payments = <T = any>(method: string, request: unknown) => stack.paymentsClient.call<T>(method, request);
const createBtcTopup = (customer: string, amountEurCents: number) =>
  payments<Topup>('CreateTopup', { customer_id: customer, amount_eur_cents: amountEurCents, asset_code: 'BTC', blockchain_code: 'BTC' });
const topupOf = (customer: string, topup: Topup) => payments<Topup>('GetTopup', { customer_id: customer, id: topup.id });
const balanceOf = async (customer: string) =>
  ((await stack.walletClient.call('GetWallet', { customer_id: customer })) as { balance_eur_cents: number }).balance_eur_cents;

/** Coin sent to the top-up's address in the fake; its webhooks follow in `delivery` mode. */
async function deposit(topup: Topup, units: bigint, delivery = 'normal'): Promise<{ transaction_id: string; invoice_id: string }> {
  const response = await stack.sandboxRequest('POST', '/sandbox/deposits', {
    address: topup.deposit_address,
    asset_code: 'BTC',
    blockchain_code: 'BTC',
    amount: units.toString(),
    delivery,
  });
  expect(response.status).toBe(201);
  return response.body;
}

/** The fake's deliveries for an invoice, once every one of them has ended. */
async function deliveriesOf(invoiceId: string, count: number) {
  let attempts: Array<{ status: string; http_status: number | null; outcome: string }> = [];
  await eventually(async () => {
    attempts = stack.sandbox.dispatcher.attempts({ invoiceId }).filter((attempt) => attempt.outcome !== 'retrying');
    return expect(attempts).toHaveLength(count);
  });
  return attempts;
}

/** Waits until the customer's balance is `cents` and nothing is left to credit, then checks it stays so. */
async function expectBalance(customer: string, cents: number, entries: number) {
  await eventually(async () => expect(await balanceOf(customer)).toBe(cents));
  await eventually(async () => expect(await stack.inboxUnsettled()).toBe(0));
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await balanceOf(customer)).toBe(cents);
  expect(await stack.ledgerEntries(customer)).toBe(entries);
}

/** What the quote credits for `units` of a top-up quoted at `quoteUnits` for `amountEurCents`, rounded down. */
const quoted = (units: bigint, topup: Topup) => Number((units * BigInt(topup.amount_eur_cents)) / BigInt(topup.deposit_amount));

/** A webhook event as BTCPay builds it, for tests that deliver one themselves. */
function webhookEvent(fields: Record<string, unknown>): string {
  const deliveryId = crypto.randomBytes(8).toString('hex');
  return JSON.stringify(
    {
      deliveryId,
      webhookId: 'wh_test',
      originalDeliveryId: deliveryId,
      isRedelivery: false,
      timestamp: Math.floor(stack.clock.now().getTime() / 1000),
      storeId: btcpayStore.storeId,
      ...fields,
    },
    null,
    2,
  );
}

describe('settings', () => {
  it('refuses to start with PAYMENTS_PROVIDER=btcpay and a BTCPay setting missing, naming it and no secret', () => {
    const complete = {
      PAYMENTS_PROVIDER: 'btcpay',
      BTCPAY_URL: 'https://btcpay.example.com',
      BTCPAY_STORE_ID: 'Store1',
      BTCPAY_API_KEY: 'secret-api-key-value',
      BTCPAY_WEBHOOK_SECRET: 'secret-webhook-value',
    };
    expect(loadPaymentsConfig(complete)).toMatchObject({ PAYMENTS_PROVIDER: 'btcpay', BTCPAY_STORE_ID: 'Store1' });
    for (const missing of Object.keys(complete).filter((name) => name !== 'PAYMENTS_PROVIDER')) {
      const { [missing]: _left, ...environment } = complete as Record<string, string>;
      const error = (() => {
        try {
          loadPaymentsConfig(environment);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error, missing).toBeInstanceOf(ConfigError);
      expect(String((error as Error).message)).toContain(missing);
      expect(String((error as Error).message)).not.toContain('secret-api-key-value');
      expect(String((error as Error).message)).not.toContain('secret-webhook-value');
    }
  });
});

describe('assets and top-ups', () => {
  it("offers the store's enabled on-chain coins, never Lightning, priced at its rates", async () => {
    const { assets } = await payments<{ assets: Array<{ asset_code: string; blockchain_code: string; amount: string; decimals: number }> }>(
      'ListAssets',
      { amount_eur_cents: 4321 },
    );
    expect(assets.map((asset) => `${asset.asset_code}/${asset.blockchain_code}`)).toEqual(['BTC/BTC', 'LTC/LTC', 'DOGE/DOGE']);
    expect(assets[0]).toMatchObject({ asset_name: 'Bitcoin', is_evm: false, is_stable: false, decimals: 8, display_decimals: 8 });
    const rates = (await btcpay.greenfield('GET', '/rates?currencyPair=BTC_EUR&currencyPair=LTC_EUR&currencyPair=DOGE_EUR')).body;
    for (const asset of assets) {
      const rate = rates.find((row: { currencyPair: string }) => row.currencyPair === `${asset.asset_code}_EUR`).rate as string;
      const units = parseScaledDecimal(asset.amount, asset.decimals);
      const scaledRate = parseScaledDecimal(rate, 8);
      const target = 4321n * 10n ** BigInt(asset.decimals + 8);
      // Rounded up: the amount covers EUR 43.21 at the rate, one smallest unit less does not.
      expect(units * scaledRate * 100n >= target, asset.asset_code).toBe(true);
      expect((units - 1n) * scaledRate * 100n < target, asset.asset_code).toBe(true);
    }
  });

  it('creates an invoice of the EUR amount for the one chosen method, and shows its address and amount', async () => {
    const customer = customerId();
    const before = Date.now();
    const topup = await createBtcTopup(customer, 5000);
    const invoiceId = (await stack.mongo.db(databaseName(stack.prefix, 'payments')).collection('topups').findOne({ id: topup.id }))!
      .invoice_id as string;
    const invoice = (await btcpay.greenfield('GET', `/invoices/${invoiceId}`)).body;
    expect(invoice).toMatchObject({
      amount: '50.00',
      currency: 'EUR',
      metadata: { orderId: String(topup.id) },
      checkout: { expirationMinutes: 30, paymentMethods: ['BTC-CHAIN'] },
    });
    const [method] = (await btcpay.greenfield('GET', `/invoices/${invoiceId}/payment-methods`)).body;
    expect(topup).toMatchObject({ status: 'pending', deposit_address: method.destination, deposit_amount_decimal: method.amount });
    expect(new Date(topup.expires_at).getTime()).toBeLessThanOrEqual(invoice.expirationTime * 1000);
    expect(Date.now() - before).toBeLessThan(5_000);
    await expect(
      payments('CreateTopup', { customer_id: customer, amount_eur_cents: 5000, asset_code: 'USDT', blockchain_code: 'TRON' }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });
});

describe('crediting from webhooks', () => {
  it('credits a full payment once, acknowledging the invoice events it ignores', async () => {
    const customer = customerId();
    const topup = await createBtcTopup(customer, 5000);
    const paid = await deposit(topup, BigInt(topup.deposit_amount));
    const attempts = await deliveriesOf(paid.invoice_id, 4);
    expect(attempts.map((attempt) => [attempt.status, attempt.http_status])).toEqual([
      ['InvoiceReceivedPayment', 200],
      ['InvoiceProcessing', 200],
      ['InvoicePaymentSettled', 200],
      ['InvoiceSettled', 200],
    ]);
    await expectBalance(customer, 5000, 1);
    expect(await topupOf(customer, topup)).toMatchObject({ status: 'paid', credited_eur_cents: 5000 });
  });

  it('credits a partial payment, then the rest to paid; over-payment and several payments add up', async () => {
    const customer = customerId();
    const topup = await createBtcTopup(customer, 6000);
    const due = BigInt(topup.deposit_amount);
    await deposit(topup, due / 3n);
    await expectBalance(customer, quoted(due / 3n, topup), 1);
    expect(await topupOf(customer, topup)).toMatchObject({ status: 'partial' });
    await deposit(topup, due / 3n);
    await deposit(topup, due - 2n * (due / 3n));
    await expectBalance(customer, 6000, 3);
    expect(await topupOf(customer, topup)).toMatchObject({ status: 'paid', credited_eur_cents: 6000 });

    const over = await createBtcTopup(customer, 2000);
    const overUnits = (BigInt(over.deposit_amount) * 3n) / 2n;
    await deposit(over, overUnits);
    await expectBalance(customer, 6000 + quoted(overUnits, over), 4);
    expect(await topupOf(customer, over)).toMatchObject({ status: 'paid', credited_eur_cents: quoted(overUnits, over) });
  });

  it('credits a duplicate (a redelivery of the same payment) and out-of-order webhooks once', async () => {
    const customer = customerId();
    const twice = await createBtcTopup(customer, 3000);
    const first = await deposit(twice, BigInt(twice.deposit_amount), 'twice');
    const attempts = await deliveriesOf(first.invoice_id, 5);
    expect(attempts.at(-1)).toMatchObject({ status: 'InvoicePaymentSettled', http_status: 200 });
    const reversed = await createBtcTopup(customer, 2500);
    const second = await deposit(reversed, BigInt(reversed.deposit_amount), 'reversed');
    expect((await deliveriesOf(second.invoice_id, 4))[0]).toMatchObject({ status: 'InvoicePaymentSettled', http_status: 200 });
    await expectBalance(customer, 5500, 2);
    expect(await topupOf(customer, reversed)).toMatchObject({ status: 'paid', credited_eur_cents: 2500 });
  });

  it('refuses a bad signature (401) and another store (404), recording nothing', async () => {
    const customer = customerId();
    const topup = await createBtcTopup(customer, 4000);
    const paid = await deposit(topup, BigInt(topup.deposit_amount), 'never');
    const [method] = (await btcpay.greenfield('GET', `/invoices/${paid.invoice_id}/payment-methods`)).body;
    const payment = method.payments[0];
    const event = {
      type: 'InvoicePaymentSettled',
      invoiceId: paid.invoice_id,
      metadata: { orderId: String(topup.id) },
      afterExpiration: false,
      paymentMethodId: 'BTC-CHAIN',
      payment,
    };
    const body = webhookEvent(event);
    for (const signature of ['', 'sha256=00', signBtcpay(body, 'some-other-secret'), signBtcpay(`${body} `)]) {
      const refused = await btcpay.postWebhook(body, signature);
      expect(refused.status, signature).toBe(401);
    }
    const elsewhere = webhookEvent({ ...event, storeId: 'AnotherStore' });
    expect((await btcpay.postWebhook(elsewhere)).status).toBe(404);
    expect((await btcpay.postWebhook('{"type": "InvoicePaymentSettled"')).status).toBe(400);
    expect(await stack.inboxRecord(`btcpay:${payment.id}`)).toBeNull();
    expect(await stack.ledgerEntries(customer)).toBe(0);
    // The same body, signed with the webhook's secret, is credited.
    expect((await btcpay.postWebhook(body)).status).toBe(200);
    await expectBalance(customer, 4000, 1);
  });

  it('credits InvoiceReceivedPayment whose payment is already Settled, and its later InvoicePaymentSettled not again', async () => {
    const customer = customerId();
    const topup = await createBtcTopup(customer, 1800);
    const paid = await deposit(topup, BigInt(topup.deposit_amount), 'never');
    const [method] = (await btcpay.greenfield('GET', `/invoices/${paid.invoice_id}/payment-methods`)).body;
    const event = {
      invoiceId: paid.invoice_id,
      metadata: { orderId: String(topup.id) },
      afterExpiration: false,
      paymentMethodId: 'BTC-CHAIN',
      payment: method.payments[0],
    };
    expect(method.payments[0]).toMatchObject({ status: 'Settled' });
    expect((await btcpay.postWebhook(webhookEvent({ type: 'InvoiceReceivedPayment', ...event }))).body).toMatchObject({
      outcome: 'recorded',
    });
    await expectBalance(customer, 1800, 1);
    expect((await btcpay.postWebhook(webhookEvent({ type: 'InvoicePaymentSettled', ...event }))).status).toBe(200);
    await expectBalance(customer, 1800, 1);
  });

  it('is answered 503 while the store is down, and credited once when BTCPay retries', async () => {
    const storeUrl = new URL(inject('mongodbUrl'));
    const proxy = await startTcpProxy(storeUrl.hostname, Number(storeUrl.port));
    storeUrl.host = `127.0.0.1:${proxy.port}`;
    const mongo = await connectMongo(storeUrl.toString(), { serverSelectionTimeoutMS: 500, connectTimeoutMS: 500 });
    const replica = await createPaymentsApp({
      config: loadPaymentsConfig({
        MONGODB_DATABASE_PREFIX: stack.prefix,
        GRPC_PORT: '0',
        GRPC_HOST: '127.0.0.1',
        HOOKS_PORT: '0',
        HOOKS_HOST: '127.0.0.1',
        PAYMENTS_PROVIDER: 'btcpay',
        BTCPAY_URL: btcpay.btcpayUrl,
        BTCPAY_STORE_ID: btcpayStore.storeId,
        BTCPAY_API_KEY: btcpayStore.apiKey,
        BTCPAY_WEBHOOK_SECRET: btcpayStore.webhookSecret,
      }),
      database: mongo.db(databaseName(stack.prefix, 'payments')),
      clock: stack.clock,
      logger: createLogger('payments', { level: 'silent' }),
      wallet: stack.walletClient,
      nats: stack.nats,
      backgroundWork: false,
    });
    await replica.start();
    let storeDown = false;
    btcpay.relayTo(`http://127.0.0.1:${replica.hooksPort}`);
    try {
      const customer = customerId();
      const topup = await createBtcTopup(customer, 3500);
      await proxy.stop();
      storeDown = true;
      const paid = await deposit(topup, BigInt(topup.deposit_amount));
      await eventually(
        async () =>
          expect(stack.sandbox.dispatcher.attempts({ invoiceId: paid.invoice_id }).some((attempt) => attempt.http_status === 503)).toBe(
            true,
          ),
        15_000,
      );
      expect(await stack.ledgerEntries(customer)).toBe(0);
      await proxy.start();
      storeDown = false;
      const attempts = await deliveriesOf(paid.invoice_id, 4);
      expect(attempts.every((attempt) => attempt.outcome === 'delivered')).toBe(true);
      await expectBalance(customer, 3500, 1);
    } finally {
      btcpay.relayTo(stack.paymentsHooksUrl);
      if (storeDown) await proxy.start();
      await replica.stop(0);
      await mongo.close();
      await proxy.stop();
    }
  });

  it('credits what was recorded before a restart, once a crediting worker runs again', async () => {
    const customer = customerId();
    const topup = await createBtcTopup(customer, 2200);
    await stack.payments.topups.crediting.stop();
    try {
      const paid = await deposit(topup, BigInt(topup.deposit_amount), 'twice');
      const attempts = await deliveriesOf(paid.invoice_id, 5);
      expect(attempts.every((attempt) => attempt.http_status === 200)).toBe(true);
      expect(await stack.inboxUnsettled()).toBe(1);
      expect(await stack.ledgerEntries(customer)).toBe(0);
    } finally {
      await stack.payments.topups.crediting.start();
    }
    await expectBalance(customer, 2200, 1);
  });

  it('finds a payment whose webhooks never came by reconciliation', async () => {
    const customer = customerId();
    const topup = await createBtcTopup(customer, 2700);
    await deposit(topup, BigInt(topup.deposit_amount), 'never');
    let credited = 0;
    for (let pass = 0; pass < 50 && credited === 0; pass++) credited += (await stack.payments.topups.reconcileStep(50)).credited;
    expect(credited).toBe(1);
    await expectBalance(customer, 2700, 1);
    expect(await topupOf(customer, topup)).toMatchObject({ status: 'paid' });
  });
});

describe('after the invoice expired', () => {
  it('fails an unpaid top-up on InvoiceExpired, and credits late coin at the market rate', async () => {
    const customer = customerId();
    const unpaid = await createBtcTopup(customer, 3000);
    const late = await createBtcTopup(customer, 3000);
    const lateInvoice = (await stack.mongo.db(databaseName(stack.prefix, 'payments')).collection('topups').findOne({ id: late.id }))!
      .invoice_id as string;
    const unpaidInvoice = (await stack.mongo.db(databaseName(stack.prefix, 'payments')).collection('topups').findOne({ id: unpaid.id }))!
      .invoice_id as string;
    stack.clock.advanceMs(31 * 60_000);
    expect(await deliveriesOf(unpaidInvoice, 1)).toMatchObject([{ status: 'InvoiceExpired', http_status: 200 }]);
    expect(await topupOf(customer, unpaid)).toMatchObject({ status: 'failed', credited_eur_cents: 0 });
    expect(await stack.ledgerEntries(customer)).toBe(0);

    await deliveriesOf(lateInvoice, 1);
    const units = BigInt(late.deposit_amount);
    await deposit(late, units);
    const rate = (await btcpay.greenfield('GET', '/rates?currencyPair=BTC_EUR')).body[0].rate as string;
    const attempts = await deliveriesOf(lateInvoice, 3);
    expect(attempts.map((attempt) => attempt.status)).toEqual(['InvoiceExpired', 'InvoiceReceivedPayment', 'InvoicePaymentSettled']);
    const expected = eurCentsForUnits(units, rate, 8);
    await expectBalance(customer, expected, 1);
    expect(await topupOf(customer, late)).toMatchObject({ credited_eur_cents: expected });
  });
});
