import { assertCustomerId } from '@mtx/shared/service-contract';
import { AppError } from '@mtx/shared/errors';

/** Wallet constants from the public contract (api-spec.md, "Wallet constants"). */
export const balanceCapEurCents = 100_000;
/** Far above any real movement; keeps every sum a safe integer. */
export const movementAmountMaxEurCents = 1_000_000_000;

export type MovementKind = 'credit' | 'debit';

/** What a wallet holds after its latest ledger entry (sequence 0: the empty wallet). */
export interface WalletHead {
  sequence: number;
  balanceEurCents: number;
  heldEurCents: number;
}

export interface MovementPlan {
  balanceDeltaEurCents: number;
  heldDeltaEurCents: number;
  balanceAfterEurCents: number;
  heldAfterEurCents: number;
}

export const emptyHead: WalletHead = { sequence: 0, balanceEurCents: 0, heldEurCents: 0 };

/**
 * Computes one movement as a pure function of the head, so the ledger entry carries its own proof.
 * Money beyond the cap is held; any room under the cap (after this movement) is filled from held money in
 * the same entry, oldest first, so held money moves in the moment there is room and never in a second write.
 * A debit is all or nothing: it is refused when the balance cannot cover it.
 */
export function planMovement(head: WalletHead, kind: MovementKind, amountEurCents: number, capEurCents = balanceCapEurCents): MovementPlan {
  assertMovementAmount(amountEurCents);
  if (kind === 'debit' && head.balanceEurCents < amountEurCents) {
    throw new AppError('insufficient_balance', `the balance of ${head.balanceEurCents} cents cannot cover ${amountEurCents} cents`, {
      details: { balance_eur_cents: head.balanceEurCents, amount_eur_cents: amountEurCents },
    });
  }
  const total = head.balanceEurCents + head.heldEurCents + (kind === 'credit' ? amountEurCents : -amountEurCents);
  const balanceAfter = Math.min(capEurCents, total);
  const heldAfter = total - balanceAfter;
  return {
    balanceDeltaEurCents: balanceAfter - head.balanceEurCents,
    heldDeltaEurCents: heldAfter - head.heldEurCents,
    balanceAfterEurCents: balanceAfter,
    heldAfterEurCents: heldAfter,
  };
}

export function assertMovementAmount(amountEurCents: unknown): asserts amountEurCents is number {
  if (
    typeof amountEurCents !== 'number' ||
    !Number.isSafeInteger(amountEurCents) ||
    amountEurCents <= 0 ||
    amountEurCents > movementAmountMaxEurCents
  ) {
    throw new AppError('invalid_request', `amount_eur_cents must be an integer from 1 to ${movementAmountMaxEurCents}`, {
      param: 'amount_eur_cents',
    });
  }
}

// Printable ASCII: entry ids are built by services from their own ids, never from free text.
const entryIdPattern = /^[\x21-\x7e]{1,200}$/;

export function assertWalletId(customerId: unknown): asserts customerId is string {
  // The ledger `_id` is `<customer_id>:<sequence>`, so a colon in the id would make two wallets collide.
  assertCustomerId(customerId);
}

export function assertEntryId(entryId: unknown): asserts entryId is string {
  if (typeof entryId !== 'string' || !entryIdPattern.test(entryId)) {
    throw new AppError('invalid_request', 'entry_id must be 1 to 200 printable ASCII characters without spaces', { param: 'entry_id' });
  }
}

export function ledgerSlotId(walletId: string, sequence: number): string {
  return `${walletId}:${sequence}`;
}
