import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { startNats } from '@mtx/devstack/local';
import { eventually } from '@mtx/shared/testing';
import { startWalletStack, type StackCustomer, type WalletStack } from '../../../test/e2e/wallet-stack';

/**
 * GET /v1/wallet through the gateway's read model (a long freshness window, so nothing here is refreshed by
 * time): every answer must still follow each change, through the backends' announcements or, for changes made
 * through this gateway, at once.
 */
let stack: WalletStack;

beforeAll(async () => {
  stack = await startWalletStack({ mongodbUrl: inject('mongodbUrl'), natsUrl: inject('natsUrl'), billing: 'stub', readModel: true });
});

afterAll(async () => {
  await stack?.close();
});

afterEach(async () => {
  expect((await stack.audit()).breaches).toEqual([]);
});

const readWallet = async (customer: StackCustomer) => {
  const answer = await stack.request('GET', '/v1/wallet', { key: customer.read_key });
  expect(answer.status).toBe(200);
  return answer.body;
};

describe('GET /v1/wallet read model', () => {
  it('answers repeated reads from memory, the same answer the backends gave', async () => {
    const customer = await stack.newCustomer();
    stack.setUpcoming(customer.customer_id, [
      { when: '2027-03-10T09:00:00.000Z', amount_eur_cents: 1200, kind: 'seat', label: 'MT5 live' },
    ]);
    const callsBefore = stack.upcomingCalls();
    const first = await readWallet(customer);
    const again = await Promise.all(Array.from({ length: 10 }, () => readWallet(customer)));
    for (const answer of again) expect(answer).toEqual(first);
    expect(first).toMatchObject({ balance_eur_cents: 0, upcoming_total_eur_cents: 1200, shortfall_eur_cents: 1200 });
    expect(stack.upcomingCalls() - callsBefore).toBe(1);
  });

  it('follows a credit made behind the gateway (the wallet announces it) and a billing change (billing announces it)', async () => {
    const customer = await stack.newCustomer();
    expect(await readWallet(customer)).toMatchObject({ balance_eur_cents: 0 });
    await stack.walletClient.call('Credit', {
      customer_id: customer.customer_id,
      entry_id: `adjustment:${customer.customer_id}:1`,
      amount_eur_cents: 2500,
      reason: 'adjustment',
      reference: '',
    });
    await eventually(
      async () => expect(await readWallet(customer)).toMatchObject({ balance_eur_cents: 2500, covers_upcoming: true }),
      5_000,
    );

    stack.setUpcoming(customer.customer_id, [
      { when: '2027-03-12T09:00:00.000Z', amount_eur_cents: 3000, kind: 'server', label: 'Private server' },
    ]);
    await eventually(
      async () =>
        expect(await readWallet(customer)).toMatchObject({
          upcoming_total_eur_cents: 3000,
          shortfall_eur_cents: 500,
          covers_upcoming: false,
        }),
      5_000,
    );
    // Another customer's announcement leaves this one's answer where it was.
    const other = await stack.newCustomer();
    const callsBefore = stack.upcomingCalls();
    stack.setUpcoming(other.customer_id, []);
    await readWallet(customer);
    expect(stack.upcomingCalls()).toBe(callsBefore);
  });

  it("shows this gateway's own writes on the very next read: a top-up created, then credited by its postback", async () => {
    const customer = await stack.newCustomer();
    expect((await readWallet(customer)).pending_topups).toEqual([]);
    const created = await stack.request('POST', '/v1/wallet/topup', {
      key: customer.full_key,
      body: { amount_eur_cents: 2000, asset_code: 'USDT', blockchain_code: 'TRON' },
    });
    expect(created.status).toBe(201);
    const pending = await readWallet(customer);
    expect(pending.pending_topups.map((topup: { id: number }) => topup.id)).toEqual([created.body.id]);

    const payment = (
      await stack.sandboxRequest('POST', '/sandbox/deposits', {
        address: created.body.deposit_address,
        asset_code: 'USDT',
        blockchain_code: 'TRON',
        amount: created.body.deposit_amount,
        delivery: 'never',
      })
    ).body as { transaction_id: string; invoice_id: string; received_at: string };
    const body = JSON.stringify({
      type: 'transaction',
      delivery_id: `dlv_${crypto.randomBytes(6).toString('hex')}`,
      timestamp: stack.clock.now().toISOString(),
      invoice_id: payment.invoice_id,
      order_id: String(created.body.id),
      address: created.body.deposit_address,
      asset_code: 'USDT',
      blockchain_code: 'TRON',
      transaction: {
        id: payment.transaction_id,
        amount: created.body.deposit_amount,
        amount_decimal: created.body.deposit_amount,
        status: 'confirmed',
        confirmations: 12,
        received_at: payment.received_at,
      },
    });
    const acknowledged = await stack.postRawPostback(body);
    expect(acknowledged.status).toBe(200);
    expect(acknowledged.body.outcome).toBe('recorded');
    // The credit follows the acknowledgement; the wallet's and payments' announcements of it refresh the answer.
    await eventually(async () => {
      const credited = await readWallet(customer);
      expect(credited.balance_eur_cents).toBe(2000);
      expect(credited.pending_topups).toEqual([]);
      return true;
    });
  });

  it('starts and serves without NATS, composing every read (nothing could invalidate a cached answer)', async () => {
    const withoutNats = await startWalletStack({
      mongodbUrl: inject('mongodbUrl'),
      natsUrl: inject('natsUrl'),
      billing: 'stub',
      readModel: true,
      gatewayEnv: { NATS_URL: 'nats://127.0.0.1:1' },
    });
    try {
      expect(withoutNats.gateway.server.listening).toBe(true);
      const customer = await withoutNats.newCustomer();
      const callsBefore = withoutNats.upcomingCalls();
      expect((await withoutNats.request('GET', '/v1/wallet', { key: customer.read_key })).body.balance_eur_cents).toBe(0);
      await withoutNats.walletClient.call('Credit', {
        customer_id: customer.customer_id,
        entry_id: `adjustment:${customer.customer_id}:1`,
        amount_eur_cents: 700,
        reason: 'adjustment',
        reference: '',
      });
      expect((await withoutNats.request('GET', '/v1/wallet', { key: customer.read_key })).body.balance_eur_cents).toBe(700);
      expect(withoutNats.upcomingCalls() - callsBefore).toBe(2);
      expect((await withoutNats.audit()).breaches).toEqual([]);
    } finally {
      await withoutNats.close();
    }
  });

  it('turns itself off while NATS is away (announcements could be missed) and back on once it has resubscribed', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-readmodel-nats-'));
    const nats = await startNats(directory);
    const own = await startWalletStack({ mongodbUrl: inject('mongodbUrl'), natsUrl: nats.url, billing: 'stub', readModel: true });
    try {
      const customer = await own.newCustomer();
      const balance = async () => (await own.request('GET', '/v1/wallet', { key: customer.read_key })).body.balance_eur_cents as number;
      const credit = (index: number, amount: number) =>
        own.walletClient.call('Credit', {
          customer_id: customer.customer_id,
          entry_id: `adjustment:${customer.customer_id}:${index}`,
          amount_eur_cents: amount,
          reason: 'adjustment',
          reference: '',
        });
      expect(await balance()).toBe(0);
      let calls = own.upcomingCalls();
      expect(await balance()).toBe(0);
      expect(own.upcomingCalls()).toBe(calls);

      await nats.stop();
      // Without NATS the credit is not announced; the gateway, knowing it may miss announcements, composes.
      await credit(1, 300);
      await eventually(async () => (await balance()) === 300, 5_000);
      calls = own.upcomingCalls();
      await balance();
      expect(own.upcomingCalls()).toBe(calls + 1);

      await nats.start();
      // Back on after reconnecting: a repeated read is answered from memory again, and announcements refresh it.
      await eventually(async () => {
        await balance();
        const before = own.upcomingCalls();
        await balance();
        return own.upcomingCalls() === before;
      }, 10_000);
      // The announcer reconnects on its own schedule, and what it publishes before that is dropped (nats.js
      // discards its outbound buffer at every dial attempt): a lost announcement, which only the freshness
      // window (60 s here) would repair. Credit once its connection answers a PING again.
      await eventually(async () => {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no PONG within 1 s')), 1_000)));
        await Promise.race([own.nats.flush(), timedOut]).finally(() => clearTimeout(timer));
        return true;
      }, 10_000);
      await credit(2, 200);
      await eventually(async () => (await balance()) === 500, 5_000);
      expect((await own.audit()).breaches).toEqual([]);
    } finally {
      await own.close();
      await nats.stop();
      fs.rmSync(directory, { recursive: true, force: true });
    }
  }, 60_000);
});
