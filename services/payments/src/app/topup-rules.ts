import { AppError } from '@mtx/shared/errors';
import { topupAmountMaxEurCents, topupAmountMinEurCents } from '../domain/topup-state';
import type { TopupEventDocument } from '../store/payments-store';

/** Bounds, input checks, and a top-up's progress read from its records. */

export interface Progress {
  seq: number;
  creditedEurCents: number;
  quotedUnits: bigint;
  quotedEurCents: number;
  expired: boolean;
}

export { assertCustomerId, customerIdPattern } from '@mtx/shared/service-contract';
export const eventsPerTopupMax = 1_000;
export const slotAttemptsMax = 64;
export const pendingScanMax = 100;
export const postbackBytesMax = 64 * 1024;
export const customerHeadsCachedMax = 100_000;
export const owedCancellationsMax = 10_000;
export const cachedDocumentsMax = 50_000;

export function assertTopupAmount(amountEurCents: unknown): asserts amountEurCents is number {
  if (
    typeof amountEurCents !== 'number' ||
    !Number.isSafeInteger(amountEurCents) ||
    amountEurCents < topupAmountMinEurCents ||
    amountEurCents > topupAmountMaxEurCents
  ) {
    throw new AppError(
      'amount_out_of_range',
      `amount_eur_cents must be an integer from ${topupAmountMinEurCents} to ${topupAmountMaxEurCents}`,
      {
        param: 'amount_eur_cents',
        details: { minimum: topupAmountMinEurCents, maximum: topupAmountMaxEurCents },
      },
    );
  }
}

export function progressOf(events: TopupEventDocument[]): Progress {
  const head = events[events.length - 1];
  if (!head) return { seq: 0, creditedEurCents: 0, quotedUnits: 0n, quotedEurCents: 0, expired: false };
  return {
    seq: head.seq,
    creditedEurCents: head.credited_after_eur_cents,
    quotedUnits: BigInt(head.quoted_units_after),
    quotedEurCents: head.quoted_eur_cents_after,
    expired: head.expired_after,
  };
}
