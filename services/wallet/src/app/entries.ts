import { AppError } from '@mtx/shared/errors';
import { ledgerSlotId, planMovement, type WalletHead } from '../domain/movement';
import type { LedgerEntryDocument } from '../store/ledger-store';
import type { MovementInput, MovementOutcome } from './ledger-types';

/** Ledger entries as documents: the one a movement inserts, and what an answer reports of it. */

// A slot lost to another replica costs one retry; this many in a row means the wallet is pathologically hot.
export const movementAttemptsMax = 64;
export const reasonLengthMax = 40;
export const referenceLengthMax = 200;

export function headOf(entry: LedgerEntryDocument): WalletHead {
  return { sequence: entry.seq, balanceEurCents: entry.balance_after_eur_cents, heldEurCents: entry.held_after_eur_cents };
}

/** The ledger entry that applies `input` on top of `at`, in the slot after it. */
export function entryAfter(at: WalletHead, input: MovementInput, createdAt: Date): LedgerEntryDocument {
  const plan = planMovement(at, input.kind, input.amountEurCents);
  const sequence = at.sequence + 1;
  return {
    _id: ledgerSlotId(input.customerId, sequence),
    wallet_id: input.customerId,
    seq: sequence,
    entry_id: input.entryId,
    kind: input.kind,
    reason: input.reason,
    reference: input.reference,
    amount_eur_cents: input.amountEurCents,
    balance_delta_eur_cents: plan.balanceDeltaEurCents,
    held_delta_eur_cents: plan.heldDeltaEurCents,
    balance_after_eur_cents: plan.balanceAfterEurCents,
    held_after_eur_cents: plan.heldAfterEurCents,
    created_at: createdAt,
  };
}

/** What an answer reports of an entry: the head it left and what it moved. */
export function figuresOf(entry: LedgerEntryDocument) {
  return {
    entry_id: entry.entry_id,
    balance_eur_cents: entry.balance_after_eur_cents,
    held_eur_cents: entry.held_after_eur_cents,
    sequence: entry.seq,
    balance_delta_eur_cents: entry.balance_delta_eur_cents,
    held_delta_eur_cents: entry.held_delta_eur_cents,
  };
}

/** Whether a stored entry is the movement `input` asks for (same wallet, kind and amount). */
export function sameMovement(original: LedgerEntryDocument, input: MovementInput): boolean {
  return original.wallet_id === input.customerId && original.kind === input.kind && original.amount_eur_cents === input.amountEurCents;
}

/** The refusal of an entry id another movement already used (`original`, when the caller has it at hand). */
export function reusedEntryIdError(entryId: string, original?: LedgerEntryDocument): AppError {
  return new AppError('conflict', `entry id ${entryId} was already used for a different movement`, {
    param: 'entry_id',
    ...(original ? { details: { kind: original.kind, amount_eur_cents: original.amount_eur_cents } } : {}),
  });
}

/** The answer to a movement whose entry id was already applied: its original figures, or a conflict. */
export function replayOutcome(original: LedgerEntryDocument, input: MovementInput): MovementOutcome {
  if (!sameMovement(original, input)) throw reusedEntryIdError(input.entryId, original);
  return { ...figuresOf(original), applied: false, replay: true };
}
