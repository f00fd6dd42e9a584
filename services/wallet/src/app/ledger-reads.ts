import { lastPresent } from '@mtx/shared/gallop';
import { insertIfAbsent } from '@mtx/shared/mongo';
import { emptyHead, ledgerSlotId, type WalletHead } from '../domain/movement';
import { checkpointInterval, type LedgerEntryDocument } from '../store/ledger-store';
import { noteReadHead } from './ledger-state';
import { announce, headRun, writeCheckpoint } from './follow-ups';
import type { LedgerState } from './ledger-state';
import { headOf } from './entries';

/** Finding a wallet's head: from memory, from checkpoints, and always one slot further in the ledger. */

export async function entryAt(state: LedgerState, walletId: string, sequence: number): Promise<LedgerEntryDocument | null> {
  return state.store.ledger.findOne({ _id: ledgerSlotId(walletId, sequence) });
}

/**
 * A recent head from the checkpoints, found by galloping over block numbers (1, 2, 4, … then bisecting), so a
 * cold start costs O(log n) lookups. A gap left by a crash only makes it start from an older checkpoint. The
 * head is read from the ledger entry itself, so a damaged checkpoint cannot skew a balance.
 */
export async function checkpointStart(state: LedgerState, walletId: string): Promise<WalletHead> {
  const present = async (block: number) =>
    (await state.store.checkpoints.findOne({ _id: `${walletId}:${block}` }, { projection: { _id: 1 } })) !== null;
  const low = await lastPresent(0, present);
  if (low === 0) return emptyHead;
  const entry = await entryAt(state, walletId, low * checkpointInterval);
  if (entry) return headOf(entry);
  state.logger.error({ wallet_id: walletId, block: low }, 'checkpoint points past the ledger; reading from the start');
  return emptyHead;
}

/**
 * Follows the ledger from `start` until the first free slot: a stale hint only costs lookups. Writers pass
 * `finish`, which finishes what another process (perhaps a dead one) may have left of the entries walked past:
 * the run at the head is announced again, and every checkpoint owed is written. Only that run can lack its
 * announcements (whoever wrote on top of an entry finished it first), so everything up to the returned head has
 * been announced: what a remembered head promises. `repaired` counts the entries finished.
 */
export async function walkForward(
  state: LedgerState,
  walletId: string,
  start: WalletHead,
  finish: boolean,
): Promise<{ head: WalletHead; walked: LedgerEntryDocument[]; repaired: number }> {
  let head = start;
  const walked: LedgerEntryDocument[] = [];
  for (;;) {
    const next = await entryAt(state, walletId, head.sequence + 1);
    if (!next) break;
    walked.push(next);
    head = headOf(next);
  }
  if (!finish || walked.length === 0) return { head, walked, repaired: 0 };
  // Only the head's run can be unannounced; a repeat is harmless (delivery is at least once), a lost one is not.
  // Then every checkpoint owed, once what it covers is announced.
  const run = headRun(walked);
  for (const entry of run) announce(state, entry);
  let repaired = run.length;
  const runStart = walked.length - run.length;
  for (const [index, entry] of walked.entries()) if ((await writeCheckpoint(state, entry)) && index < runStart) repaired += 1;
  return { head, walked, repaired };
}

export async function headForWrite(
  state: LedgerState,
  walletId: string,
  optimistic: boolean,
): Promise<{ head: WalletHead; walked: LedgerEntryDocument[] }> {
  // The insert at head + 1 is itself the freshness check (E11000 when another replica moved the wallet), so a
  // remembered head is used without looking one slot further first.
  if (!state.registered.get(walletId)) {
    // Registered before its first entry, so the recovery pass (which walks registrations) reaches every ledger.
    await insertIfAbsent(state.store.wallets, { _id: walletId, created_at: state.clock.now() });
    state.registered.set(walletId, true);
  }
  const remembered = optimistic ? state.heads.get(walletId) : undefined;
  if (remembered) return { head: remembered, walked: [] };
  let start = state.heads.get(walletId);
  if (!start) start = await checkpointStart(state, walletId);
  const result = await walkForward(state, walletId, start, true);
  state.heads.set(walletId, result.head);
  return result;
}

/** The entry that applied `entryId`, if any: among the entries just walked, else by the unique `entry_id` index. */
export async function findApplied(state: LedgerState, entryId: string, walked: LedgerEntryDocument[]): Promise<LedgerEntryDocument | null> {
  return walked.find((entry) => entry.entry_id === entryId) ?? (await state.store.ledger.findOne({ entry_id: entryId }));
}

/** Reads the true head: linearisable, because it always looks one slot past whatever hint it starts from. */
export async function readHead(state: LedgerState, walletId: string): Promise<WalletHead> {
  const remembered = state.heads.get(walletId);
  let head: WalletHead;
  if (remembered) {
    head = (await walkForward(state, walletId, remembered, false)).head;
  } else {
    const start = await checkpointStart(state, walletId);
    // Everything up to a checkpoint was announced, so that head is safe to remember; a walked-to one is not.
    if (!state.heads.get(walletId)) state.heads.set(walletId, start);
    head = (await walkForward(state, walletId, start, false)).head;
  }
  noteReadHead(state, walletId, head);
  return head;
}

/**
 * A head at most `readFreshMs` old: what this replica applied itself is exact at once, another replica's
 * movement arrives by broadcast within milliseconds, and a lost broadcast is bounded by the freshness window.
 */
export async function recentHead(state: LedgerState, walletId: string): Promise<WalletHead> {
  return state.readHeads.get(walletId) ?? readHead(state, walletId);
}
