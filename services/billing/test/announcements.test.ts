import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcements } from '@mtx/shared/announcements';
import { eventually } from '@mtx/shared/testing';
import { customerIdFor, startBillingHarness, type BillingHarness, type BillingReplica } from './helpers';

/**
 * Billing announces every revision change on NATS; other replicas (and the gateways' read models) follow it.
 * The freshness window is set far longer than the test, so anything seen here came from an announcement.
 */
let harness: BillingHarness;
let second: BillingReplica;

beforeAll(async () => {
  harness = await startBillingHarness({
    start: '2031-05-01T12:00:00Z',
    env: { VIEW_FRESH_MS: '60000' },
    execution: { setAccountBillingStatus: async () => undefined },
  });
  second = await harness.addReplica();
}, 60_000);
afterAll(async () => harness?.close());

const seatCount = async (replica: BillingReplica, customerId: string, fresh: boolean) =>
  (await replica.app.store.loadView(customerId, { fresh })).seats.length;

describe('billing revision announcements', () => {
  it('announces the customer and the new revision after each change, matching the stored revision', async () => {
    const customer = customerIdFor('announce');
    await harness.credit(customer, 5_000);
    const received: Array<{ customer_id: string; revision: string }> = [];
    const subscription = harness.nats.subscribe(announcements.billingChanged.subject, {
      callback: (_error, message) => {
        const event = JSON.parse(new TextDecoder().decode(message.data)) as { customer_id: string; revision: string };
        if (event.customer_id === customer) received.push(event);
      },
    });
    try {
      await harness.nats.flush();
      await harness.billing.client.call('AssignSeat', { customer_id: customer, account_id: 'acc_1', label: 'Account 1', bonus: false });
      await eventually(async () => expect(received.length).toBeGreaterThanOrEqual(1), 5_000);
      const stored = await harness.billing.app.store.collections.customers.findOne({ _id: customer });
      expect(received.at(-1)!.revision).toBe(stored!.revision);
    } finally {
      subscription.unsubscribe();
    }
  });

  it("lets a credit reaction trust a fresh view without reading the store, and follows another replica's change by its announcement", async () => {
    const customer = customerIdFor('follow');
    await harness.credit(customer, 5_000);
    await harness.billing.client.call('AssignSeat', { customer_id: customer, account_id: 'acc_1', label: 'Account 1', bonus: false });
    // The replicas publish on this connection: once the server answers the flush, every announcement of the
    // purchase has been delivered here too, so none arrives late to make the second replica re-read below.
    await harness.nats.flush();
    expect(await seatCount(second, customer, true)).toBe(1);

    // A change written behind the replicas' backs, unannounced: fresh reads keep the view, checked reads do not.
    const customers = harness.billing.app.store.collections.customers;
    const before = await customers.findOne({ _id: customer });
    await customers.updateOne({ _id: customer }, { $set: { revision: 'unannounced' } });
    const cachedView = await second.app.store.loadView(customer, { fresh: true });
    expect(cachedView.revision).toBe(before!.revision);
    expect((await second.app.store.loadView(customer)).revision).toBe('unannounced');

    // A real change on the first replica reaches the second through the announcement alone.
    await harness.billing.client.call('AssignSeat', { customer_id: customer, account_id: 'acc_2', label: 'Account 2', bonus: false });
    await eventually(async () => expect(await seatCount(second, customer, true)).toBe(2), 5_000);
    const audit = await harness.wallet.client.call<{ ok: boolean; breaches: string[] }>('Audit', {});
    expect(audit.breaches ?? []).toEqual([]);
  });
});
