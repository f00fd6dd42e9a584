import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import crypto from 'node:crypto';
import { databaseName } from '@mtx/shared/mongo';
import { startWalletStack, type WalletStack } from '../../../test/e2e/wallet-stack';
import type { PaymentsApp } from '../src/app';
import { quoteWindowMs } from '../src/domain/topup-state';
import { createPaymentsStore } from '../src/store/payments-store';
import { startReplica } from './replica';

let stack: WalletStack;

beforeAll(async () => {
  stack = await startWalletStack({ mongodbUrl: inject('mongodbUrl'), natsUrl: inject('natsUrl') });
});

afterAll(async () => stack?.close());

afterEach(async () => {
  expect((await stack.audit()).breaches).toEqual([]);
});

const minuteMs = 60_000;
const lookBackMs = 24 * 60 * minuteMs;
const customerId = () => `cus_${crypto.randomBytes(6).toString('hex')}`;
const store = () => createPaymentsStore(stack.mongo.db(databaseName(stack.prefix, 'payments')));

async function createTopup(customer: string): Promise<{ id: number }> {
  return stack.paymentsClient.call('CreateTopup', {
    customer_id: customer,
    amount_eur_cents: 1500,
    asset_code: 'USDT',
    blockchain_code: 'TRON',
  });
}

/** A top-up's place in the private creation sequence (a scan: fine in a test, never on a request path). */
async function positionOf(topupId: number): Promise<number> {
  const entries = await store().topupSequence.find({ topup_id: topupId }).toArray();
  expect(entries).toHaveLength(1);
  return Number(entries[0]!._id);
}

async function statusOf(customer: string, topupId: number): Promise<string> {
  return (await stack.paymentsClient.call<{ status: string }>('GetTopup', { customer_id: customer, id: topupId })).status;
}

/**
 * A payments replica that has just started (nothing remembered) on a store client of its own, recording every
 * filter it sends to the top-ups collection and every invoice it asks the provider about.
 */
async function freshReplica(): Promise<{ app: PaymentsApp; topupFilters: unknown[]; invoicesAsked: string[]; close(): Promise<void> }> {
  const invoicesAsked: string[] = [];
  const topupFilters: unknown[] = [];
  const replica = await startReplica(stack, {
    environment: { RECONCILE_LOOKBACK_MS: String(lookBackMs) },
    onCommand: (command) => {
      if (command.name === 'find' && command.collection === 'topups') topupFilters.push(command.filter);
    },
    announceChanges: false,
    provider: (sandbox) => ({
      ...sandbox,
      getInvoice: (invoiceId: string) => {
        invoicesAsked.push(invoiceId);
        return sandbox.getInvoice(invoiceId);
      },
    }),
  });
  return { ...replica, topupFilters, invoicesAsked };
}

/** Whether a filter names exactly one top-up by `_id` (a point read, never a range or a scan). */
const pointRead = (filter: unknown) =>
  typeof filter === 'object' &&
  filter !== null &&
  Object.keys(filter).length === 1 &&
  typeof (filter as { _id?: unknown })._id === 'string';

describe('the expiry sweep', () => {
  it('reads top-ups one `_id` at a time, fails those whose quote ended up to the first still open, and the rest later', async () => {
    // Whatever earlier tests left is past the look-back from here on.
    stack.clock.advanceMs(lookBackMs + 2 * quoteWindowMs);
    const customer = customerId();
    const early = await createTopup(customer);
    stack.clock.advanceMs(10 * minuteMs);
    const late = await createTopup(customer);
    stack.clock.advanceMs(quoteWindowMs - 9 * minuteMs);
    const replica = await freshReplica();
    try {
      expect(await replica.app.topups.expireDue(100)).toEqual({ checked: 1, expired: 1 });
      expect(await statusOf(customer, early.id)).toBe('failed');
      expect(await statusOf(customer, late.id)).toBe('pending');
      expect(await replica.app.topups.expireDue(100)).toEqual({ checked: 0, expired: 0 });
      stack.clock.advanceMs(10 * minuteMs);
      expect(await replica.app.topups.expireDue(100)).toEqual({ checked: 1, expired: 1 });
      expect(await statusOf(customer, late.id)).toBe('failed');
      expect(await replica.app.topups.expireDue(100)).toEqual({ checked: 0, expired: 0 });
      expect(replica.topupFilters.length).toBeGreaterThan(0);
      expect(replica.topupFilters.filter((filter) => !pointRead(filter))).toEqual([]);
    } finally {
      await replica.close();
    }
  });

  it('steps over an id whose creation stopped after its claim, once the claim is old, and stays bounded per pass', async () => {
    stack.clock.advanceMs(lookBackMs + 2 * quoteWindowMs);
    const customer = customerId();
    const before = await createTopup(customer);
    // A creation that claimed the next position and died before its invoice: no top-up will ever have it.
    const beforePosition = await positionOf(before.id);
    await store().topupSequence.insertOne({ _id: String(beforePosition + 1), topup_id: 1, claimed_at: stack.clock.now() });
    const after: Array<{ id: number }> = [];
    for (let index = 0; index < 5; index++) after.push(await createTopup(customer));
    expect(await positionOf(after[0]!.id)).toBe(beforePosition + 2);
    stack.clock.advanceMs(quoteWindowMs + minuteMs);
    const replica = await freshReplica();
    try {
      expect(await replica.app.topups.expireDue(2)).toEqual({ checked: 2, expired: 2 });
      expect(await replica.app.topups.expireDue(2)).toEqual({ checked: 2, expired: 2 });
      expect(await replica.app.topups.expireDue(2)).toEqual({ checked: 2, expired: 2 });
      expect(await replica.app.topups.expireDue(2)).toEqual({ checked: 0, expired: 0 });
      for (const topup of [before, ...after]) expect(await statusOf(customer, topup.id)).toBe('failed');
    } finally {
      await replica.close();
    }
  });

  it('starts a restarted replica at the look-back by bisection: older top-ups are neither read one by one nor asked about', async () => {
    stack.clock.advanceMs(lookBackMs + 2 * quoteWindowMs);
    const customer = customerId();
    const old: Array<{ id: number }> = [];
    for (let index = 0; index < 48; index++) old.push(await createTopup(customer));
    stack.clock.advanceMs(lookBackMs + quoteWindowMs);
    const recent: Array<{ id: number }> = [];
    for (let index = 0; index < 3; index++) recent.push(await createTopup(customer));
    stack.clock.advanceMs(quoteWindowMs + minuteMs);

    const sweeper = await freshReplica();
    try {
      expect(await sweeper.app.topups.expireDue(500)).toEqual({ checked: 3, expired: 3 });
      // A walk from the oldest would read every one of the 48; the bisection reads about log2 of the ids.
      expect(sweeper.topupFilters.length).toBeLessThan(24);
      expect(sweeper.topupFilters.filter((filter) => !pointRead(filter))).toEqual([]);
      for (const topup of recent) expect(await statusOf(customer, topup.id)).toBe('failed');
      // Beyond the look-back nothing is recorded: their status is still derived on read.
      expect(await store().events.countDocuments({ topup_id: { $in: old.map((topup) => topup.id) } })).toBe(0);
    } finally {
      await sweeper.close();
    }

    const reconciler = await freshReplica();
    try {
      const step = await reconciler.app.topups.reconcileStep(500);
      expect(step).toMatchObject({ checked: 3, credited: 0, wrapped: true });
      const invoices = await Promise.all(
        recent.map(async (topup) => (await store().topups.findOne({ _id: String(topup.id) }))!.invoice_id),
      );
      expect(reconciler.invoicesAsked.sort()).toEqual(invoices.sort());
      expect(reconciler.topupFilters.filter((filter) => !pointRead(filter))).toEqual([]);
    } finally {
      await reconciler.close();
    }
  });
});
