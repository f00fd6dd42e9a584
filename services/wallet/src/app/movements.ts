import { AppError } from '@mtx/shared/errors';
import { isDuplicateKeyError } from '@mtx/shared/mongo';
import { assertEntryId, assertMovementAmount, assertWalletId } from '../domain/movement';
import { noteReadHead } from './ledger-state';
import { finishRun } from './follow-ups';
import { entryAt, headForWrite, findApplied } from './ledger-reads';
import type { LedgerState } from './ledger-state';
import type { MovementInput, MovementOutcome } from './ledger-types';
import { entryAfter, figuresOf, headOf, movementAttemptsMax, reasonLengthMax, referenceLengthMax, replayOutcome } from './entries';

/** One credit or debit: one insert at the slot after the head, retried when another writer took the slot. */

export function validateMovement(input: MovementInput): void {
  assertWalletId(input.customerId);
  assertEntryId(input.entryId);
  if (typeof input.reason !== 'string' || input.reason.length === 0 || input.reason.length > reasonLengthMax) {
    throw new AppError('invalid_request', `reason must be 1 to ${reasonLengthMax} characters`, { param: 'reason' });
  }
  if (typeof input.reference !== 'string' || input.reference.length > referenceLengthMax) {
    throw new AppError('invalid_request', `reference must be at most ${referenceLengthMax} characters`, { param: 'reference' });
  }
  assertMovementAmount(input.amountEurCents);
}

export async function applyMovement(
  state: LedgerState,
  input: MovementInput,
): Promise<{ result: MovementOutcome; settled?: Promise<void> }> {
  const walletId = input.customerId;
  for (let attempt = 0; attempt < movementAttemptsMax; attempt++) {
    const remembered = state.heads.get(walletId);
    // A debit the remembered balance cannot cover is refused only on the true head.
    const optimistic =
      attempt === 0 && remembered !== undefined && (input.kind === 'credit' || remembered.balanceEurCents >= input.amountEurCents);
    const { head, walked } = await headForWrite(state, walletId, optimistic);
    if (input.kind === 'debit' && head.balanceEurCents < input.amountEurCents) {
      // A debit that already applied must answer as a replay even if the balance has moved on since.
      const existing = await findApplied(state, input.entryId, walked);
      if (existing) return { result: replayOutcome(existing, input) };
    }
    const entry = entryAfter(head, input, state.clock.now());
    try {
      await state.ledgerInserts.insert(entry);
    } catch (error) {
      if (!isDuplicateKeyError(error)) {
        state.heads.delete(walletId);
        throw error;
      }
      // E11000 names either the slot (another writer moved the wallet) or the entry id (already applied).
      const occupant = await entryAt(state, walletId, entry.seq);
      // Another writer's: the next attempt walks from the remembered head past it and finishes the run at the
      // head, where announcing the occupant itself would repeat an announcement whenever it is not that run.
      if (occupant && occupant.entry_id !== input.entryId) continue;
      const original = occupant ?? (await findApplied(state, input.entryId, walked));
      if (!original) continue;
      return { result: replayOutcome(original, input) };
    }
    if (state.crashPrefix && entry.entry_id.startsWith(state.crashPrefix)) {
      state.logger.fatal({ entry_id: entry.entry_id }, 'fault injection: crashing between the ledger write and the head hints');
      state.exit(137);
    }
    state.heads.set(walletId, headOf(entry));
    noteReadHead(state, walletId, headOf(entry));
    state.publishMoved({
      customer_id: walletId,
      sequence: entry.seq,
      balance_eur_cents: entry.balance_after_eur_cents,
      held_eur_cents: entry.held_after_eur_cents,
    });
    // The insert is the commit: the caller is answered now; the announcement and checkpoint follow before the
    // next movement of this wallet starts (and recovery finishes them if this process dies).
    return {
      result: { ...figuresOf(entry), applied: true, replay: false },
      settled: finishRun(state, [entry]).then(() => undefined),
    };
  }
  throw new AppError('unavailable', 'the wallet is moving too fast to apply this movement now; retry with the same entry id');
}
