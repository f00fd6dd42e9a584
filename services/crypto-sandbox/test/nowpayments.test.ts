import crypto from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '@mtx/shared/clock';
import { eventually } from '@mtx/shared/testing';
import { type SandboxHarness, startSandboxHarness } from './sandbox-harness';

interface Ipn {
  body: string;
  signature: string | undefined;
  parsed: Record<string, any>;
}

const apiKey = 'fake-nowpayments-key-0123';
const ipnSecret = 'fake-nowpayments-ipn-secret-0123';

let harness: SandboxHarness;
let clock: ManualClock;
let baseUrl: string;
let callbackUrl: string;
let received: Ipn[] = [];

beforeAll(async () => {
  harness = await startSandboxHarness(
    'nowpay',
    () => ({ NOWPAYMENTS_API_KEY: apiKey, NOWPAYMENTS_IPN_SECRET: ipnSecret }),
    ({ body, headers }) => {
      received.push({ body, signature: headers['x-nowpayments-sig'] as string | undefined, parsed: JSON.parse(body) });
      return 200;
    },
  );
  ({ clock, baseUrl } = harness);
  callbackUrl = `${harness.receiverUrl}/v1/hooks/payments/nowpayments`;
});

afterAll(async () => {
  await harness?.stop();
});

beforeEach(() => {
  received = [];
});

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = { 'x-api-key': apiKey }) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** NOWPayments' documented check, written independently of the fake: sort keys recursively, stringify, HMAC-SHA512. */
function expectedSignature(parsed: unknown): string {
  const sort = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sort)
      : value && typeof value === 'object'
        ? Object.keys(value)
            .sort()
            .reduce<Record<string, unknown>>((out, key) => {
              out[key] = sort((value as Record<string, unknown>)[key]);
              return out;
            }, {})
        : value;
  return crypto
    .createHmac('sha512', ipnSecret)
    .update(JSON.stringify(sort(parsed)))
    .digest('hex');
}

const createPayment = (priceEur: number, payCurrency = 'usdttrc20') =>
  api('POST', '/nowpayments/v1/payment', {
    price_amount: priceEur,
    price_currency: 'eur',
    pay_currency: payCurrency,
    ipn_callback_url: callbackUrl,
    order_id: String(crypto.randomInt(1, 1_000_000)),
    is_fixed_rate: true,
  });

const deposit = (address: string, amount: string, delivery = 'normal', asset = 'USDT', chain = 'TRON') =>
  api('POST', '/sandbox/deposits', { address, asset_code: asset, blockchain_code: chain, amount, delivery }, {});

/** The IPNs received so far for a payment id, once `count` of them are in. */
async function ipnsOf(paymentId: number, count: number): Promise<Ipn[]> {
  return eventually(async () => {
    const mine = received.filter((ipn) => ipn.parsed.payment_id === paymentId || ipn.parsed.parent_payment_id === paymentId);
    expect(mine.length).toBe(count);
    return mine;
  });
}

describe('the fake NOWPayments API', () => {
  it('answers /status openly and refuses the merchant endpoints without the key, in NOWPayments error shape', async () => {
    expect(await api('GET', '/nowpayments/v1/status', undefined, {})).toEqual({ status: 200, body: { message: 'OK' } });
    const refused = await api('GET', '/nowpayments/v1/full-currencies', undefined, { 'x-api-key': 'wrong-key-0123' });
    expect(refused).toEqual({ status: 403, body: { status: false, statusCode: 403, code: 'INVALID_API_KEY', message: 'Invalid api key' } });
    const bad = await api('POST', '/nowpayments/v1/payment', { price_amount: 10, price_currency: 'eur', pay_currency: 'nosuchcoin' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: false, statusCode: 400, code: 'INVALID_REQUEST_PARAMS' });
  });

  it('lists currencies with networks and memo flags, the merchant coins, minimums and estimates', async () => {
    const { body } = await api('GET', '/nowpayments/v1/full-currencies');
    const xrp = body.currencies.find((currency: { code: string }) => currency.code === 'XRP');
    expect(xrp).toMatchObject({ extra_id_exists: true, network: 'xrp' });
    expect(body.currencies.find((currency: { code: string }) => currency.code === 'USDTTRC20')).toMatchObject({
      network: 'trx',
      is_stable: true,
    });
    const coins = (await api('GET', '/nowpayments/v1/merchant/coins')).body.selectedCurrencies as string[];
    expect(coins).toContain('USDTTRC20');
    expect(coins).not.toContain('USDCSOL');
    const minimum = await api('GET', '/nowpayments/v1/min-amount?currency_from=btc&currency_to=btc&fiat_equivalent=eur');
    expect(minimum.body).toMatchObject({ currency_from: 'btc', fiat_equivalent: 150 });
    expect(typeof minimum.body.min_amount).toBe('number');
    const estimate = await api('GET', '/nowpayments/v1/estimate?amount=150.00&currency_from=eur&currency_to=btc');
    expect(estimate.body.estimated_amount).toBe(minimum.body.min_amount);
  });

  it('creates a fixed-rate payment with an address, an amount equal to the estimate and an end of quote', async () => {
    const estimate = (await api('GET', '/nowpayments/v1/estimate?amount=25.00&currency_from=eur&currency_to=usdttrc20')).body;
    const { status, body } = await createPayment(25);
    expect(status).toBe(201);
    expect(body).toMatchObject({ payment_status: 'waiting', pay_currency: 'usdttrc20', price_currency: 'eur', price_amount: 25 });
    expect(body.pay_amount).toBe(estimate.estimated_amount);
    expect(body.pay_address).toMatch(/^T/);
    expect(new Date(body.expiration_estimate_date).getTime() - clock.now().getTime()).toBe(20 * 60_000);
    const read = await api('GET', `/nowpayments/v1/payment/${body.payment_id}`);
    expect(read.body).toMatchObject({ payment_id: Number(body.payment_id), payment_status: 'waiting', actually_paid: 0 });
    expect((await api('GET', '/nowpayments/v1/payment/123')).status).toBe(404);
  });
});

describe('the fake NOWPayments IPNs', () => {
  it('reports a short deposit as partially_paid, then the rest as finished, signed over recursively sorted keys', async () => {
    const payment = (await createPayment(10)).body;
    const payUnits = BigInt(Math.round(payment.pay_amount * 1e6));
    await deposit(payment.pay_address, '4000000');
    const short = await ipnsOf(Number(payment.payment_id), 2);
    expect(short.map((ipn) => ipn.parsed.payment_status)).toEqual(['confirming', 'partially_paid']);
    expect(short[1]!.parsed.actually_paid).toBe(4);
    await deposit(payment.pay_address, String(payUnits - 4_000_000n));
    const all = await ipnsOf(Number(payment.payment_id), 6);
    expect(all.slice(2).map((ipn) => ipn.parsed.payment_status)).toEqual(['confirming', 'confirmed', 'sending', 'finished']);
    expect(all[5]!.parsed.actually_paid).toBe(payment.pay_amount);
    for (const ipn of all) {
      expect(ipn.signature).toBe(expectedSignature(ipn.parsed));
      expect(ipn.parsed.fee).toMatchObject({ depositFee: 0, serviceFee: 0 });
      // Not in sorted order on the wire: a receiver must parse and sort before it signs.
      expect(Object.keys(ipn.parsed)).not.toEqual(Object.keys(ipn.parsed).sort());
      expect(ipn.signature).not.toBe(crypto.createHmac('sha512', ipnSecret).update(ipn.body).digest('hex'));
    }
    expect((await api('GET', `/nowpayments/v1/payment/${payment.payment_id}`)).body).toMatchObject({
      payment_status: 'finished',
      actually_paid: payment.pay_amount,
    });
  });

  it('makes a deposit after the payment finished a repeat payment with its own id and the original as parent', async () => {
    const payment = (await createPayment(10)).body;
    await deposit(payment.pay_address, String(Math.round(payment.pay_amount * 1e6)));
    await ipnsOf(Number(payment.payment_id), 4);
    await deposit(payment.pay_address, '1500000');
    const all = await ipnsOf(Number(payment.payment_id), 8);
    const repeat = all.slice(4);
    expect(new Set(repeat.map((ipn) => ipn.parsed.payment_id)).size).toBe(1);
    expect(repeat[0]!.parsed.payment_id).not.toBe(Number(payment.payment_id));
    expect(repeat[3]!.parsed).toMatchObject({
      parent_payment_id: Number(payment.payment_id),
      payment_status: 'finished',
      actually_paid: 1.5,
    });
    // The original's own state does not change.
    expect((await api('GET', `/nowpayments/v1/payment/${payment.payment_id}`)).body.actually_paid).toBe(payment.pay_amount);
  });

  it('makes a deposit after the fixed rate expired a repeat payment too', async () => {
    const payment = (await createPayment(10)).body;
    clock.advanceMs(21 * 60_000);
    expect((await api('GET', `/nowpayments/v1/payment/${payment.payment_id}`)).body.payment_status).toBe('expired');
    await deposit(payment.pay_address, '2000000');
    const late = await ipnsOf(Number(payment.payment_id), 4);
    expect(late[3]!.parsed).toMatchObject({ parent_payment_id: Number(payment.payment_id), actually_paid: 2 });
  });

  it('delivers twice, reversed (highest total first, then the lower ones) and never, as asked', async () => {
    const payment = (await createPayment(10)).body;
    const id = Number(payment.payment_id);
    await deposit(payment.pay_address, '1000000', 'twice');
    const twice = await ipnsOf(id, 3);
    expect(twice.map((ipn) => ipn.parsed.payment_status)).toEqual(['confirming', 'partially_paid', 'partially_paid']);
    await deposit(payment.pay_address, '2000000', 'reversed');
    const reversed = (await ipnsOf(id, 6)).slice(3);
    expect(reversed.map((ipn) => [ipn.parsed.payment_status, ipn.parsed.actually_paid])).toEqual([
      ['partially_paid', 3],
      ['confirming', 3],
      ['partially_paid', 1],
    ]);
    await deposit(payment.pay_address, '1000000', 'never');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await ipnsOf(id, 6)).toHaveLength(6);
    expect((await api('GET', `/nowpayments/v1/payment/${payment.payment_id}`)).body.actually_paid).toBe(4);
  });

  it('sets a status from the control endpoint and sends its IPN (refunded, failed)', async () => {
    const payment = (await createPayment(10)).body;
    const answer = await api('POST', `/sandbox/nowpayments/payments/${payment.payment_id}/status`, { status: 'refunded' }, {});
    expect(answer.status).toBe(200);
    const [ipn] = await ipnsOf(Number(payment.payment_id), 1);
    expect(ipn!.parsed.payment_status).toBe('refunded');
    expect(ipn!.signature).toBe(expectedSignature(ipn!.parsed));
    expect((await api('GET', `/nowpayments/v1/payment/${payment.payment_id}`)).body.payment_status).toBe('refunded');
    expect((await api('POST', '/sandbox/nowpayments/payments/123/status', { status: 'failed' }, {})).status).toBe(404);
  });
});
