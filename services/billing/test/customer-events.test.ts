import { nanos } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  customerEventChannel,
  customerEventId,
  customerEventIdPattern,
  developmentEventIdSecret,
  type CustomerEvent,
} from '@mtx/shared/customer-events';
import { eventually } from '@mtx/shared/testing';
import { customerIdFor, startBillingHarness, type BillingHarness } from './helpers';

/**
 * The customer events billing publishes for webhooks (seat.past_due, seat.suspended, wallet.low_balance), read
 * back from the real JetStream stream the notifier would record them from.
 */
let harness: BillingHarness;
let stream: string;

beforeAll(async () => {
  harness = await startBillingHarness({ execution: { setAccountBillingStatus: async () => undefined } });
  const channel = customerEventChannel(harness.prefix);
  stream = channel.stream;
  const manager = await harness.nats.jetstreamManager();
  await manager.streams.add({ name: stream, subjects: [`${channel.subjectRoot}.>`], max_age: nanos(3_600_000) });
});

afterAll(async () => {
  await (await harness?.nats.jetstreamManager())?.streams.delete(stream).catch(() => undefined);
  await harness?.close();
});

async function published(customerId: string): Promise<CustomerEvent[]> {
  const consumer = await harness.nats.jetstream().consumers.get(stream);
  const batch = await consumer.fetch({ max_messages: 500, expires: 1_000 });
  const events: CustomerEvent[] = [];
  for await (const message of batch) {
    const event = JSON.parse(new TextDecoder().decode(message.data)) as CustomerEvent;
    if (event.customer_id === customerId) events.push(event);
  }
  return events;
}

const tick = () => harness.billing.client.call('RunSchedulerTick', { respect_lease: true });

describe('billing customer events', () => {
  it('announces past_due, wallet.low_balance and suspended once each, with ids fixed by the seat and its period', async () => {
    const customer = customerIdFor('events');
    await harness.credit(customer, 1200);
    harness.clock.set('2030-03-10T08:00:00Z');
    const seat = await harness.billing.client.call<{ id: string }>('AssignSeat', {
      customer_id: customer,
      account_id: 'acc_events',
      label: 'events',
      bonus: false,
    });
    harness.clock.set('2030-04-10T08:00:00Z');
    await tick();
    // The same period again: nothing new to say.
    harness.clock.set('2030-04-11T08:00:00Z');
    await tick();
    harness.clock.set('2030-04-13T08:00:00Z');
    await tick();

    const events = await eventually(async () => {
      const seen = await published(customer);
      return seen.some((event) => event.type === 'seat.suspended') && seen.some((event) => event.type === 'wallet.low_balance') && seen;
    }, 10_000);
    const byType = (type: string) => events.filter((event) => event.type === type);
    const periodEnd = '2030-04-10T08:00:00.000Z';
    expect(byType('seat.past_due')).toHaveLength(1);
    expect(byType('seat.past_due')[0]).toMatchObject({
      id: customerEventId(developmentEventIdSecret, 'seat.past_due', `${seat.id}:${periodEnd}`),
      data: { seat_id: seat.id, account_id: 'acc_events', period_end: periodEnd, grace_ends_at: '2030-04-13T08:00:00.000Z' },
    });
    expect(byType('seat.suspended')).toHaveLength(1);
    expect(byType('seat.suspended')[0]!.id).toBe(customerEventId(developmentEventIdSecret, 'seat.suspended', `${seat.id}:${periodEnd}`));
    // The balance (0 after the first period) does not cover the 1,200 due within 7 days; once a day at most.
    const low = byType('wallet.low_balance');
    expect(low.length).toBeGreaterThanOrEqual(1);
    expect(low[0]!.data).toEqual({ balance_eur_cents: 0, due_next_7_days_eur_cents: 1200 });
    for (const event of low) expect(event.id).toMatch(customerEventIdPattern);
    expect(new Set(low.map((event) => event.id)).size).toBe(low.length);
  });
  it('counts in wallet.low_balance every charge of the next 7 days, seats the pass did not touch and servers too', async () => {
    const customer = customerIdFor('lowbal');
    const seatPrice = 1200;
    const serverPrice = 1500;
    // Three seats and a server bought over five days, and one renewal: the balance is 0 afterwards.
    await harness.credit(customer, 3 * seatPrice + serverPrice + seatPrice);
    const assign = (accountId: string) =>
      harness.billing.client.call<{ id: string }>('AssignSeat', {
        customer_id: customer,
        account_id: accountId,
        label: accountId,
        bonus: false,
      });
    harness.clock.set('2030-06-01T08:00:00Z');
    await assign('acc_lowbal_renewed');
    await assign('acc_lowbal_emptied');
    harness.clock.set('2030-06-04T08:00:00Z');
    await assign('acc_lowbal_later');
    // Emptied after the later seat was bought, so its slot stays empty until its date.
    await harness.billing.client.call('ReleaseSeat', { customer_id: customer, account_id: 'acc_lowbal_emptied' });
    harness.clock.set('2030-06-05T08:00:00Z');
    await harness.billing.client.call('CreateServer', { customer_id: customer, plan: 'vps-small', label: 'lowbal' });
    // The first seat renews and the emptied one is released unbilled; the later seat (3 days on) and the server
    // (4 days on) fall due within the next 7 days.
    harness.clock.set('2030-07-01T09:00:00Z');
    await tick();
    const low = await eventually(async () => {
      const seen = (await published(customer)).filter((event) => event.type === 'wallet.low_balance');
      return seen.length > 0 && seen;
    }, 10_000);
    expect(low).toHaveLength(1);
    expect(low[0]!.data).toEqual({ balance_eur_cents: 0, due_next_7_days_eur_cents: seatPrice + serverPrice });
    // The same figure as the customer's own projection over those 7 days.
    const upcoming = await harness.billing.client.call<{ items: Array<{ when: string; amount_eur_cents: number }> }>('GetUpcoming', {
      customer_id: customer,
    });
    const weekEnd = Date.parse('2030-07-08T09:00:00Z');
    const dueInWeek = upcoming.items
      .filter((item) => Date.parse(item.when) <= weekEnd)
      .reduce((sum, item) => sum + item.amount_eur_cents, 0);
    expect(dueInWeek).toBe(seatPrice + serverPrice);
  });
});
