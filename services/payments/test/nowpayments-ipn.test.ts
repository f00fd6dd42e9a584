import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '@mtx/shared/logger';
import { databaseName } from '@mtx/shared/mongo';
import { connectNats } from '@mtx/shared/nats';
import { eventually } from '@mtx/shared/testing';
import type { WalletStack } from '../../../test/e2e/wallet-stack';
import { createNowPaymentsProvider } from '../src/providers/nowpayments';
import { createPaymentsStore } from '../src/store/payments-store';
import { startReplica } from './replica';
import {
  balanceOf,
  deliveriesSettled,
  deposit,
  expectCredited,
  ipnOf,
  nowPaymentsApiKey,
  nowPaymentsIpnSecret,
  postIpn,
  signIpn,
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
const createTopup = (amountEurCents: number) =>
  payments<NowPaymentsTopup>('CreateTopup', {
    customer_id: customerId(),
    amount_eur_cents: amountEurCents,
    asset_code: 'USDT',
    blockchain_code: 'TRON',
  });
const invoiceIdOf = async (topup: NowPaymentsTopup) => (await store().topups.findOne({ _id: String(topup.id) }))!.invoice_id;
/** The top-up's amount in whole USDT (6 decimals), as NOWPayments writes it. */
const coins = (units: bigint) => Number(units) / 1e6;
const nowPaymentsProvider = () =>
  createNowPaymentsProvider({
    apiUrl: `${stack.sandboxUrl}/nowpayments/v1`,
    apiKey: nowPaymentsApiKey,
    ipnSecret: nowPaymentsIpnSecret,
    callbackUrl: `${stack.paymentsHooksUrl}/v1/hooks/payments/nowpayments`,
    timeoutMs: 5_000,
  });

describe('IPN signatures', () => {
  it('refuses a bad, missing or stale signature with 401 and records and credits nothing', async () => {
    const topup = await createTopup(1_000);
    const paymentId = await invoiceIdOf(topup);
    const total = BigInt(topup.deposit_amount);
    await deposit(stack, topup, total, 'never');
    const ipn = ipnOf(topup, paymentId, { status: 'finished', actuallyPaid: coins(total), updatedAt: stack.clock.now() });
    const body = JSON.stringify(ipn);
    expect((await postIpn(stack.paymentsHooksUrl, body, signIpn(ipn, 'another-ipn-secret-0123'))).status).toBe(401);
    expect((await postIpn(stack.paymentsHooksUrl, body, null)).status).toBe(401);
    expect((await postIpn(stack.paymentsHooksUrl, body, 'ab'.repeat(64))).status).toBe(401);
    // Signed for one amount, sent with a larger one.
    const tampered = JSON.stringify({ ...ipn, actually_paid: coins(total * 10n) });
    expect((await postIpn(stack.paymentsHooksUrl, tampered, signIpn(ipn))).status).toBe(401);
    expect((await postIpn(stack.paymentsHooksUrl, 'not json', signIpn(ipn))).status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await store().events.countDocuments({ topup_id: Number(topup.id) })).toBe(0);
    expect(await stack.inboxRecord(`nowpayments:${paymentId}@${coins(total)}`)).toBeNull();
    expect(await balanceOf(stack, topup.customer_id)).toBe(0);
    expect(await stack.ledgerEntries(topup.customer_id)).toBe(0);
  });

  it('verifies whatever the key order and number spelling of the body, nested fee included, and credits once', async () => {
    const topup = await createTopup(1_000);
    const paymentId = await invoiceIdOf(topup);
    const total = BigInt(topup.deposit_amount);
    await deposit(stack, topup, total, 'never');
    const ipn = ipnOf(topup, paymentId, { status: 'finished', actuallyPaid: coins(total), updatedAt: stack.clock.now() });
    const signature = signIpn(ipn);
    const reversed = (value: Record<string, unknown>) => Object.fromEntries(Object.entries(value).reverse());
    const shuffled = JSON.stringify(reversed({ ...ipn, fee: reversed(ipn.fee as Record<string, unknown>) }));
    // The same values spelled otherwise: 1e-7 as 0.00000010, the amount with a trailing zero, spaces between tokens.
    const respelled = JSON.stringify(ipn, null, 2)
      .replace('"depositFee": 1e-7', '"depositFee": 0.00000010')
      .replace(`"actually_paid": ${coins(total)}`, `"actually_paid": ${coins(total).toFixed(7)}`);
    expect(respelled).toContain('0.00000010');
    const answers = [];
    for (const body of [shuffled, respelled, JSON.stringify(ipn)]) answers.push(await postIpn(stack.paymentsHooksUrl, body, signature));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    await expectCredited(stack, topup, 1_000);
    expect(await stack.ledgerEntries(topup.customer_id)).toBe(1);
  });
});

describe('IPN delivery', () => {
  it('credits duplicates and out-of-order totals exactly once: the highest total first, the lower ones after', async () => {
    const topup = await createTopup(1_500);
    const total = BigInt(topup.deposit_amount);
    const half = total / 2n;
    await deposit(stack, topup, half, 'twice');
    await expectCredited(stack, topup, Number((half * 1500n) / total));
    await deposit(stack, topup, total - half, 'reversed');
    await deliveriesSettled(stack);
    await expectCredited(stack, topup, 1_500);
    // A lower total signed by NOWPayments after the highest one credits nothing.
    const paymentId = await invoiceIdOf(topup);
    const stale = ipnOf(topup, paymentId, { status: 'partially_paid', actuallyPaid: coins(half / 2n), updatedAt: stack.clock.now() });
    expect((await postIpn(stack.paymentsHooksUrl, JSON.stringify(stale), signIpn(stale))).status).toBe(200);
    await expectCredited(stack, topup, 1_500);
    expect(await stack.ledgerEntries(topup.customer_id)).toBe(2);
  });

  it('credits nothing for failed, expired or refunded payments, debits nothing, and counts each for the operator', async () => {
    const topup = await createTopup(1_000);
    const paymentId = await invoiceIdOf(topup);
    const total = BigInt(topup.deposit_amount);
    await deposit(stack, topup, total);
    await expectCredited(stack, topup, 1_000);
    await deliveriesSettled(stack);
    for (const status of ['failed', 'expired', 'refunded']) {
      const ipn = ipnOf(topup, paymentId, { status, actuallyPaid: coins(total * 2n), updatedAt: stack.clock.now() });
      const body = Buffer.from(JSON.stringify(ipn));
      // What the hook handler counts in mtx.payments.provider_failures, by provider status.
      const answer = await stack.payments.topups.handlePostback('nowpayments', body, { 'x-nowpayments-sig': signIpn(ipn) });
      expect(answer).toMatchObject({ outcome: 'ignored', credited_eur_cents: 0, provider_failure: status });
      expect((await postIpn(stack.paymentsHooksUrl, body.toString(), signIpn(ipn))).status).toBe(200);
    }
    // The fake's own refund notice, over HTTP.
    const refund = await stack.sandboxRequest('POST', `/sandbox/nowpayments/payments/${paymentId}/status`, { status: 'refunded' });
    expect(refund.status).toBe(200);
    await deliveriesSettled(stack);
    await expectCredited(stack, topup, 1_000);
    expect(await stack.ledgerEntries(topup.customer_id)).toBe(1);
  });

  it('finds a payment whose IPNs never came by reconciliation (GET /payment), and credits it once', async () => {
    const topup = await createTopup(1_100);
    const total = BigInt(topup.deposit_amount);
    await deposit(stack, topup, total, 'never');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await balanceOf(stack, topup.customer_id)).toBe(0);
    for (let pass = 0; pass < 2; pass++) {
      for (;;) {
        const step = await stack.payments.topups.reconcileStep(500);
        if (step.wrapped) break;
      }
    }
    await expectCredited(stack, topup, 1_100);
    expect(await stack.ledgerEntries(topup.customer_id)).toBe(1);
  });
});

describe('failures on our side', () => {
  it('answers 503 while the inbox is down, so NOWPayments retries, and credits the retry once', async () => {
    const nats = await connectNats(inject('natsUrl'), 'payments-inbox-down', createLogger('nats', { level: 'silent' }));
    // A started replica (see startReplica): its hook listener is what NOWPayments calls.
    const replica = await startReplica(stack, { provider: nowPaymentsProvider, nats, announceChanges: false });
    try {
      const topup = await createTopup(1_300);
      const paymentId = await invoiceIdOf(topup);
      const total = BigInt(topup.deposit_amount);
      await deposit(stack, topup, total, 'never');
      const ipn = ipnOf(topup, paymentId, { status: 'finished', actuallyPaid: coins(total), updatedAt: stack.clock.now() });
      await nats.close();
      const down = await postIpn(`http://127.0.0.1:${replica.app.hooksPort}`, JSON.stringify(ipn), signIpn(ipn));
      expect(down.status).toBe(503);
      expect(await balanceOf(stack, topup.customer_id)).toBe(0);
      // NOWPayments' retry reaches a replica whose store answers.
      expect((await postIpn(stack.paymentsHooksUrl, JSON.stringify(ipn), signIpn(ipn))).status).toBe(200);
      expect((await postIpn(stack.paymentsHooksUrl, JSON.stringify(ipn), signIpn(ipn))).status).toBe(200);
      await expectCredited(stack, topup, 1_300);
      expect(await stack.ledgerEntries(topup.customer_id)).toBe(1);
    } finally {
      await replica.close();
    }
  });

  it('credits once what was recorded before a restart and not yet credited', async () => {
    const topup = await createTopup(1_400);
    const total = BigInt(topup.deposit_amount);
    await stack.payments.topups.crediting.stop();
    try {
      await deposit(stack, topup, total);
      await deliveriesSettled(stack);
      await eventually(async () => expect(await stack.inboxUnsettled()).toBeGreaterThan(0));
      expect(await balanceOf(stack, topup.customer_id)).toBe(0);
      // Another process takes over the unsettled record, as a restarted replica does.
      const restarted = await startReplica(stack, { provider: nowPaymentsProvider });
      try {
        await restarted.app.topups.crediting.start();
        await expectCredited(stack, topup, 1_400);
      } finally {
        await restarted.close();
      }
    } finally {
      await stack.payments.topups.crediting.start();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await balanceOf(stack, topup.customer_id)).toBe(1_400);
    expect(await stack.ledgerEntries(topup.customer_id)).toBe(1);
  });
});
