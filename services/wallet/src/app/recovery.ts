import { checkpointStart, entryAt, walkForward } from './ledger-reads';
import type { LedgerState } from './ledger-state';

/** Finishing what a crash left: announcements and checkpoints at a wallet's head. */

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
 * Finishes what a crash may have left undone on one wallet; returns how many entries it finished. Only the run
 * at the head can lack its announcements (whoever wrote on top of an entry finished it first, see walkForward),
 * and a checkpoint owed since the latest one may be missing: the walk from that checkpoint announces the head's
 * run again and writes them. Its writer, if alive, announced that run already; the repeat is harmless and comes
 * at most once per wallet per pass, because the head is remembered afterwards. A wallet at the head this replica
 * remembers needs none of it; `thorough` checks it anyway (the start-up sweep).
 */
export async function repairWallet(state: LedgerState, walletId: string, thorough = false): Promise<number> {
  if (!thorough && (await finishedHere(state, walletId))) return 0;
  const start = await checkpointStart(state, walletId);
  const { head, repaired } = await walkForward(state, walletId, start, true);
  // Never behind a head this replica's own movements reached meanwhile.
  const remembered = state.heads.get(walletId);
  if (!remembered || remembered.sequence < head.sequence) state.heads.set(walletId, head);
  if (repaired > 0)
    state.logger.debug(
      { wallet_id: walletId, repaired_entries: repaired, head_sequence: head.sequence },
      'recovery finished the entries at a wallet head that another process may have left unannounced',
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
