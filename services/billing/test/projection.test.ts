import { describe, expect, it } from 'vitest';
import type { CustomerView, SeatState, ServerState } from '../src/domain/model';
import { dueDates, isSeatLive, projectUpcoming, summarizeSubscription, summarizeWallet } from '../src/domain/projection';
import { advancePeriod } from '../src/domain/renewals';

const at = (text: string) => new Date(text);
let sequence = 0;

function seat(options: {
  anchor: string;
  cycle?: number;
  status?: SeatState['seat']['status'];
  account?: string | null;
  bonus?: boolean;
  grace?: string;
  released?: boolean;
  label?: string;
}): SeatState {
  const anchor = at(options.anchor);
  const cycle = options.cycle ?? 1;
  const id = `seat_${++sequence}`;
  const paidUntil = advancePeriod(anchor, cycle - 1, anchor).paid_until;
  return {
    seat: {
      _id: id,
      customer_id: 'cus_1',
      ordinal: sequence,
      bonus: options.bonus ?? false,
      status: options.status ?? 'active',
      anchor_at: anchor,
      cycle,
      paid_until: paidUntil,
      grace_ends_at: options.grace ? at(options.grace) : null,
      next_action_at: paidUntil,
      release_reason: null,
      released_at: null,
      notice: null,
      created_at: anchor,
      updated_at: anchor,
    },
    occupancy: {
      _id: id,
      customer_id: 'cus_1',
      generation: 1,
      account_id: options.account === undefined ? `acc_${sequence}` : options.account,
      label: options.label ?? null,
      released: options.released ?? false,
      updated_at: anchor,
    },
  };
}

function server(options: {
  anchor: string;
  price?: number;
  cancelled?: boolean;
  status?: ServerState['server']['status'];
  label?: string;
}): ServerState {
  const anchor = at(options.anchor);
  const id = `srv_${++sequence}`;
  return {
    server: {
      _id: id,
      customer_id: 'cus_1',
      ordinal: sequence,
      plan: 'vps-small',
      label: options.label ?? `Server ${sequence}`,
      price_eur_cents: options.price ?? 1500,
      status: options.status ?? 'active',
      anchor_at: anchor,
      cycle: 1,
      paid_until: advancePeriod(anchor, 0, anchor).paid_until,
      grace_ends_at: null,
      next_action_at: null,
      release_reason: null,
      released_at: null,
      created_at: anchor,
      updated_at: anchor,
    },
    cancel_at_period_end: options.cancelled ?? false,
  };
}

function view(seats: SeatState[], servers: ServerState[] = [], extra: Partial<CustomerView> = {}): CustomerView {
  return { customer_id: 'cus_1', revision: 'r', cancel_at_period_end: false, seats, servers, ended_by_cancellation: false, ...extra };
}

const options = { horizonDays: 30, seatPriceEurCents: 1200 };

describe('dueDates', () => {
  it('lists every due date inside the window, the purchase day kept across a short month', () => {
    expect(
      dueDates(at('2027-01-29T10:00:00Z'), 1, at('2027-02-28T10:00:00Z'), at('2027-02-28T09:00:00Z'), at('2027-03-30T09:00:00Z')).map(
        (date) => date.toISOString(),
      ),
    ).toEqual(['2027-02-28T10:00:00.000Z', '2027-03-29T10:00:00.000Z']);
  });

  it('puts an overdue amount at now, then the following renewal on the anchor schedule', () => {
    const now = at('2027-03-02T00:00:00Z');
    expect(
      dueDates(at('2027-01-31T12:00:00Z'), 1, at('2027-02-28T12:00:00Z'), now, at('2027-04-01T00:00:00Z')).map((date) =>
        date.toISOString(),
      ),
    ).toEqual(['2027-03-02T00:00:00.000Z', '2027-03-31T12:00:00.000Z']);
  });

  it('starts a fresh month from now for an item unpaid for more than a month', () => {
    const now = at('2027-06-15T00:00:00Z');
    expect(
      dueDates(at('2027-03-01T00:00:00Z'), 1, at('2027-04-01T00:00:00Z'), now, at('2027-07-15T00:00:00Z')).map((date) =>
        date.toISOString(),
      ),
    ).toEqual(['2027-06-15T00:00:00.000Z', '2027-07-15T00:00:00.000Z']);
  });
});

describe('projectUpcoming', () => {
  it('mixes seats and servers by date, leaves out bonus seats, empty slots, stopped servers and released seats', () => {
    const now = at('2027-03-01T00:00:00Z');
    const result = projectUpcoming(
      view(
        [
          seat({ anchor: '2027-02-10T08:00:00Z', label: 'Ten' }),
          seat({ anchor: '2027-02-05T08:00:00Z', bonus: true }),
          seat({ anchor: '2027-02-06T08:00:00Z', account: null }),
          seat({ anchor: '2027-02-07T08:00:00Z', released: true }),
          seat({ anchor: '2027-01-20T08:00:00Z', cycle: 1, status: 'past_due', grace: '2027-02-23T08:00:00Z', label: 'Late' }),
        ],
        [
          server({ anchor: '2027-02-03T00:00:00Z', label: 'Box', price: 3500 }),
          server({ anchor: '2027-02-04T00:00:00Z', cancelled: true }),
        ],
      ),
      now,
      options,
    );
    expect(result.items.map((item) => [item.when.toISOString(), item.kind, item.label, item.amount_eur_cents])).toEqual([
      ['2027-03-01T00:00:00.000Z', 'seat', 'Late', 1200],
      ['2027-03-03T00:00:00.000Z', 'server', 'Box', 3500],
      ['2027-03-10T08:00:00.000Z', 'seat', 'Ten', 1200],
      ['2027-03-20T08:00:00.000Z', 'seat', 'Late', 1200],
    ]);
    expect(result.total_eur_cents).toBe(1200 + 3500 + 1200 + 1200);
  });

  it('owes nothing while the subscription is cancelled at period end', () => {
    expect(
      projectUpcoming(
        view([seat({ anchor: '2027-02-10T08:00:00Z' })], [server({ anchor: '2027-02-03T00:00:00Z' })], { cancel_at_period_end: true }),
        at('2027-03-01T00:00:00Z'),
        options,
      ).items,
    ).toEqual([]);
  });
});

describe('summarizeWallet', () => {
  it('is null and covered when nothing is owed', () => {
    expect(summarizeWallet(500, { items: [], total_eur_cents: 0 })).toEqual({
      balance_eur_cents: 500,
      next_charge_eur_cents: null,
      next_charge_at: null,
      covers_next_charge: true,
    });
  });

  it('sums everything due at the earliest instant and compares it with the balance', () => {
    const when = at('2027-03-01T00:00:00Z');
    const later = at('2027-03-05T00:00:00Z');
    const upcoming = {
      items: [
        { when, amount_eur_cents: 1200, kind: 'seat' as const, label: 'a' },
        { when, amount_eur_cents: 1500, kind: 'server' as const, label: 'b' },
        { when: later, amount_eur_cents: 1200, kind: 'seat' as const, label: 'c' },
      ],
      total_eur_cents: 3900,
    };
    expect(summarizeWallet(2700, upcoming)).toEqual({
      balance_eur_cents: 2700,
      next_charge_eur_cents: 2700,
      next_charge_at: when,
      covers_next_charge: true,
    });
    expect(summarizeWallet(2699, upcoming).covers_next_charge).toBe(false);
  });
});

describe('summarizeSubscription', () => {
  const now = at('2027-03-01T00:00:00Z');

  it('is inactive with nothing, and canceled when the holding ended by cancellation', () => {
    expect(summarizeSubscription(view([]), now)).toMatchObject({
      plan: 'none',
      status: 'inactive',
      paid_access: false,
      current_period_end: null,
      grace_ends_at: null,
    });
    expect(summarizeSubscription(view([], [], { ended_by_cancellation: true }), now).status).toBe('canceled');
  });

  it('counts seats, finds the earliest period end among active items and the earliest grace', () => {
    const summary = summarizeSubscription(
      view(
        [
          seat({ anchor: '2027-02-10T08:00:00Z' }),
          seat({ anchor: '2027-02-12T08:00:00Z', account: null }),
          seat({ anchor: '2027-02-14T08:00:00Z', bonus: true }),
          seat({ anchor: '2027-01-27T08:00:00Z', status: 'past_due', grace: '2027-03-02T08:00:00Z' }),
        ],
        [server({ anchor: '2027-02-05T00:00:00Z' })],
      ),
      now,
    );
    expect(summary).toMatchObject({ plan: 'per_account', status: 'past_due', paid_access: true, seats: { total: 4, used: 3, bonus: 1 } });
    expect(summary.current_period_end?.toISOString()).toBe('2027-03-05T00:00:00.000Z');
    expect(summary.grace_ends_at?.toISOString()).toBe('2027-03-02T08:00:00.000Z');
    expect(summary.seat_details.map((detail) => detail.account_id === null)).toEqual([false, true, false, false]);
  });

  it('drops an empty slot the moment its date passes, before the scheduler has released it', () => {
    const empty = seat({ anchor: '2027-01-15T00:00:00Z', account: null });
    expect(isSeatLive(empty, at('2027-02-14T23:59:59Z'), false)).toBe(true);
    expect(isSeatLive(empty, at('2027-02-15T00:00:00Z'), false)).toBe(false);
    const occupied = seat({ anchor: '2027-01-15T00:00:00Z' });
    expect(isSeatLive(occupied, at('2027-02-15T00:00:00Z'), false)).toBe(true);
    expect(isSeatLive(occupied, at('2027-02-15T00:00:00Z'), true)).toBe(false);
  });
});
