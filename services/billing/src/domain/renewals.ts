import { AppError } from '@mtx/shared/errors';
import { addMonthsClamped, periodEnd, periodKey } from './calendar';
import type { SeatDocument, SeatState } from './model';

export interface RenewalPolicy {
  seatPriceEurCents: number;
  gracePeriodHours: number;
  pastDueRetryIntervalMs: number;
  suspendedRetryIntervalMs: number;
  failureBackoffMs: number;
  pendingPurchaseRecoveryMs: number;
}

/** What processing one item did; the scheduler's report counts these. */
export type RenewalOutcome =
  | 'charged'
  | 'already_charged'
  | 'renewed_free'
  | 'released'
  | 'past_due'
  | 'suspended'
  | 'recovered'
  | 'deferred'
  | 'unchanged';

export function seatEntryId(seatId: string, periodStart: Date): string {
  return `seat:${seatId}:${periodKey(periodStart)}`;
}

export function serverEntryId(serverId: string, periodStart: Date): string {
  return `server:${serverId}:${periodKey(periodStart)}`;
}

/** Where a successful charge of the period starting at `paid_until` leaves the dates. */
export function advancePeriod(anchor: Date, cycle: number, now: Date): { anchor_at: Date; cycle: number; paid_until: Date } {
  const paidUntil = periodEnd(anchor, cycle + 1);
  if (paidUntil.getTime() > now.getTime()) return { anchor_at: anchor, cycle: cycle + 1, paid_until: paidUntil };
  // Paid more than a month late (it was suspended): a fresh month starts at the payment.
  return { anchor_at: now, cycle: 1, paid_until: addMonthsClamped(now, 1) };
}

/**
 * Seat renewals held back to be written together: the scheduler passes one per customer and writes what it
 * collected in a few commands after the customer's debits. Only a renewal that needs nothing more (no notice
 * for execution) is held back; a crash before the write leaves the seat due with its old dates, so the next
 * pass replays the same debit (no second charge) and writes it then.
 */
export class SeatRenewalWrites {
  readonly writes: Array<{ seatId: string; set: Partial<SeatDocument> }> = [];

  add(seatId: string, set: Partial<SeatDocument>): void {
    this.writes.push({ seatId, set });
  }
}

/**
 * What a seat needs at `now`, decided from its state alone. `charge` is the only step that takes money: the
 * scheduler asks it of every due seat of a customer to debit them together before running each through
 * processSeat, which decides with the same function.
 */
export type SeatStep =
  | 'settle_released'
  | 'recover_pending'
  | 'finish_release'
  | 'not_due'
  | 'release'
  | 'renew_free'
  | 'wait_for_retry'
  | 'charge';

export function seatStep(state: SeatState, cancelAtPeriodEnd: boolean, now: Date, retryOverdue: boolean): SeatStep {
  const { seat, occupancy } = state;
  if (seat.status === 'released') return 'settle_released';
  if (seat.status === 'pending') return 'recover_pending';
  if (occupancy.released) return 'finish_release';
  if (seat.paid_until.getTime() > now.getTime()) return 'not_due';
  if (occupancy.account_id === null || cancelAtPeriodEnd) return 'release';
  if (seat.bonus) return 'renew_free';
  // A past-due or suspended seat waits for its retry time or a credit.
  if (!retryOverdue && seat.next_action_at && seat.next_action_at.getTime() > now.getTime() && seat.status !== 'active')
    return 'wait_for_retry';
  return 'charge';
}

/** A seat's debit already made in a group (the scheduler's DebitMany), by entry id; see RenewalEngine.prechargeSeats. */
export type Precharge = { replay: boolean; balance_eur_cents: number } | 'insufficient_balance' | { failure: unknown };

export function isInsufficientBalance(error: unknown): boolean {
  return error instanceof AppError && error.code === 'insufficient_balance';
}

/** When an item in `document`'s state is next looked at by the scheduler (null: never again). */
export function nextActionAt(
  document: { status: string; paid_until: Date; grace_ends_at: Date | null },
  now: Date,
  policy: Pick<RenewalPolicy, 'pastDueRetryIntervalMs' | 'suspendedRetryIntervalMs'>,
): Date | null {
  switch (document.status) {
    case 'active':
      return document.paid_until;
    case 'past_due': {
      const retryAt = new Date(now.getTime() + policy.pastDueRetryIntervalMs);
      return document.grace_ends_at && document.grace_ends_at.getTime() < retryAt.getTime() ? document.grace_ends_at : retryAt;
    }
    case 'suspended':
      return new Date(now.getTime() + policy.suspendedRetryIntervalMs);
    default:
      return null;
  }
}
