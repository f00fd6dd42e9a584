/** Wallet constants from the public contract (api-spec.md). */
export const topupAmountMinEurCents = 1_000;
export const topupAmountMaxEurCents = 50_000;
export const quoteWindowMs = 30 * 60_000;

export type TopupStatus = 'pending' | 'partial' | 'paid' | 'failed';

export interface TopupProgress {
  creditedEurCents: number;
  expired: boolean;
}

/**
 * A top-up's status is never stored as truth: it follows from what was credited (insert-only payment records)
 * and whether the quote was failed. Coin that lands after a failure makes it partial or paid; an expiry that
 * the sweep has not recorded yet is already visible to readers.
 */
export function deriveTopupStatus(amountEurCents: number, progress: TopupProgress, expiresAt: Date, now: Date): TopupStatus {
  if (progress.creditedEurCents >= amountEurCents) return 'paid';
  if (progress.creditedEurCents > 0) return 'partial';
  if (progress.expired || now.getTime() >= expiresAt.getTime()) return 'failed';
  return 'pending';
}

/** Whether a top-up is still awaiting coin (GET /v1/wallet's `pending_topups`). */
export function isAwaitingCoin(status: TopupStatus, expiresAt: Date, now: Date): boolean {
  return status === 'pending' || (status === 'partial' && now.getTime() < expiresAt.getTime());
}
