import crypto from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '@mtx/shared/clock';
import { eventually } from '@mtx/shared/testing';
import { type SandboxHarness, startSandboxHarness } from './sandbox-harness';
import { catalog, rateEur } from '../src/domain/catalog';

/** A webhook as the receiver got it: the raw bytes, the signature header, the parsed event. */
interface Received {
  body: string;
  signature: string | undefined;
  event: Record<string, any>;
}

const storeId = 'TestStore42';
const apiKey = 'test-btcpay-api-key';
const webhookSecret = 'test-btcpay-webhook-secret';
const token = { authorization: `token ${apiKey}` };

let harness: SandboxHarness;
let clock: ManualClock;
let baseUrl: string;
let received: Received[] = [];
let scriptedAnswers: number[] = [];

beforeAll(async () => {
  harness = await startSandboxHarness(
    'btcpayfake',
    (receiverUrl) => ({
      BTCPAY_WEBHOOK_URL: `${receiverUrl}/btcpay-hook`,
      BTCPAY_STORE_ID: storeId,
      BTCPAY_API_KEY: apiKey,
      BTCPAY_WEBHOOK_SECRET: webhookSecret,
      BTCPAY_EXPIRY_CHECK_MS: '50',
      POSTBACK_LATE_DELAY_MS: '200',
    }),
    ({ body, headers }) => {
      received.push({ body, signature: headers['btcpay-sig'] as string | undefined, event: JSON.parse(body) });
      return scriptedAnswers.shift() ?? 200;
    },
  );
  ({ clock, baseUrl } = harness);
});

afterAll(async () => {
  await harness?.stop();
});

beforeEach(() => {
  received = [];
  scriptedAnswers = [];
});

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = token) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as any) : undefined };
}

const greenfield = `/btcpay/api/v1/stores/${storeId}`;

async function createInvoice(amount = '50.00', extra: Record<string, unknown> = {}, checkout: Record<string, unknown> = {}) {
  return api('POST', `${greenfield}/invoices`, {
    amount,
    currency: 'EUR',
    metadata: { orderId: String(crypto.randomInt(1, 1_000_000)) },
    checkout: { expirationMinutes: 30, paymentMethods: ['BTC-CHAIN'], ...checkout },
    ...extra,
  });
}

/** An invoice and its on-chain payment method. */
async function openInvoice(amount = '50.00') {
  const invoice = (await createInvoice(amount)).body;
  const [method] = (await api('GET', `${greenfield}/invoices/${invoice.id}/payment-methods`)).body;
  return { invoice, method };
}

/** Smallest units of a BTC decimal string. */
const sats = (value: string) => {
  const [whole, fraction = ''] = value.split('.');
  return BigInt(whole!) * 100_000_000n + BigInt(fraction.padEnd(8, '0'));
};

const deposit = (address: string, amount: bigint, delivery?: string) =>
  api(
    'POST',
    '/sandbox/deposits',
    { address, asset_code: 'BTC', blockchain_code: 'BTC', amount: amount.toString(), ...(delivery ? { delivery } : {}) },
    {},
  );

const signatureOf = (body: string) => `sha256=${crypto.createHmac('sha256', webhookSecret).update(body, 'utf8').digest('hex')}`;

const types = () => received.map((delivery) => delivery.event.type);

describe('the Greenfield API', () => {
  it('refuses requests without the key, with a wrong key, or for another store, in Greenfield shapes', async () => {
    for (const headers of [{}, { authorization: 'token wrong-key-0000' }, { authorization: apiKey }] as Record<string, string>[]) {
      const refused = await api('GET', `${greenfield}/payment-methods`, undefined, headers);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ code: 'unauthenticated', message: expect.any(String) });
    }
    const otherStore = await api('GET', '/btcpay/api/v1/stores/SomeoneElse/payment-methods');
    expect(otherStore.status).toBe(403);
    expect((await api('GET', `${greenfield}/invoices/nope`)).body).toMatchObject({ code: 'invoice-not-found' });
  });

  it('lists on-chain and Lightning methods, and prices EUR pairs at the sandbox rate', async () => {
    const methods = (await api('GET', `${greenfield}/payment-methods?onlyEnabled=true`)).body;
    expect(methods.map((method: { paymentMethodId: string }) => method.paymentMethodId)).toEqual([
      'BTC-CHAIN',
      'BTC-LN',
      'LTC-CHAIN',
      'DOGE-CHAIN',
    ]);
    const rates = (await api('GET', `${greenfield}/rates?currencyPair=BTC_EUR&currencyPair=LTC_EUR&currencyPair=XMR_EUR`)).body;
    const btc = catalog.find((asset) => asset.coin.code === 'BTC')!;
    expect(rates[0]).toEqual({ currencyPair: 'BTC_EUR', errors: [], rate: rateEur(btc.coin, clock.now(), 60_000) });
    expect(rates[1]).toMatchObject({ currencyPair: 'LTC_EUR', errors: [] });
    expect(rates[2]).toMatchObject({ currencyPair: 'XMR_EUR', rate: null });
    expect(rates[2].errors).toHaveLength(1);
  });

  it('creates an invoice whose on-chain method has an address and the EUR amount at its rate, rounded up', async () => {
    const created = await createInvoice('123.45');
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      storeId,
      amount: '123.45',
      currency: 'EUR',
      status: 'New',
      checkout: { paymentMethods: ['BTC-CHAIN'], expirationMinutes: 30 },
      expirationTime: Math.floor(clock.now().getTime() / 1000) + 30 * 60,
    });
    expect(created.body.metadata.orderId).toMatch(/^\d+$/);
    for (const path of [`${greenfield}/invoices/${created.body.id}`, `/btcpay/api/v1/invoices/${created.body.id}`])
      expect((await api('GET', path)).body).toMatchObject({ id: created.body.id, status: 'New' });
    const [method] = (await api('GET', `${greenfield}/invoices/${created.body.id}/payment-methods`)).body;
    expect(method).toMatchObject({ paymentMethodId: 'BTC-CHAIN', currency: 'BTC', payments: [] });
    expect(method.destination).toMatch(/^bc1q/);
    const units = sats(method.amount);
    const scaledRate = sats(method.rate);
    // units × rate covers 123.45 EUR, one unit less does not.
    expect(units * scaledRate >= 12_345n * 10n ** 14n).toBe(true);
    expect((units - 1n) * scaledRate < 12_345n * 10n ** 14n).toBe(true);
  });

  it('refuses invoices it cannot make, writing nothing', async () => {
    const before = await harness.database.collection('btcpay_invoices').countDocuments();
    for (const [amount, extra, checkout] of [
      ['0', {}, {}],
      ['1.234', {}, {}],
      ['10.00', { currency: 'USD' }, {}],
      ['10.00', {}, { paymentMethods: ['BTC-LN'] }],
      ['10.00', {}, { paymentMethods: ['BTC-CHAIN', 'LTC-CHAIN'] }],
      ['10.00', {}, { expirationMinutes: 'soon' }],
    ] as const) {
      const refused = await createInvoice(amount, extra, checkout);
      expect(refused.status, JSON.stringify([amount, extra, checkout])).toBe(400);
      expect(refused.body[0]).toMatchObject({ path: expect.any(String), message: expect.any(String) });
    }
    expect(await harness.database.collection('btcpay_invoices').countDocuments()).toBe(before);
  });
});

describe('webhooks', () => {
  it('sends a full payment as BTCPay does, signed over the raw body', async () => {
    const { invoice, method } = await openInvoice();
    const paid = await deposit(method.destination, sats(method.amount));
    expect(paid.status).toBe(201);
    await eventually(async () => expect(received).toHaveLength(4));
    expect(types()).toEqual(['InvoiceReceivedPayment', 'InvoiceProcessing', 'InvoicePaymentSettled', 'InvoiceSettled']);
    for (const delivery of received) {
      expect(delivery.signature).toBe(signatureOf(delivery.body));
      expect(delivery.body).toContain('\n  "deliveryId"');
      expect(delivery.event).toMatchObject({
        webhookId: expect.any(String),
        isRedelivery: false,
        originalDeliveryId: delivery.event.deliveryId,
        timestamp: Math.floor(clock.now().getTime() / 1000),
        storeId,
        invoiceId: invoice.id,
        metadata: invoice.metadata,
      });
    }
    const [receivedPayment, , settledPayment, settled] = received.map((delivery) => delivery.event);
    const payment = { id: `${paid.body.transaction_id}-0`, value: method.amount, destination: method.destination, fee: '0' };
    expect(receivedPayment).toMatchObject({
      afterExpiration: false,
      paymentMethodId: 'BTC-CHAIN',
      payment: { ...payment, status: 'Processing' },
    });
    expect(settledPayment).toMatchObject({
      afterExpiration: false,
      paymentMethodId: 'BTC-CHAIN',
      payment: { ...payment, status: 'Settled' },
    });
    expect(settled).toMatchObject({ manuallyMarked: false, overPaid: false });
    const [read] = (await api('GET', `${greenfield}/invoices/${invoice.id}/payment-methods`)).body;
    expect(read.payments).toEqual([{ ...payment, status: 'Settled', receivedDate: receivedPayment!.payment.receivedDate }]);
    expect((await api('GET', `${greenfield}/invoices/${invoice.id}`)).body).toMatchObject({ status: 'Settled', additionalStatus: 'None' });
  });

  it('settles no invoice on a partial payment, and reports the over-payment that completes it', async () => {
    const { invoice, method } = await openInvoice();
    const due = sats(method.amount);
    await deposit(method.destination, due / 2n);
    await eventually(async () => expect(types()).toEqual(['InvoiceReceivedPayment', 'InvoicePaymentSettled']));
    expect((await api('GET', `${greenfield}/invoices/${invoice.id}`)).body).toMatchObject({
      status: 'New',
      additionalStatus: 'PaidPartial',
    });
    received = [];
    await deposit(method.destination, due);
    await eventually(async () => expect(received).toHaveLength(4));
    expect(received[1]!.event).toMatchObject({ type: 'InvoiceProcessing', overPaid: true });
    expect((await api('GET', `${greenfield}/invoices/${invoice.id}`)).body).toMatchObject({
      status: 'Settled',
      additionalStatus: 'PaidOver',
    });
  });

  it('redelivers a refused delivery with a new id and the same event, and duplicates on request', async () => {
    const { method } = await openInvoice();
    scriptedAnswers = [503];
    await deposit(method.destination, sats(method.amount) / 4n);
    await eventually(async () => expect(received).toHaveLength(3));
    const [refused, retried] = received.map((delivery) => delivery.event);
    expect(retried).toMatchObject({
      type: refused!.type,
      isRedelivery: true,
      originalDeliveryId: refused!.deliveryId,
      timestamp: refused!.timestamp,
    });
    expect(retried!.deliveryId).not.toBe(refused!.deliveryId);
    expect(received[1]!.signature).toBe(signatureOf(received[1]!.body));

    received = [];
    await deposit(method.destination, 1_000n, 'twice');
    await eventually(async () => expect(received).toHaveLength(3));
    const [, settled, again] = received.map((delivery) => delivery.event);
    expect(again).toMatchObject({
      type: 'InvoicePaymentSettled',
      isRedelivery: true,
      originalDeliveryId: settled!.deliveryId,
      payment: settled!.payment,
    });
  });

  it('sends out of order when asked, and nothing for never', async () => {
    const { invoice, method } = await openInvoice();
    await deposit(method.destination, 1_000n, 'reversed');
    await eventually(async () => expect(types()).toEqual(['InvoicePaymentSettled', 'InvoiceReceivedPayment']));
    received = [];
    await deposit(method.destination, 2_000n, 'never');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(received).toEqual([]);
    const [read] = (await api('GET', `${greenfield}/invoices/${invoice.id}/payment-methods`)).body;
    expect(read.payments).toHaveLength(2);
  });

  it('expires an unpaid invoice once its time passes, then flags a late payment afterExpiration', async () => {
    const { invoice, method } = await openInvoice();
    const { invoice: paidInvoice, method: paidMethod } = await openInvoice();
    await deposit(paidMethod.destination, sats(paidMethod.amount), 'never');
    clock.advanceMs(31 * 60_000);
    // Every invoice of this file left unpaid expires now; these two are the ones looked at.
    const about = (invoiceId: string) => received.filter((delivery) => delivery.event.invoiceId === invoiceId);
    await eventually(async () => expect(about(invoice.id).map((delivery) => delivery.event.type)).toEqual(['InvoiceExpired']));
    expect(about(invoice.id)[0]!.event).toMatchObject({ storeId, partiallyPaid: false });
    expect(about(invoice.id)[0]!.signature).toBe(signatureOf(about(invoice.id)[0]!.body));
    expect((await api('GET', `${greenfield}/invoices/${invoice.id}`)).body.status).toBe('Expired');
    expect((await api('GET', `${greenfield}/invoices/${paidInvoice.id}`)).body.status).toBe('Settled');
    // Sent once, and never for the invoice paid in time.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(about(invoice.id)).toHaveLength(1);
    expect(about(paidInvoice.id)).toEqual([]);
    received = [];
    await deposit(method.destination, sats(method.amount));
    await eventually(async () => expect(types()).toEqual(['InvoiceReceivedPayment', 'InvoicePaymentSettled']));
    for (const delivery of received) expect(delivery.event.afterExpiration).toBe(true);
  });
});
