import { AppError } from '@mtx/shared/errors';
import { reusedEntryIdError } from './entries';
import { debitManyEntriesMax, type CreditManyItem, type DebitManyItem, type MovementInput } from './ledger-types';

/** A CreditMany's credits as runs of one wallet each: how they are grouped, and how a run's items answer. */

/**
 * The credits of each wallet in request order, in runs of at most `debitManyEntriesMax` (so one of FerretDB's
 * 100-document insert batches holds a run whole, as a DebitMany's). One insert per run instead of one per credit:
 * a wallet's second credit in a batch no longer waits for the first one's insert and follow-ups.
 */
export function creditRuns(movements: MovementInput[]): Array<{ walletId: string; indexes: number[] }> {
  const byWallet = new Map<string, number[]>();
  movements.forEach((movement, index) => {
    const indexes = byWallet.get(movement.customerId);
    if (indexes) indexes.push(index);
    else byWallet.set(movement.customerId, [index]);
  });
  const runs: Array<{ walletId: string; indexes: number[] }> = [];
  for (const [walletId, indexes] of byWallet) {
    for (let start = 0; start < indexes.length; start += debitManyEntriesMax) {
      runs.push({ walletId, indexes: indexes.slice(start, start + debitManyEntriesMax) });
    }
  }
  return runs;
}

/** A run's item as CreditMany answers it: a reused entry id fails as `Credit` would refuse it. */
export function creditItemOf(item: DebitManyItem): CreditManyItem {
  if (item.outcome === 'applied' || item.outcome === 'replay') return { ...item, outcome: item.outcome, error_code: '', error_message: '' };
  if (item.outcome === 'conflict') return failedCreditItem(item.entry_id, reusedEntryIdError(item.entry_id));
  // A credit is never refused for the balance; an outcome that says so is a defect, answered as retryable.
  return failedCreditItem(item.entry_id, new Error(`unexpected outcome ${item.outcome} for a credit`));
}

export function failedCreditItem(entryId: string, error: unknown): CreditManyItem {
  return {
    entry_id: entryId,
    outcome: 'failed',
    balance_eur_cents: 0,
    held_eur_cents: 0,
    sequence: 0,
    balance_delta_eur_cents: 0,
    held_delta_eur_cents: 0,
    error_code: error instanceof AppError ? error.code : 'unavailable',
    error_message: error instanceof AppError ? error.message : 'the credit could not be applied now; repeat it',
  };
}
