import { checkpointInterval, type LedgerEntryDocument } from '../store/ledger-store';
import type { LedgerState } from './ledger-state';

/**
 * What follows a ledger insert: the credit announcements, then the checkpoints of the block boundaries it
 * crossed. The writer finishes them before the wallet's next movement starts here; whoever writes on top of an
 * entry it did not write walks to it and finishes the run there first, so only the run at a wallet's head can
 * lack them.
 */

export function announce(state: LedgerState, entry: LedgerEntryDocument): void {
  if (entry.kind === 'credit')
    state.publishCredited({ customer_id: entry.wallet_id, entry_id: entry.entry_id, balance_eur_cents: entry.balance_after_eur_cents });
}

/** The checkpoint an entry on a block boundary owes, once every entry up to it has been announced. */
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
 * The run an entry list ends with: the last entry and those before it inserted in the same command, which share
 * its `created_at` (a run is planned at one instant). Another movement in the same millisecond joins it: one
 * more announcement, never one fewer.
 */
export function headRun(entries: LedgerEntryDocument[]): LedgerEntryDocument[] {
  const head = entries[entries.length - 1];
  if (!head) return [];
  let start = entries.length - 1;
  while (start > 0 && entries[start - 1]!.created_at.getTime() === head.created_at.getTime()) start -= 1;
  return entries.slice(start);
}

/**
 * Follow-ups of a run of entries this process inserted together (one movement is a run of one): announcements,
 * then the checkpoints of the block boundaries the run crossed, which promise that everything up to them was
 * announced.
 */
export async function finishRun(state: LedgerState, entries: LedgerEntryDocument[]): Promise<boolean> {
  try {
    for (const entry of entries) announce(state, entry);
    for (const entry of entries) await writeCheckpoint(state, entry);
    return true;
  } catch (error) {
    // The movement is applied (the insert is the commit); only a checkpoint is missing. Forgetting the
    // remembered head makes the next movement walk from a checkpoint and finish it.
    state.heads.delete(entries[0]!.wallet_id);
    state.logger.warn(
      { err: error, entry_ids: entries.map((entry) => entry.entry_id) },
      'ledger checkpoint not written after applied movements; the next movement or recovery will write it',
    );
    return false;
  }
}
