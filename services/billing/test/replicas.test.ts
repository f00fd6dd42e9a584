import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@mtx/shared/clock';
import { customerIdFor, startBillingHarness, type BillingHarness, type BillingReplica } from './helpers';

/**
 * Two billing replicas on one store and one real wallet, 100 seats all due at the same instant: whatever the
 * replicas do at the same time, each seat's period is charged exactly once and the wallet's audit passes.
 */
let harness: BillingHarness;
let second: BillingReplica;
const secondClock = new ManualClock('2031-01-15T12:00:00Z');
const customers = Array.from({ length: 20 }, (_, index) => customerIdFor(`rep${index}`));
const seatsPerCustomer = 5;
const seatIds: string[] = [];

interface TickReport {
  lease: string;
  charged: number;
  already_charged: number;
  processed: number;
}

beforeAll(async () => {
  harness = await startBillingHarness({ start: '2031-01-15T12:00:00Z', execution: { setAccountBillingStatus: async () => undefined } });
  second = await harness.addReplica({ clock: secondClock });
  await Promise.all(
    customers.map(async (customer) => {
      await harness.credit(customer, seatsPerCustomer * 1200 * 3);
      for (let index = 0; index < seatsPerCustomer; index += 1) {
        const seat = await harness.billing.client.call<{ id: string }>('AssignSeat', {
          customer_id: customer,
          account_id: `acc_${index}`,
          label: `Account ${index}`,
          bonus: false,
        });
        seatIds.push(seat.id);
      }
    }),
  );
}, 120_000);
afterAll(async () => harness?.close());

async function seatDebitIds(): Promise<string[]> {
  const all: string[] = [];
  for (const customer of customers) {
    const response = await harness.wallet.client.call<{ entries: Array<{ entry_id: string; kind: string; reason: string }> }>(
      'ListEntries',
      { customer_id: customer, limit: 100 },
    );
    all.push(...response.entries.filter((entry) => entry.kind === 'debit' && entry.reason === 'seat').map((entry) => entry.entry_id));
  }
  return all;
}

async function expectAuditClean() {
  const audit = await harness.wallet.client.call<{ ok: boolean; breaches: string[] }>('Audit', {});
  expect(audit.breaches ?? []).toEqual([]);
  expect(audit.ok).toBe(true);
}

describe('two billing replicas, 100 seats due at the same instant', () => {
  it('with the lease: one replica does the slot, the other stands aside, and each seat is charged once', async () => {
    expect(new Set(seatIds).size).toBe(100);
    harness.clock.set('2031-02-15T12:00:00Z');
    secondClock.set('2031-02-15T12:00:00Z');
    const reports = await Promise.all([
      harness.billing.client.call<TickReport>('RunSchedulerTick', { respect_lease: true }),
      second.client.call<TickReport>('RunSchedulerTick', { respect_lease: true }),
    ]);
    expect(reports.map((report) => report.lease).sort()).toEqual(['acquired', 'held_elsewhere']);
    expect(reports.reduce((sum, report) => sum + report.charged, 0)).toBe(100);
    const debits = await seatDebitIds();
    expect(debits).toHaveLength(200);
    expect(new Set(debits).size).toBe(200);
    for (const seatId of seatIds) expect(debits).toContain(`seat:${seatId}:2031-02-15`);
    for (const customer of customers)
      expect(await harness.balance(customer)).toBe(seatsPerCustomer * 1200 * 3 - seatsPerCustomer * 1200 * 2);
    await expectAuditClean();
  });

  it('with both replicas working the same batch at once: still exactly one charge per seat, the rest are replays', async () => {
    harness.clock.set('2031-03-15T12:00:00Z');
    secondClock.set('2031-03-15T12:00:00Z');
    const reports = await Promise.all([
      harness.billing.client.call<TickReport>('RunSchedulerTick', { respect_lease: false }),
      second.client.call<TickReport>('RunSchedulerTick', { respect_lease: false }),
    ]);
    expect(reports.every((report) => report.lease === 'ignored')).toBe(true);
    // Every applied debit is counted once across the two; whatever overlapped was a replay.
    expect(reports.reduce((sum, report) => sum + report.charged, 0)).toBe(100);
    const debits = await seatDebitIds();
    expect(debits).toHaveLength(300);
    expect(new Set(debits).size).toBe(300);
    for (const seatId of seatIds) expect(debits).toContain(`seat:${seatId}:2031-03-15`);
    for (const customer of customers) {
      expect(await harness.balance(customer)).toBe(0);
      const subscription = await second.client.call('GetSubscription', { customer_id: customer });
      expect(subscription.seat_details.map((seat: { paid_until: string; status: string }) => `${seat.status} ${seat.paid_until}`)).toEqual(
        Array(seatsPerCustomer).fill('active 2031-04-15T12:00:00.000Z'),
      );
    }
    await expectAuditClean();
  });
});
