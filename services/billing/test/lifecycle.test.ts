import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mtx/shared/testing';
import { customerIdFor, startBillingHarness, type BillingHarness } from './helpers';

/**
 * The seat and server lifecycle against the real wallet (its app over gRPC, its credit events over the real
 * NATS) and billing on the real store, with billing's clock moved by hand: no waiting for dates.
 */
let harness: BillingHarness;
const executionCalls: Array<{ customer_id: string; account_id: string; status: string }> = [];

beforeAll(async () => {
  harness = await startBillingHarness({
    // Execution's side of the contract is checked against the real service in test/e2e; here its calls are recorded.
    execution: {
      setAccountBillingStatus: async (customer_id, account_id, status) => void executionCalls.push({ customer_id, account_id, status }),
    },
  });
});
afterAll(async () => harness?.close());

interface SeatMessage {
  id: string;
  paid_until: string;
  status: string;
  account_id?: string;
  bonus: boolean;
  grace_ends_at?: string;
}

const call = <T = any>(method: string, request: unknown) => harness.billing.client.call<T>(method, request);
const tick = () =>
  call<{ lease: string; charged: number; released: number; past_due: number; suspended: number; renewed_free: number }>(
    'RunSchedulerTick',
    { respect_lease: true },
  );
const assign = (customer: string, account: string, bonus = false) =>
  call<SeatMessage>('AssignSeat', { customer_id: customer, account_id: account, label: `Label ${account}`, bonus });

async function seatDebits(customer: string): Promise<Array<{ entry_id: string; amount_eur_cents: number; reference: string }>> {
  const response = await harness.wallet.client.call<{
    entries: Array<{ entry_id: string; amount_eur_cents: number; reason: string; kind: string; reference: string }>;
  }>('ListEntries', { customer_id: customer, limit: 500 });
  return response.entries
    .filter((entry) => entry.kind === 'debit' && entry.reason === 'seat')
    .map(({ entry_id, amount_eur_cents, reference }) => ({ entry_id, amount_eur_cents, reference }))
    .reverse();
}

async function subscription(customer: string) {
  return call('GetSubscription', { customer_id: customer });
}

describe('renewal dates', () => {
  it('keeps the purchase day: bought 31 Jan 2028 → renewed 29 Feb → renewed 31 Mar, each charged once', async () => {
    const customer = customerIdFor('day');
    await harness.credit(customer, 5000);
    harness.clock.set('2028-01-31T14:00:00Z');
    const seat = await assign(customer, 'acc_day');
    expect(seat.paid_until).toBe('2028-02-29T14:00:00.000Z');

    harness.clock.set('2028-02-29T13:59:59Z');
    await tick();
    expect(await seatDebits(customer)).toHaveLength(1);
    harness.clock.set('2028-02-29T14:00:00Z');
    await tick();
    expect(await seatDebits(customer)).toHaveLength(2);
    expect((await subscription(customer)).seat_details[0]).toMatchObject({
      id: seat.id,
      paid_until: '2028-03-31T14:00:00.000Z',
      status: 'active',
      account_id: 'acc_day',
    });

    harness.clock.set('2028-03-31T14:00:01Z');
    await tick();
    // A second pass at the same instant charges nothing more.
    await tick();
    expect((await subscription(customer)).seat_details[0].paid_until).toBe('2028-04-30T14:00:00.000Z');
    expect(await seatDebits(customer)).toEqual([
      { entry_id: `seat:${seat.id}:2028-01-31`, amount_eur_cents: 1200, reference: seat.id },
      { entry_id: `seat:${seat.id}:2028-02-29`, amount_eur_cents: 1200, reference: seat.id },
      { entry_id: `seat:${seat.id}:2028-03-31`, amount_eur_cents: 1200, reference: seat.id },
    ]);
    expect(await harness.balance(customer)).toBe(5000 - 3 * 1200);
  });

  it('renews two seats bought on different days on their own different days', async () => {
    const customer = customerIdFor('two');
    await harness.credit(customer, 10_000);
    harness.clock.set('2029-03-03T08:00:00Z');
    const first = await assign(customer, 'acc_a');
    harness.clock.set('2029-03-17T16:30:00Z');
    const second = await assign(customer, 'acc_b');
    expect([first.paid_until, second.paid_until]).toEqual(['2029-04-03T08:00:00.000Z', '2029-04-17T16:30:00.000Z']);

    harness.clock.set('2029-04-03T08:00:00Z');
    await tick();
    let details = (await subscription(customer)).seat_details;
    expect(details.map((seat: SeatMessage) => seat.paid_until)).toEqual(['2029-05-03T08:00:00.000Z', '2029-04-17T16:30:00.000Z']);
    expect((await seatDebits(customer)).map((entry) => entry.entry_id)).toEqual([
      `seat:${first.id}:2029-03-03`,
      `seat:${second.id}:2029-03-17`,
      `seat:${first.id}:2029-04-03`,
    ]);

    harness.clock.set('2029-04-17T16:30:00Z');
    await tick();
    details = (await subscription(customer)).seat_details;
    expect(details.map((seat: SeatMessage) => seat.paid_until)).toEqual(['2029-05-03T08:00:00.000Z', '2029-05-17T16:30:00.000Z']);
    expect((await seatDebits(customer)).map((entry) => entry.entry_id)).toEqual([
      `seat:${first.id}:2029-03-03`,
      `seat:${second.id}:2029-03-17`,
      `seat:${first.id}:2029-04-03`,
      `seat:${second.id}:2029-04-17`,
    ]);
  });
});

describe('seats', () => {
  it('keeps a disconnected seat as a paid empty slot, reuses it, and releases it unbilled at its date', async () => {
    const customer = customerIdFor('empty');
    await harness.credit(customer, 3000);
    harness.clock.set('2029-06-10T10:00:00Z');
    const seat = await assign(customer, 'acc_x');
    await call('ReleaseSeat', { customer_id: customer, account_id: 'acc_x' });
    let current = await subscription(customer);
    expect(current.seats).toEqual({ total: 1, used: 0, bonus: 0 });
    expect(current.seat_details[0].account_id ?? null).toBeNull();
    expect((await call('GetUpcoming', { customer_id: customer })).items ?? []).toEqual([]);

    // Another account takes the paid empty slot instead of buying one.
    const reused = await assign(customer, 'acc_y');
    expect(reused.id).toBe(seat.id);
    expect(await harness.balance(customer)).toBe(1800);
    await call('ReleaseSeat', { customer_id: customer, account_id: 'acc_y' });

    harness.clock.set('2029-07-10T10:00:00Z');
    expect((await tick()).released).toBeGreaterThanOrEqual(1);
    current = await subscription(customer);
    expect(current).toMatchObject({ plan: 'none', status: 'inactive', seats: { total: 0, used: 0, bonus: 0 }, seat_details: [] });
    expect(await harness.balance(customer)).toBe(1800);
    expect(await seatDebits(customer)).toHaveLength(1);
  });

  it('never charges a bonus seat, across several months, and leaves it out of the projection', async () => {
    const customer = customerIdFor('bonus');
    await harness.credit(customer, 1000);
    harness.clock.set('2029-01-31T12:00:00Z');
    const seat = await assign(customer, 'acc_bonus', true);
    expect(seat).toMatchObject({ bonus: true, status: 'active', account_id: 'acc_bonus' });
    for (const date of ['2029-02-28T12:00:00Z', '2029-03-31T12:00:00Z', '2029-04-30T12:00:00Z']) {
      harness.clock.set(date);
      await tick();
    }
    const current = await subscription(customer);
    expect(current.seats).toEqual({ total: 1, used: 1, bonus: 1 });
    expect(current.seat_details[0]).toMatchObject({ id: seat.id, status: 'active', paid_until: '2029-05-31T12:00:00.000Z', bonus: true });
    expect(current.wallet).toMatchObject({ balance_eur_cents: 1000, covers_next_charge: true });
    expect(current.wallet.next_charge_eur_cents ?? null).toBeNull();
    expect((await call('GetUpcoming', { customer_id: customer })).items ?? []).toEqual([]);
    expect(await seatDebits(customer)).toEqual([]);
    expect(await harness.balance(customer)).toBe(1000);
  });

  it('answers a repeated AssignSeat with the same seat and charges once', async () => {
    const customer = customerIdFor('repeat');
    await harness.credit(customer, 3000);
    harness.clock.set('2029-02-01T00:00:00Z');
    const [first, second] = await Promise.all([assign(customer, 'acc_r'), assign(customer, 'acc_r')]);
    expect(second.id).toBe(first.id);
    expect((await assign(customer, 'acc_r')).id).toBe(first.id);
    expect(await harness.balance(customer)).toBe(1800);
  });

  it('refuses a seat the balance cannot pay with insufficient_balance and keeps nothing', async () => {
    const customer = customerIdFor('poor');
    await harness.credit(customer, 1199);
    await expect(assign(customer, 'acc_poor')).rejects.toMatchObject({ code: 'insufficient_balance' });
    expect(await harness.balance(customer)).toBe(1199);
    expect((await subscription(customer)).seats).toEqual({ total: 0, used: 0, bonus: 0 });
    await expect(call('ReleaseSeat', { customer_id: customer, account_id: 'acc_poor' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('rejects malformed identifiers with invalid_request', async () => {
    await expect(assign('', 'acc')).rejects.toMatchObject({ code: 'invalid_request', param: 'customer_id' });
    await expect(assign(customerIdFor('bad'), 'has space')).rejects.toMatchObject({ code: 'invalid_request', param: 'account_id' });
  });
});

describe('past due', () => {
  it('goes past_due when the balance cannot renew, then a top-up retries the renewal at once and the seat is active again', async () => {
    const customer = customerIdFor('pastdue');
    await harness.credit(customer, 1200);
    harness.clock.set('2029-05-20T09:00:00Z');
    const seat = await assign(customer, 'acc_pd');
    harness.clock.set('2029-06-20T09:00:00Z');
    expect((await tick()).past_due).toBeGreaterThanOrEqual(1);
    let current = await subscription(customer);
    expect(current).toMatchObject({ status: 'past_due', paid_access: true, grace_ends_at: '2029-06-23T09:00:00.000Z' });
    expect(current.seat_details[0]).toMatchObject({ status: 'past_due', grace_ends_at: '2029-06-23T09:00:00.000Z' });
    expect(current.wallet).toMatchObject({
      balance_eur_cents: 0,
      next_charge_eur_cents: 1200,
      next_charge_at: '2029-06-20T09:00:00.000Z',
      covers_next_charge: false,
    });
    expect(executionCalls).toContainEqual({ customer_id: customer, account_id: 'acc_pd', status: 'past_due' });

    harness.clock.set('2029-06-21T12:00:00Z');
    await harness.credit(customer, 2000);
    current = await eventually(async () => {
      const value = await subscription(customer);
      return value.status === 'active' && value;
    }, 10_000);
    expect(current.seat_details[0]).toMatchObject({ id: seat.id, status: 'active', paid_until: '2029-07-20T09:00:00.000Z' });
    expect(current.grace_ends_at ?? null).toBeNull();
    expect(await harness.balance(customer)).toBe(800);
    expect((await seatDebits(customer)).map((entry) => entry.entry_id)).toEqual([
      `seat:${seat.id}:2029-05-20`,
      `seat:${seat.id}:2029-06-20`,
    ]);
    expect(executionCalls).toContainEqual({ customer_id: customer, account_id: 'acc_pd', status: 'active' });
  });

  it('suspends the seat when the grace passes unpaid and tells execution; a later top-up re-activates it', async () => {
    const customer = customerIdFor('suspend');
    await harness.credit(customer, 1200);
    harness.clock.set('2029-08-01T10:00:00Z');
    await assign(customer, 'acc_s');
    harness.clock.set('2029-09-01T10:00:00Z');
    await tick();
    harness.clock.set('2029-09-04T09:59:59Z');
    await tick();
    expect((await subscription(customer)).seat_details[0].status).toBe('past_due');
    harness.clock.set('2029-09-04T10:00:00Z');
    expect((await tick()).suspended).toBeGreaterThanOrEqual(1);
    const current = await subscription(customer);
    expect(current).toMatchObject({ status: 'past_due', paid_access: false });
    expect(current.seat_details[0]).toMatchObject({ status: 'suspended', account_id: 'acc_s' });
    // Notices are delivered at least once (kept until execution acknowledges them), so a slow acknowledgement
    // under load can repeat one; the transitions themselves must come in this order.
    const transitions = () =>
      executionCalls
        .filter((entry) => entry.customer_id === customer)
        .map((entry) => entry.status)
        .filter((status, index, all) => index === 0 || status !== all[index - 1]);
    expect(transitions()).toEqual(['past_due', 'suspended']);

    await harness.credit(customer, 1200);
    await eventually(async () => (await subscription(customer)).seat_details[0].status === 'active', 10_000);
    expect(transitions()).toEqual(['past_due', 'suspended', 'active']);
    expect(await harness.balance(customer)).toBe(0);
  });
});

describe('cancel at period end', () => {
  it('stops renewals and releases each seat and server at its own date, then reads canceled', async () => {
    const customer = customerIdFor('cancel');
    await harness.credit(customer, 10_000);
    harness.clock.set('2029-10-05T10:00:00Z');
    const seat = await assign(customer, 'acc_c');
    harness.clock.set('2029-10-12T10:00:00Z');
    const server = await call('CreateServer', { customer_id: customer, plan: 'vps-small', label: 'Box' });
    const balanceAfterPurchases = await harness.balance(customer);
    expect(balanceAfterPurchases).toBe(10_000 - 1200 - 1500);

    const updated = await call('UpdateSubscription', { customer_id: customer, cancel_at_period_end: true });
    expect(updated).toMatchObject({ cancel_at_period_end: true, status: 'active' });
    expect((await call('GetUpcoming', { customer_id: customer })).items ?? []).toEqual([]);

    harness.clock.set('2029-11-05T10:00:00Z');
    expect((await tick()).released).toBeGreaterThanOrEqual(1);
    let current = await subscription(customer);
    expect(current.seats.total).toBe(0);
    expect(current.status).toBe('active');
    expect((await call('ListServers', { customer_id: customer })).servers.map((item: { id: string }) => item.id)).toEqual([server.id]);
    expect(executionCalls).toContainEqual({ customer_id: customer, account_id: 'acc_c', status: 'suspended' });

    harness.clock.set('2029-11-12T10:00:00Z');
    await tick();
    current = await subscription(customer);
    expect(current).toMatchObject({ status: 'canceled', plan: 'none', paid_access: false });
    expect(current.current_period_end ?? null).toBeNull();
    expect((await call('ListServers', { customer_id: customer })).servers ?? []).toEqual([]);
    expect(await harness.balance(customer)).toBe(balanceAfterPurchases);
    expect(seat.id).toMatch(/^seat_/);
  });

  it('resumes renewals when cancel_at_period_end is set back to false before the date', async () => {
    const customer = customerIdFor('resume');
    await harness.credit(customer, 5000);
    harness.clock.set('2029-10-05T10:00:00Z');
    const seat = await assign(customer, 'acc_resume');
    await call('UpdateSubscription', { customer_id: customer, cancel_at_period_end: true });
    await call('UpdateSubscription', { customer_id: customer, cancel_at_period_end: false });
    harness.clock.set('2029-11-05T10:00:00Z');
    await tick();
    expect((await subscription(customer)).seat_details[0]).toMatchObject({
      id: seat.id,
      status: 'active',
      paid_until: '2029-12-05T10:00:00.000Z',
    });
  });
});

describe('servers', () => {
  it('buys a server from the balance, renews it on its own date, and stops when cancelled', async () => {
    const customer = customerIdFor('server');
    await harness.credit(customer, 6000);
    harness.clock.set('2030-01-31T08:00:00Z');
    const server = await call('CreateServer', { customer_id: customer, plan: 'vps-large', label: 'NY4' });
    expect(server).toMatchObject({
      plan: 'vps-large',
      label: 'NY4',
      price_eur_cents: 3500,
      status: 'active',
      paid_until: '2030-02-28T08:00:00.000Z',
      cancel_at_period_end: false,
    });
    await expect(call('CreateServer', { customer_id: customer, plan: 'vps-large', label: 'Too much' })).rejects.toMatchObject({
      code: 'insufficient_balance',
    });
    await expect(call('CreateServer', { customer_id: customer, plan: 'vps-huge', label: 'x' })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'plan',
    });
    await harness.credit(customer, 1000);
    harness.clock.set('2030-02-28T08:00:00Z');
    await tick();
    // The purchase day (31st) comes back after the short month.
    expect((await call('ListServers', { customer_id: customer })).servers[0].paid_until).toBe('2030-03-31T08:00:00.000Z');
    expect(await harness.balance(customer)).toBe(0);

    const other = customerIdFor('intruder');
    await expect(call('CancelServer', { customer_id: other, server_id: server.id })).rejects.toMatchObject({ code: 'not_found' });
    expect((await call('CancelServer', { customer_id: customer, server_id: server.id })).cancel_at_period_end).toBe(true);
    expect((await call('CancelServer', { customer_id: customer, server_id: server.id })).cancel_at_period_end).toBe(true);
    harness.clock.set('2030-03-31T08:00:00Z');
    await tick();
    expect((await call('ListServers', { customer_id: customer })).servers ?? []).toEqual([]);
    await expect(call('CancelServer', { customer_id: customer, server_id: server.id })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('projection', () => {
  it('lists a seat twice across a month boundary inside 30 days, mixes seats and servers, and sums them', async () => {
    const customer = customerIdFor('projection');
    await harness.credit(customer, 20_000);
    harness.clock.set('2027-01-29T10:00:00Z');
    await assign(customer, 'acc_p');
    harness.clock.set('2027-02-10T07:00:00Z');
    await call('CreateServer', { customer_id: customer, plan: 'vps-small', label: 'Frankfurt' });
    harness.clock.set('2027-02-20T07:00:00Z');
    // An empty slot and a bonus seat are never owed.
    await assign(customer, 'acc_gone');
    await call('ReleaseSeat', { customer_id: customer, account_id: 'acc_gone' });
    await assign(customer, 'acc_bonus', true);

    harness.clock.set('2027-02-28T09:00:00Z');
    const upcoming = await call('GetUpcoming', { customer_id: customer });
    expect(upcoming.items).toEqual([
      { when: '2027-02-28T10:00:00.000Z', amount_eur_cents: 1200, kind: 'seat', label: 'Label acc_p' },
      { when: '2027-03-10T07:00:00.000Z', amount_eur_cents: 1500, kind: 'server', label: 'Frankfurt' },
      { when: '2027-03-29T10:00:00.000Z', amount_eur_cents: 1200, kind: 'seat', label: 'Label acc_p' },
    ]);
    expect(upcoming.total_eur_cents).toBe(3900);
    const current = await subscription(customer);
    expect(current.wallet).toMatchObject({
      next_charge_eur_cents: 1200,
      next_charge_at: '2027-02-28T10:00:00.000Z',
      covers_next_charge: true,
    });
    expect(current.current_period_end).toBe('2027-02-28T10:00:00.000Z');
  });

  it('reports covers_next_charge false and the shortfall inputs when the balance is short', async () => {
    const customer = customerIdFor('short');
    await harness.credit(customer, 3700);
    harness.clock.set('2027-05-01T10:00:00Z');
    await assign(customer, 'acc_1');
    await assign(customer, 'acc_2');
    harness.clock.set('2027-05-02T10:00:00Z');
    await assign(customer, 'acc_3');
    expect(await harness.balance(customer)).toBe(100);
    harness.clock.set('2027-05-20T00:00:00Z');
    const upcoming = await call('GetUpcoming', { customer_id: customer });
    expect(upcoming.items.map((item: { when: string }) => item.when)).toEqual([
      '2027-06-01T10:00:00.000Z',
      '2027-06-01T10:00:00.000Z',
      '2027-06-02T10:00:00.000Z',
    ]);
    expect(upcoming.total_eur_cents).toBe(3600);
    const current = await subscription(customer);
    expect(current.wallet).toEqual(
      expect.objectContaining({
        balance_eur_cents: 100,
        next_charge_eur_cents: 2400,
        next_charge_at: '2027-06-01T10:00:00.000Z',
        covers_next_charge: false,
      }),
    );
  });
});
