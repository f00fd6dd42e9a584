import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '@mtx/shared/testing';
import { startWalletStack, type WalletStack } from '../../../test/e2e/wallet-stack';
import { startReplica } from './replica';
import { payThroughSandbox, postbackBody } from './sandbox-payments';

let stack: WalletStack;

beforeAll(async () => {
  stack = await startWalletStack({ mongodbUrl: inject('mongodbUrl'), natsUrl: inject('natsUrl') });
});

afterAll(async () => stack?.close());

afterEach(async () => {
  expect((await stack.audit()).breaches).toEqual([]);
});

const lingerMs = 1_000;

describe('crediting batches', () => {
  it('credits a lone postback at once, a full batch at once, and otherwise waits up to the linger for more', async () => {
    const creditManyCalls: Array<{ atMs: number; entryIds: string[] }> = [];
    // This replica alone takes the inbox's deliveries during the test.
    await stack.payments.topups.crediting.stop();
    const replica = await startReplica(stack, {
      environment: { PAYMENTS_CREDIT_LINGER_MS: String(lingerMs), PAYMENTS_CREDIT_BATCH_MAX: '3' },
      wallet: (real) => ({
        ...real,
        call: <T>(method: string, request: unknown, options?: { deadlineMs?: number }) => {
          if (method === 'CreditMany') {
            const { credits } = request as { credits: Array<{ entry_id: string }> };
            creditManyCalls.push({ atMs: performance.now(), entryIds: credits.map((credit) => credit.entry_id) });
          }
          return real.call<T>(method, request, options);
        },
      }),
    });
    try {
      await replica.app.topups.crediting.start();
      const customers = Array.from({ length: 5 }, () => `cus_${crypto.randomBytes(6).toString('hex')}`);
      const bodies: string[] = [];
      for (const customer of customers) {
        const topup = await replica.app.topups.createTopup({
          customerId: customer,
          amountEurCents: 1200,
          assetCode: 'USDT',
          blockchainCode: 'TRON',
        });
        const payment = await payThroughSandbox(stack, topup, topup.deposit_amount);
        bodies.push(postbackBody(stack, topup, payment, topup.deposit_amount));
      }
      const deliver = (body: string) =>
        replica.app.topups.handlePostback('sandbox', Buffer.from(body), { 'x-signature': stack.sign(body) });

      // Nothing went for a while: the first postback is credited without waiting out the linger.
      const firstRecordedAtMs = performance.now();
      expect(await deliver(bodies[0]!)).toMatchObject({ outcome: 'recorded' });
      await eventually(async () => expect(await stack.ledgerEntries(customers[0]!)).toBe(1), 5_000, 10);
      expect(performance.now() - firstRecordedAtMs).toBeLessThan(lingerMs);
      expect(creditManyCalls.map((call) => call.entryIds.length)).toEqual([1]);

      // Four more right behind it: three fill a batch, which goes at once; the fourth waits for company until
      // lingerMs after that batch went, then goes alone.
      const answers = await Promise.all(bodies.slice(1).map(deliver));
      expect(answers.map((answer) => answer.outcome)).toEqual(['recorded', 'recorded', 'recorded', 'recorded']);
      for (const customer of customers) await eventually(async () => expect(await stack.ledgerEntries(customer)).toBe(1), 10_000, 20);
      expect(creditManyCalls.map((call) => call.entryIds.length)).toEqual([1, 3, 1]);
      const [first, full, last] = creditManyCalls as [
        (typeof creditManyCalls)[0],
        (typeof creditManyCalls)[0],
        (typeof creditManyCalls)[0],
      ];
      expect(full.atMs - first.atMs).toBeLessThan(lingerMs);
      expect(last.atMs - full.atMs).toBeGreaterThanOrEqual(lingerMs - 200);
      // Each credited once, in the wallet and as the top-up sees it.
      expect(new Set(creditManyCalls.flatMap((call) => call.entryIds)).size).toBe(5);
      for (const customer of customers)
        expect(await stack.walletClient.call('GetWallet', { customer_id: customer })).toMatchObject({ balance_eur_cents: 1200 });
      await eventually(async () => expect(await stack.inboxUnsettled()).toBe(0));
    } finally {
      await replica.close();
      await stack.payments.topups.crediting.start();
    }
  });
});
