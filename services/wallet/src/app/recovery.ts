import { checkpointInterval, type LedgerEntryDocument } from '../store/ledger-store';
import { writeCheckpoint, ensureFollowUps } from './follow-ups';
import { entryAt, checkpointStart, walkForward } from './ledger-reads';
import type { LedgerState } from './ledger-state';
import { debitManyEntriesMax } from './ledger-types';

/** Finishing what a crash left: entries without pointers or checkpoints at a wallet's head. */

/**
 * Whether nothing on this wallet can need finishing: it is at the head this replica remembers, and a remembered
 * head promises every follow-up up to it (a failed one forgets the head), so only another replica's entries past
 * it could lack theirs. One slot read, where the full check gallops over checkpoints and walks up to 16 entries:
 * about 20 reads a wallet, 3,000-4,000 a pass over the wallet benchmark's 200, each a FerretDB query of its own.
 */
async function finishedHere(state: LedgerState, walletId: string): Promise<boolean> {
  const head = state.heads.get(walletId);
  return head !== undefined && (await entryAt(state, walletId, head.sequence + 1)) === null;
}

/**
 * Finishes what a crash may have left undone on one wallet; returns how many entries needed it. Only the
 * newest entries can lack their follow-ups: whoever wrote any later entry first finished the ones before it
 * (its own follow-ups complete before the wallet's next movement; a foreign one is finished when walked past
 * or hit by E11000). One movement leaves at most the head entry unfinished; a DebitMany run, whose pointers go
 * in one ordered insert after it, leaves a suffix of at most `debitManyEntriesMax` entries without pointers,
 * found by stepping back from the head, and perhaps a checkpoint inside the run, found among the entries
 * walked from the latest checkpoint; a wallet at the head this replica remembers needs none of that. `thorough`
 * re-checks every entry since the latest checkpoint instead (the start-up sweep).
 */
export async function repairWallet(state: LedgerState, walletId: string, thorough = false): Promise<number> {
  if (!thorough && (await finishedHere(state, walletId))) return 0;
  const start = await checkpointStart(state, walletId);
  if (thorough) {
    const { head, repaired } = await walkForward(state, walletId, start, true);
    if (repaired > 0)
      state.logger.info(
        { wallet_id: walletId, repaired_entries: repaired, head_sequence: head.sequence },
        'recovery finished entries a crash left without pointers or checkpoints',
      );
    return repaired;
  }
  const { head, walked } = await walkForward(state, walletId, start, false);
  const walkedAt = new Map(walked.map((entry) => [entry.seq, entry]));
  const unpointed: LedgerEntryDocument[] = [];
  for (let sequence = head.sequence; sequence >= 1 && unpointed.length < debitManyEntriesMax; sequence--) {
    const entry = walkedAt.get(sequence) ?? (await entryAt(state, walletId, sequence));
    if (!entry || (await state.store.entryIds.findOne({ _id: entry.entry_id }, { projection: { _id: 1 } }))) break;
    unpointed.unshift(entry);
  }
  // Oldest first: a checkpoint is written only once every entry up to it has its pointer.
  const firstUnpointed = unpointed[0]?.seq ?? head.sequence + 1;
  const boundaries = walked.filter((entry) => entry.seq < firstUnpointed && entry.seq % checkpointInterval === 0);
  let repaired = 0;
  for (const entry of boundaries) if (await writeCheckpoint(state, entry)) repaired += 1;
  for (const entry of unpointed) if (await ensureFollowUps(state, entry, true)) repaired += 1;
  if (repaired > 0)
    state.logger.info(
      { wallet_id: walletId, repaired_entries: repaired, head_sequence: head.sequence },
      'recovery finished entries a crash left without their pointers or checkpoints',
    );
  return repaired;
}

/**
 * One bounded step of the recovery sweep: the next `recoveryBatch` wallets in `_id` order. Returns true
 * when the sweep has wrapped around (every wallet visited since the previous wrap).
 */
export async function recoverStep(
  state: LedgerState,
  thorough = false,
): Promise<{ visited: number; repairedEntries: number; wrapped: boolean }> {
  const batch = await state.store.wallets
    .find(state.recoveryCursor ? { _id: { $gt: state.recoveryCursor } } : {}, { projection: { _id: 1 } })
    .sort({ _id: 1 })
    .limit(state.recoveryBatch)
    .toArray();
  let repairedEntries = 0;
  for (const wallet of batch) repairedEntries += await repairWallet(state, wallet._id, thorough);
  const wrapped = batch.length < state.recoveryBatch;
  state.recoveryCursor = wrapped ? '' : batch[batch.length - 1]!._id;
  return { visited: batch.length, repairedEntries, wrapped };
}
