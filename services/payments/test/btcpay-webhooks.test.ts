import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '@mtx/shared/errors';
import { onChainCryptoCode, rateOfBtcpay } from '../src/providers/btcpay-assets';
import { createBtcpayWebhooks } from '../src/providers/btcpay-webhooks';

const secret = 'unit-test-webhook-secret';
const webhooks = createBtcpayWebhooks({ storeId: 'Store1', webhookSecret: secret });
const sign = (body: string, key = secret) => `sha256=${crypto.createHmac('sha256', key).update(body, 'utf8').digest('hex')}`;

const payment = {
  id: 'ab12-0',
  receivedDate: 1_800_000_000,
  value: '0.00051234',
  fee: '0.00000100',
  status: 'Settled',
  destination: 'bc1qxyz',
};
const event = (fields: Record<string, unknown>) =>
  Buffer.from(
    JSON.stringify({
      deliveryId: 'd1',
      webhookId: 'w1',
      originalDeliveryId: 'd1',
      isRedelivery: false,
      timestamp: 1_800_000_100,
      storeId: 'Store1',
      invoiceId: 'Inv1',
      metadata: { orderId: '42' },
      ...fields,
    }),
  );

const refusal = (body: Buffer) => {
  try {
    webhooks.parse(body);
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('BTCPay webhook signature', () => {
  it('accepts only sha256=<hex HMAC> of the exact bytes under the webhook secret', () => {
    const body = event({ type: 'InvoiceSettled' });
    expect(webhooks.verify(body, { 'btcpay-sig': sign(body.toString()) })).toBe(true);
    expect(webhooks.verify(body, { 'btcpay-sig': sign(body.toString()).toUpperCase().replace('SHA256=', 'sha256=') })).toBe(true);
    for (const signature of [
      undefined,
      '',
      sign(body.toString(), 'another-secret'),
      sign(`${body.toString()} `),
      sign(body.toString()).slice(7),
      'sha256=zz',
    ])
      expect(webhooks.verify(body, signature === undefined ? {} : { 'btcpay-sig': signature }), String(signature)).toBe(false);
    // The sandbox's header is not BTCPay's.
    expect(webhooks.verify(body, { 'x-signature': sign(body.toString()) })).toBe(false);
  });
});

describe('BTCPay webhook events', () => {
  it('reads a settled payment as a confirmed transaction of coin, with the invoice, order and afterExpiration', () => {
    expect(webhooks.parse(event({ type: 'InvoicePaymentSettled', afterExpiration: true, paymentMethodId: 'BTC-CHAIN', payment }))).toEqual({
      invoiceId: 'Inv1',
      orderId: '42',
      assetCode: 'BTC',
      blockchainCode: 'BTC',
      transaction: {
        transactionId: 'ab12-0',
        amountDecimal: '0.00051234',
        status: 'confirmed',
        providerStatus: 'Settled',
        receivedAt: new Date(1_800_000_000_000),
        afterExpiration: true,
      },
    });
  });

  it("takes InvoiceReceivedPayment by its payment's status: Processing waits, Settled credits, Invalid fails", () => {
    const statusOf = (status: string) =>
      webhooks.parse(
        event({ type: 'InvoiceReceivedPayment', afterExpiration: false, paymentMethodId: 'LTC-CHAIN', payment: { ...payment, status } }),
      ).transaction?.status;
    expect(statusOf('Processing')).toBe('confirming');
    expect(statusOf('Settled')).toBe('confirmed');
    expect(statusOf('Invalid')).toBe('failed');
  });

  it('moves no money on invoice notices or other event types', () => {
    for (const type of ['InvoiceExpired', 'InvoiceSettled', 'InvoiceProcessing', 'InvoiceCreated', 'InvoiceInvalid'])
      expect(webhooks.parse(event({ type })).transaction, type).toBeNull();
    expect(webhooks.parse(Buffer.from(JSON.stringify({ type: 'PayoutCreated', payoutId: 'p1' }))).transaction).toBeNull();
  });

  it('refuses another store (not_found) and bodies that are not BTCPay events (invalid_request)', () => {
    expect(refusal(event({ type: 'InvoicePaymentSettled', storeId: 'Store2', payment }))).toMatchObject({ code: 'not_found' });
    expect(refusal(event({ type: 'InvoiceExpired', storeId: 'Store2' }))).toMatchObject({ code: 'not_found' });
    for (const body of [
      Buffer.from('{"type":'),
      Buffer.from('[]'),
      event({ type: 'InvoicePaymentSettled', invoiceId: undefined, payment }),
      event({ type: 'InvoicePaymentSettled', paymentMethodId: 'BTC-CHAIN', payment: { ...payment, value: '-1' } }),
      event({ type: 'InvoicePaymentSettled', paymentMethodId: 'BTC-CHAIN', payment: { ...payment, id: undefined } }),
      event({ type: 'InvoiceReceivedPayment', paymentMethodId: 'BTC-CHAIN', payment: { ...payment, status: 'Unknown' } }),
    ]) {
      const error = refusal(body);
      expect(error, body.toString()).toBeInstanceOf(AppError);
      expect(error, body.toString()).toMatchObject({ code: 'invalid_request' });
    }
  });

  it('names on-chain methods by crypto code, BTCPay 1 ids included, and never Lightning', () => {
    expect(['BTC-CHAIN', 'BTC', 'LTC-CHAIN', 'doge-CHAIN'].map(onChainCryptoCode)).toEqual(['BTC', 'BTC', 'LTC', 'DOGE']);
    expect(['BTC-LN', 'BTC-LNURL', 'BTC-LightningNetwork', '', 42].map(onChainCryptoCode)).toEqual([null, null, null, null, null]);
    // A Lightning payment cannot be a top-up's: it reaches the crediting as an asset mismatch.
    expect(webhooks.parse(event({ type: 'InvoicePaymentSettled', paymentMethodId: 'BTC-LN', payment })).assetCode).not.toBe('BTC');
  });

  it('carries rates with at most 8 decimals, cut, and refuses non-rates', () => {
    expect(rateOfBtcpay('58123.123456789')).toBe('58123.12345678');
    expect(rateOfBtcpay('0.0000000199')).toBe('0.00000001');
    expect(rateOfBtcpay(75.5)).toBe('75.5');
    for (const value of ['0', '0.000000001', '-1', 'abc', null, undefined, '1e5']) expect(rateOfBtcpay(value), String(value)).toBeNull();
  });
});
