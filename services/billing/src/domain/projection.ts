import { addDays, addMonthsClamped, periodEnd } from './calendar';
import type { CustomerView, LiveStatus, SeatState, ServerState } from './model';

/**
 * Pure read-side logic: what a customer holds right now, and what the balance owes over the horizon.
 * Both the gRPC answers and the scheduler's notion of "ended" come from here, so a seat the scheduler has not
 * yet got round to releasing already reads as released.
 */

export interface UpcomingCharge {
  when: Date;
  amount_eur_cents: number;
  kind: 'seat' | 'server';
  label: string;
}

export interface Upcoming {
  items: UpcomingCharge[];
  total_eur_cents: number;
}

const liveStatuses: ReadonlySet<string> = new Set<LiveStatus>(['active', 'past_due', 'suspended']);

/** A seat is held until released; an empty or cancelled seat counts as released the moment its date passes. */
export function isSeatLive(state: SeatState, now: Date, cancelAtPeriodEnd: boolean): boolean {
  if (!liveStatuses.has(state.seat.status) || state.occupancy.released) return false;
  if (state.seat.paid_until.getTime() <= now.getTime() && (state.occupancy.account_id === null || cancelAtPeriodEnd)) return false;
  return true;
}

export function isServerLive(state: ServerState, now: Date, cancelAtPeriodEnd: boolean): boolean {
  if (!liveStatuses.has(state.server.status)) return false;
  if (state.server.paid_until.getTime() <= now.getTime() && (state.cancel_at_period_end || cancelAtPeriodEnd)) return false;
  return true;
}

/**
 * Due dates of one renewable item inside (now, horizonEnd]. A date already passed (renewal not yet taken,
 * past due, suspended) is owed now. Paying a suspended item more than a month late starts a fresh month from
 * the payment, as the scheduler does.
 */
export function dueDates(anchor: Date, cycle: number, paidUntil: Date, now: Date, horizonEnd: Date): Date[] {
  const dates: Date[] = [];
  let currentAnchor = anchor;
  let currentCycle = cycle;
  let due = paidUntil;
  if (due.getTime() <= now.getTime()) {
    dates.push(now);
    currentCycle += 1;
    due = periodEnd(currentAnchor, currentCycle);
    if (due.getTime() <= now.getTime()) {
      currentAnchor = now;
      currentCycle = 1;
      due = addMonthsClamped(now, 1);
    }
  }
  while (due.getTime() <= horizonEnd.getTime()) {
    dates.push(due);
    currentCycle += 1;
    due = periodEnd(currentAnchor, currentCycle);
  }
  return dates;
}

export interface ProjectionOptions {
  horizonDays: number;
  seatPriceEurCents: number;
}

/**
 * Every charge the balance owes within the horizon: occupied, non-bonus seats and servers whose renewal has
 * not been stopped, each once per due date (a seat renewing twice in the window is listed twice).
 */
export function projectUpcoming(view: CustomerView, now: Date, options: ProjectionOptions): Upcoming {
  const horizonEnd = addDays(now, options.horizonDays);
  const items: UpcomingCharge[] = [];
  if (!view.cancel_at_period_end) {
    for (const state of view.seats) {
      if (state.seat.bonus || state.occupancy.account_id === null || !isSeatLive(state, now, false)) continue;
      const label = state.occupancy.label || state.occupancy.account_id;
      for (const when of dueDates(state.seat.anchor_at, state.seat.cycle, state.seat.paid_until, now, horizonEnd)) {
        items.push({ when, amount_eur_cents: options.seatPriceEurCents, kind: 'seat', label });
      }
    }
    for (const state of view.servers) {
      if (state.cancel_at_period_end || !isServerLive(state, now, false)) continue;
      for (const when of dueDates(state.server.anchor_at, state.server.cycle, state.server.paid_until, now, horizonEnd)) {
        items.push({ when, amount_eur_cents: state.server.price_eur_cents, kind: 'server', label: state.server.label });
      }
    }
  }
  items.sort((a, b) => a.when.getTime() - b.when.getTime() || a.kind.localeCompare(b.kind) || a.label.localeCompare(b.label));
  return { items, total_eur_cents: items.reduce((sum, item) => sum + item.amount_eur_cents, 0) };
}

export interface WalletSummary {
  balance_eur_cents: number;
  next_charge_eur_cents: number | null;
  next_charge_at: Date | null;
  covers_next_charge: boolean;
}

/** The next charge is everything due at the earliest upcoming instant (overdue items are all due now). */
export function summarizeWallet(balanceEurCents: number, upcoming: Upcoming): WalletSummary {
  const first = upcoming.items[0];
  if (!first) return { balance_eur_cents: balanceEurCents, next_charge_eur_cents: null, next_charge_at: null, covers_next_charge: true };
  const amount = upcoming.items
    .filter((item) => item.when.getTime() === first.when.getTime())
    .reduce((sum, item) => sum + item.amount_eur_cents, 0);
  return {
    balance_eur_cents: balanceEurCents,
    next_charge_eur_cents: amount,
    next_charge_at: first.when,
    covers_next_charge: balanceEurCents >= amount,
  };
}

export interface SeatDetail {
  id: string;
  paid_until: Date;
  status: LiveStatus;
  account_id: string | null;
  bonus: boolean;
  grace_ends_at: Date | null;
}

export type SubscriptionStatus = 'active' | 'past_due' | 'inactive' | 'canceled';

export interface SubscriptionSummary {
  plan: 'per_account' | 'none';
  status: SubscriptionStatus;
  paid_access: boolean;
  billing_provider: 'balance';
  cancel_at_period_end: boolean;
  seats: { total: number; used: number; bonus: number };
  seat_details: SeatDetail[];
  current_period_end: Date | null;
  grace_ends_at: Date | null;
}

function earliest(dates: Array<Date | null>): Date | null {
  let result: Date | null = null;
  for (const date of dates) if (date && (!result || date.getTime() < result.getTime())) result = date;
  return result;
}

/**
 * The subscription as the API shows it. `seats.total` counts every seat held (bonus included), `used` the
 * occupied ones, `bonus` the operator-granted ones. The status is `past_due` while anything is past due or
 * suspended, `active` while anything is held, else `canceled` if the holding ended by cancellation, else
 * `inactive`.
 */
export function summarizeSubscription(view: CustomerView, now: Date): SubscriptionSummary {
  const seats = view.seats.filter((state) => isSeatLive(state, now, view.cancel_at_period_end));
  const servers = view.servers.filter((state) => isServerLive(state, now, view.cancel_at_period_end));
  const statuses = [...seats.map((state) => state.seat.status), ...servers.map((state) => state.server.status)];
  const overdue = statuses.some((status) => status === 'past_due' || status === 'suspended');
  const status: SubscriptionStatus = overdue
    ? 'past_due'
    : statuses.length > 0
      ? 'active'
      : view.ended_by_cancellation
        ? 'canceled'
        : 'inactive';
  return {
    plan: seats.length > 0 ? 'per_account' : 'none',
    status,
    paid_access: statuses.some((itemStatus) => itemStatus === 'active' || itemStatus === 'past_due'),
    billing_provider: 'balance',
    cancel_at_period_end: view.cancel_at_period_end,
    seats: {
      total: seats.length,
      used: seats.filter((state) => state.occupancy.account_id !== null).length,
      bonus: seats.filter((state) => state.seat.bonus).length,
    },
    seat_details: seats.map((state) => ({
      id: state.seat._id,
      paid_until: state.seat.paid_until,
      status: state.seat.status as LiveStatus,
      account_id: state.occupancy.account_id,
      bonus: state.seat.bonus,
      grace_ends_at: state.seat.grace_ends_at,
    })),
    current_period_end: earliest([
      ...seats.filter((state) => state.seat.status === 'active').map((state) => state.seat.paid_until),
      ...servers.filter((state) => state.server.status === 'active').map((state) => state.server.paid_until),
    ]),
    grace_ends_at: earliest([
      ...seats.filter((state) => state.seat.status === 'past_due').map((state) => state.seat.grace_ends_at),
      ...servers.filter((state) => state.server.status === 'past_due').map((state) => state.server.grace_ends_at),
    ]),
  };
}
