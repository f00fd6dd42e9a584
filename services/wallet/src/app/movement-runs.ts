import { AppError } from '@mtx/shared/errors';
import type { WalletHead } from '../domain/movement';
import type { LedgerEntryDocument } from '../store/ledger-store';
import { noteReadHead } from './ledger-state';
import { finishRun } from './follow-ups';
import { entryAt, headForWrite, findApplied } from './ledger-reads';
import type { LedgerState } from './ledger-state';
import { debitManyEntriesMax, type MovementInput, type DebitManyItem, type DebitManyOutcome } from './ledger-types';
import { entryAfter, figuresOf, headOf, movementAttemptsMax, sameMovement } from './entries';

/**
 * Several movements of one wallet as one ordered insert of contiguous slots: a DebitMany (billing's renewals of
 * one customer) or the credits of one wallet in a CreditMany (a customer's payments credited together).
 */

export function appliedItem(entry: LedgerEntryDocument): DebitManyItem {
  return { ...figuresOf(entry), outcome: 'applied' };
}

export function refusedItem(entryId: string, outcome: 'insufficient_balance' | 'conflict', at: WalletHead): DebitManyItem {
  return {
    entry_id: entryId,
    outcome,
    balance_eur_cents: at.balanceEurCents,
    held_eur_cents: at.heldEurCents,
    sequence: at.sequence,
    balance_delta_eur_cents: 0,
    held_delta_eur_cents: 0,
  };
}

/** An entry id found applied already: a replay describing the original, or a conflict when it was another movement. */
export function priorItem(original: LedgerEntryDocument, input: MovementInput, at: WalletHead): DebitManyItem {
  if (!sameMovement(original, input)) return refusedItem(input.entryId, 'conflict', at);
  return { ...appliedItem(original), outcome: 'replay' };
}

/**
 * The movements of a run against one head, in request order: a debit is applied if the balance left by the ones
 * before it covers it, else refused (a credit never is); refused and already-resolved entries move nothing.
 */
export function planRun(
  state: LedgerState,
  head: WalletHead,
  movements: MovementInput[],
  open: number[],
): { steps: Array<{ index: number; at: WalletHead; entry?: LedgerEntryDocument }>; refused: number[] } {
  const steps: Array<{ index: number; at: WalletHead; entry?: LedgerEntryDocument }> = [];
  const refused: number[] = [];
  const createdAt = state.clock.now();
  let at = head;
  for (const index of open) {
    const movement = movements[index]!;
    if (movement.kind === 'debit' && at.balanceEurCents < movement.amountEurCents) {
      steps.push({ index, at });
      refused.push(index);
      continue;
    }
    const entry = entryAfter(at, movement, createdAt);
    steps.push({ index, at, entry });
    at = headOf(entry);
  }
  return { steps, refused };
}

/**
 * Several movements of one wallet as ONE ledger insert of contiguous slots, with the same rules as one movement
 * each: planned in request order against the head, a refusal only on a verified head, an entry id applied at most
 * once. At most `debitManyEntriesMax` movements (one insert batch of FerretDB's holds a run whole). When the run
 * collides (ordered, so the entries before the collision are in and none after it was tried), the landed ones
 * are finished, the collision is resolved like a single movement's (another writer's slot: walk past it to the
 * head, finishing the run there; the entry id: a replay) and the rest is planned again against the new head.
 */
export async function applyRun(
  state: LedgerState,
  walletId: string,
  movements: MovementInput[],
): Promise<{ result: DebitManyOutcome; settled?: Promise<void> }> {
  if (movements.length > debitManyEntriesMax) throw new Error(`a run holds at most ${debitManyEntriesMax} movements`);
  const items: Array<DebitManyItem | undefined> = movements.map(() => undefined);
  let final: WalletHead | undefined;
  let moved = false;
  let settled: Promise<void> | undefined;
  for (let attempt = 0; attempt < movementAttemptsMax; attempt++) {
    const open = movements.flatMap((_, index) => (items[index] === undefined ? [index] : []));
    if (open.length === 0) break;
    const optimistic = attempt === 0 && state.heads.get(walletId) !== undefined;
    let { head, walked } = await headForWrite(state, walletId, optimistic);
    let plan = planRun(state, head, movements, open);
    if (optimistic && plan.refused.length > 0) {
      // A debit the remembered balance cannot cover is refused only on the true head.
      ({ head, walked } = await headForWrite(state, walletId, false));
      plan = planRun(state, head, movements, open);
    }
    final = head;
    // A refused entry that already applied answers as a replay even if the balance has moved on since.
    await Promise.all(
      plan.refused.map(async (index) => {
        const existing = await findApplied(state, movements[index]!.entryId, walked);
        if (existing) items[index] = priorItem(existing, movements[index]!, head);
      }),
    );
    const entries = plan.steps.flatMap((step) => (step.entry ? [step.entry] : []));
    const resolveSteps = (until: number) => {
      for (const step of plan.steps.slice(0, until)) {
        if (step.entry) items[step.index] = appliedItem(step.entry);
        else items[step.index] ??= refusedItem(movements[step.index]!.entryId, 'insufficient_balance', step.at);
      }
    };
    if (entries.length === 0) {
      resolveSteps(plan.steps.length);
      break;
    }
    // Ordered: on any store the entries before the first failure are in and none after it was tried.
    const { landed, error, duplicate } = await state.ledgerRuns.insert(entries);
    if (landed === null) {
      state.heads.delete(walletId);
      throw error;
    }
    const run = entries.slice(0, landed);
    if (state.crashPrefix && run.some((entry) => entry.entry_id.startsWith(state.crashPrefix))) {
      state.logger.fatal(
        { entry_ids: run.map((entry) => entry.entry_id) },
        'fault injection: crashing between the ledger write and the head hints',
      );
      state.exit(137);
    }
    if (run.length > 0) {
      final = headOf(run[run.length - 1]!);
      state.heads.set(walletId, final);
      noteReadHead(state, walletId, final);
      moved = true;
    }
    if (error === undefined) {
      resolveSteps(plan.steps.length);
      // The insert is the commit: the caller is answered now, the announcements and checkpoints follow before
      // the wallet's next movement starts (and recovery finishes them if this process dies).
      settled = finishRun(state, run).then(() => undefined);
      break;
    }
    // The run stopped at entries[landed]: what was planned before it stands, the rest is planned again.
    const failed = entries[landed]!;
    const failedStep = plan.steps.findIndex((step) => step.entry === failed);
    resolveSteps(failedStep);
    // Finished before anything else is tried: a remembered head promises announcements up to it.
    if (run.length > 0) await finishRun(state, run);
    if (!duplicate) {
      state.heads.delete(walletId);
      throw error;
    }
    // E11000 names either the slot (another writer moved the wallet) or the entry id (already applied).
    const occupant = await entryAt(state, walletId, failed.seq);
    // Another writer's: the next attempt walks past it from the remembered head (see applyMovement).
    if (occupant && occupant.entry_id !== failed.entry_id) continue;
    const failedIndex = plan.steps[failedStep]!.index;
    const original = occupant ?? (await findApplied(state, failed.entry_id, walked));
    if (!original) continue;
    items[failedIndex] = priorItem(original, movements[failedIndex]!, plan.steps[failedStep]!.at);
    // Most likely the repeat of an earlier request: the entries after it are looked up by their entry ids at
    // once rather than found by one collision each.
    await Promise.all(
      open
        .filter((index) => index > failedIndex && items[index] === undefined)
        .map(async (index) => {
          const existing = await findApplied(state, movements[index]!.entryId, []);
          if (existing) items[index] = priorItem(existing, movements[index]!, plan.steps[failedStep]!.at);
        }),
    );
  }
  if (items.some((item) => item === undefined) || !final) {
    throw new AppError('unavailable', 'the wallet is moving too fast to apply these movements now; retry with the same entry ids');
  }
  if (moved)
    state.publishMoved({
      customer_id: walletId,
      sequence: final.sequence,
      balance_eur_cents: final.balanceEurCents,
      held_eur_cents: final.heldEurCents,
    });
  return {
    result: {
      customer_id: walletId,
      items: items as DebitManyItem[],
      balance_eur_cents: final.balanceEurCents,
      held_eur_cents: final.heldEurCents,
      sequence: final.sequence,
    },
    ...(settled ? { settled } : {}),
  };
}
