import type { RunOutcome } from '@mtx/shared/run-batcher';
import { checkpointInterval, type LedgerEntryDocument } from '../store/ledger-store';
import type { LedgerState } from './ledger-state';

/** What follows a ledger insert: the entry-id pointer, the checkpoint, the announcements. Whoever comes next finishes them. */

export function announce(state: LedgerState, entry: LedgerEntryDocument): void {
  if (entry.kind === 'credit')
    state.publishCredited({ customer_id: entry.wallet_id, entry_id: entry.entry_id, balance_eur_cents: entry.balance_after_eur_cents });
}

/** The checkpoint an entry on a block boundary owes, once every entry up to it has its pointer. */
export async function writeCheckpoint(state: LedgerState, entry: LedgerEntryDocument): Promise<boolean> {
  if (entry.seq % checkpointInterval !== 0) return false;
  const block = entry.seq / checkpointInterval;
  return state.checkpointInserts.insertIfAbsent({
    _id: `${entry.wallet_id}:${block}`,
    wallet_id: entry.wallet_id,
    block,
    seq: entry.seq,
    balance_eur_cents: entry.balance_after_eur_cents,
    held_eur_cents: entry.held_after_eur_cents,
    created_at: state.clock.now(),
  });
}

/**
 * Finishes an entry's follow-up writes whoever wrote it: announcement, then pointer, then (on a block boundary)
 * checkpoint. An entry without a pointer may never have been announced (its writer may have died after the
 * insert), so it is announced before the pointer is written; a repeat announcement is harmless, a lost one is not.
 * Returns whether anything was missing.
 */
export async function ensureFollowUps(state: LedgerState, entry: LedgerEntryDocument, knownMissingPointer = false): Promise<boolean> {
  let repaired = false;
  if (knownMissingPointer || !(await state.store.entryIds.findOne({ _id: entry.entry_id }, { projection: { _id: 1 } }))) {
    announce(state, entry);
    repaired = await state.pointerInserts.insertIfAbsent({ _id: entry.entry_id, wallet_id: entry.wallet_id, seq: entry.seq });
  }
  if (await writeCheckpoint(state, entry)) repaired = true;
  return repaired;
}

export async function finishInsert(state: LedgerState, entry: LedgerEntryDocument): Promise<void> {
  try {
    await ensureFollowUps(state, entry, true);
  } catch (error) {
    // The movement is applied (the insert is the commit); only hints are missing. Forgetting the in-memory
    // head makes the next movement walk from a checkpoint and finish them.
    state.heads.delete(entry.wallet_id);
    state.logger.warn(
      { err: error, entry_id: entry.entry_id },
      'ledger hints not written after an applied movement; recovery will finish them',
    );
  }
}

/**
 * Follow-ups of a run of entries this process inserted together: announcements, then the pointers in ONE
 * ordered insert, then the checkpoints of the block boundaries the run crossed (only once every pointer is in,
 * which is what a checkpoint promises). In order, so a crash leaves the run's entries without pointers as a
 * suffix at the head, which the recovery step finds by stepping back from the head.
 */
export async function finishRun(state: LedgerState, entries: LedgerEntryDocument[]): Promise<boolean> {
  try {
    for (const entry of entries) announce(state, entry);
    await insertPointersInOrder(state, entries);
    for (const entry of entries) await writeCheckpoint(state, entry);
    return true;
  } catch (error) {
    // As for one movement: applied, only hints missing; the next movement walks from a checkpoint and finishes them.
    state.heads.delete(entries[0]!.wallet_id);
    state.logger.warn(
      { err: error, entry_ids: entries.map((entry) => entry.entry_id) },
      'ledger hints not written after applied movements; recovery will finish them',
    );
    return false;
  }
}

export async function insertPointersInOrder(state: LedgerState, entries: LedgerEntryDocument[]): Promise<void> {
  let pointers = entries.map((entry) => ({ _id: entry.entry_id, wallet_id: entry.wallet_id, seq: entry.seq }));
  while (pointers.length > 0) {
    const outcome: RunOutcome = await state.pointerRuns.insert(pointers);
    if (outcome.error === undefined) return;
    // A writer that walked past the run (another replica) may have written one already: skip it, keep the order.
    if (outcome.landed === null || !outcome.duplicate) throw outcome.error;
    pointers = pointers.slice(outcome.landed + 1);
  }
}
