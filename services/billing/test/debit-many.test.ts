import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@mtx/shared/errors';
import { databaseName } from '@mtx/shared/mongo';
import type { WalletPort } from '../src/domain/ports';
import { billingCollections, type BillingCollections } from '../src/store/billing-store';
import { customerIdFor, startBillingHarness, type BillingHarness } from './helpers';

/**
 * The scheduler debits a customer's due seats in one DebitMany (real wallet, real store) and hands each seat
 * its own entry's result: one wallet call per customer instead of one per seat, with the same outcomes.
 */
let harness: BillingHarness;
let collections: BillingCollections;
const calls: Array<{ method: 'debit' | 'debitMany'; customerId: string; entries: number }> = [];
/** Customers whose DebitMany fails as a whole, as when the wallet is down or the deadline passes. */
const unreachableFor = new Set<string>();

interface TickReport {
  charged: number;
  already_charged: number;
  past_due: number;
  deferred: number;
  processed: number;
}

beforeAll(async () => {
  harness = await startBillingHarness({
    start: '2032-01-10T09:00:00Z',
    execution: { setAccountBillingStatus: async () => undefined },
    wrapWallet: (wallet: WalletPort): WalletPort => ({
      ...wallet,
      async debit(request) {
        calls.push({ method: 'debit', customerId: request.customer_id, entries: 1 });
        return wallet.debit(request);
      },
      async debitMany(request) {
        calls.push({ method: 'debitMany', customerId: request.customer_id, entries: request.entries.length });
        if (unreachableFor.has(request.customer_id)) throw new AppError('unavailable', 'injected: the wallet did not answer');
        return wallet.debitMany(request);
      },
    }),
  });
  collections = billingCollections(harness.mongo.db(databaseName(harness.prefix, 'billing')));
}, 60_000);
afterAll(async () => harness?.close());

afterEach(async () => {
  const audit = await harness.wallet.client.call<{ ok: boolean; breaches: string[] }>('Audit', {});
  expect(audit.breaches ?? []).toEqual([]);
  expect(audit.ok).toBe(true);
});

const tick = () => harness.billing.client.call<TickReport>('RunSchedulerTick', { respect_lease: false });
const callsOf = (customerId: string) => calls.filter((call) => call.customerId === customerId);

async function buySeats(customerId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    ids.push(
      (
        await harness.billing.client.call<{ id: string }>('AssignSeat', {
          customer_id: customerId,
          account_id: `acc_${index}`,
          label: `Account ${index}`,
          bonus: false,
        })
      ).id,
    );
  }
  return ids;
}

async function seatDebits(customerId: string, period: string): Promise<string[]> {
  const response = await harness.wallet.client.call<{ entries: Array<{ entry_id: string; kind: string }> }>('ListEntries', {
    customer_id: customerId,
    limit: 100,
  });
  return response.entries.filter((entry) => entry.kind === 'debit' && entry.entry_id.endsWith(`:${period}`)).map((entry) => entry.entry_id);
}

const seatsOf = (ids: string[]) => collections.seats.find({ _id: { $in: ids } }).toArray();

describe('scheduler charges through DebitMany', () => {
  it("charges a customer's ten due seats with one wallet call", async () => {
    const customer = customerIdFor('many');
    harness.clock.set('2032-01-10T09:00:00Z');
    await harness.credit(customer, 20 * 1200);
    const seatIds = await buySeats(customer, 10);
    calls.length = 0;

    harness.clock.set('2032-02-10T09:00:00Z');
    const report = await tick();
    expect(report).toMatchObject({ charged: 10, already_charged: 0, deferred: 0 });
    expect(callsOf(customer)).toEqual([{ method: 'debitMany', customerId: customer, entries: 10 }]);
    // Named by the period each charge starts (the purchase took `:2032-01-10`).
    expect((await seatDebits(customer, '2032-02-10')).sort()).toEqual(seatIds.map((id) => `seat:${id}:2032-02-10`).sort());
    expect((await seatsOf(seatIds)).map((seat) => `${seat.status} ${seat.cycle} ${seat.paid_until.toISOString()}`)).toEqual(
      Array(10).fill('active 2 2032-03-10T09:00:00.000Z'),
    );
    expect(await harness.balance(customer)).toBe(0);
  });

  it('charges the six seats the balance covers and makes the other four past_due, still in one call', async () => {
    const customer = customerIdFor('mixed');
    harness.clock.set('2032-05-03T09:00:00Z');
    await harness.credit(customer, 16 * 1200);
    const seatIds = await buySeats(customer, 10);
    calls.length = 0;

    harness.clock.set('2032-06-03T09:00:00Z');
    await tick();
    expect(callsOf(customer)).toEqual([{ method: 'debitMany', customerId: customer, entries: 10 }]);
    const seats = await seatsOf(seatIds);
    const charged = seats.filter((seat) => seat.status === 'active' && seat.paid_until.toISOString() === '2032-07-03T09:00:00.000Z');
    const pastDue = seats.filter((seat) => seat.status === 'past_due');
    expect(charged).toHaveLength(6);
    expect(pastDue).toHaveLength(4);
    expect(pastDue.every((seat) => seat.paid_until.toISOString() === '2032-06-03T09:00:00.000Z' && seat.grace_ends_at !== null)).toBe(true);
    expect((await seatDebits(customer, '2032-06-03')).sort()).toEqual(charged.map((seat) => `seat:${seat._id}:2032-06-03`).sort());
    expect(await harness.balance(customer)).toBe(0);
  });

  it('leaves every seat deferred, nothing charged, when the DebitMany call fails, and charges them on the next pass', async () => {
    const customer = customerIdFor('down');
    harness.clock.set('2032-09-12T09:00:00Z');
    await harness.credit(customer, 8 * 1200);
    const seatIds = await buySeats(customer, 4);
    calls.length = 0;

    harness.clock.set('2032-10-12T09:00:00Z');
    unreachableFor.add(customer);
    const failed = await tick();
    unreachableFor.delete(customer);
    expect(failed.deferred).toBeGreaterThanOrEqual(4);
    // One failed call, and no fallback to one debit per seat against a wallet that is not answering.
    expect(callsOf(customer)).toEqual([{ method: 'debitMany', customerId: customer, entries: 4 }]);
    const waiting = await seatsOf(seatIds);
    expect(waiting.map((seat) => `${seat.status} ${seat.cycle}`)).toEqual(Array(4).fill('active 1'));
    // As after a failed single debit: retried after the back-off (60 s in the harness).
    expect(waiting.every((seat) => seat.next_action_at?.toISOString() === '2032-10-12T09:01:00.000Z')).toBe(true);
    expect(await harness.balance(customer)).toBe(4 * 1200);

    harness.clock.set('2032-10-12T09:01:00Z');
    const retried = await tick();
    expect(retried.charged).toBeGreaterThanOrEqual(4);
    expect(callsOf(customer).filter((call) => call.method === 'debitMany')).toHaveLength(2);
    expect((await seatsOf(seatIds)).map((seat) => `${seat.status} ${seat.cycle}`)).toEqual(Array(4).fill('active 2'));
    expect(await seatDebits(customer, '2032-10-12')).toHaveLength(4);
    expect(await harness.balance(customer)).toBe(0);
  });
});
