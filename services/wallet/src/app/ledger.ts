import type { WalletMoved } from '@mtx/shared/announcements';
import { AppError } from '@mtx/shared/errors';
import { assertEntryId, assertWalletId, balanceCapEurCents } from '../domain/movement';
import type { LedgerEntryDocument } from '../store/ledger-store';
import { createLedgerState, noteReadHead, serialise } from './ledger-state';
import { entryAt, readHead, recentHead } from './ledger-reads';
import { validateMovement, applyMovement } from './movements';
import { applyRun } from './movement-runs';
import { creditRuns, creditItemOf, failedCreditItem } from './credit-runs';
import { recoverStep, repairWallet } from './recovery';
import {
  creditManyEntriesMax,
  debitManyEntriesMax,
  findEntriesMax,
  type EntryKey,
  type FoundEntry,
  type CreditInput,
  type CreditManyItem,
  type DebitInput,
  type DebitManyOutcome,
  type LedgerOptions,
  type MovementInput,
  type MovementOutcome,
  type WalletView,
} from './ledger-types';

export * from './ledger-types';

export type Ledger = ReturnType<typeof createLedger>;

/**
 * The insert-linearised ledger. A movement is exactly one insert at `<wallet>:<head + 1>`: the `_id` index
 * makes two writers of one slot exclusive (the loser re-reads the head and retries) and the unique `entry_id`
 * makes a movement apply at most once, and finds the original of a replay. Nothing is ever updated (FerretDB
 * updates are unisolated and scan the whole collection), so no money can be lost to a race. The head hints
 * (memory, insert-only checkpoints) and the credit announcements follow the insert, verified by every reader
 * (which always looks one slot further) and finished by whoever comes next or by the recovery pass.
 *
 * Invariant the hints keep: every entry up to a remembered head or a checkpoint was announced. Whoever writes
 * on top of an entry it did not write has walked to it and announced the run at the head first, so only that run
 * can lack its announcement (its writer died after the insert), which recovery repeats.
 */
export function createLedger(options: LedgerOptions) {
  const state = createLedgerState(options);
  return {
    async credit(input: Omit<MovementInput, 'kind'>): Promise<MovementOutcome> {
      const movement: MovementInput = { ...input, kind: 'credit' };
      validateMovement(movement);
      return serialise(state, movement.customerId, () => applyMovement(state, movement));
    },

    async debit(input: Omit<MovementInput, 'kind'>): Promise<MovementOutcome> {
      const movement: MovementInput = { ...input, kind: 'debit' };
      validateMovement(movement);
      return serialise(state, movement.customerId, () => applyMovement(state, movement));
    },

    /**
     * Debits of one wallet in one queue turn and one ledger insert, tried in order, each all or nothing; see
     * DebitMany in proto/wallet/v1/wallet.proto. Malformed input fails the whole call before anything is written.
     */
    async debitMany(customerId: string, entries: DebitInput[]): Promise<DebitManyOutcome> {
      assertWalletId(customerId);
      if (!Array.isArray(entries) || entries.length === 0 || entries.length > debitManyEntriesMax) {
        throw new AppError('invalid_request', `entries must hold 1 to ${debitManyEntriesMax} debits`, { param: 'entries' });
      }
      const seen = new Set<string>();
      const debits = entries.map((entry, index): MovementInput => {
        const movement: MovementInput = {
          customerId,
          entryId: entry?.entryId,
          kind: 'debit',
          amountEurCents: entry?.amountEurCents,
          reason: entry?.reason,
          reference: entry?.reference,
        };
        try {
          validateMovement(movement);
        } catch (error) {
          if (error instanceof AppError && error.param)
            throw new AppError(error.code, `entries[${index}]: ${error.message}`, { param: `entries[${index}].${error.param}` });
          throw error;
        }
        if (seen.has(movement.entryId)) {
          throw new AppError('invalid_request', `entries[${index}]: entry id ${movement.entryId} appears twice in one request`, {
            param: `entries[${index}].entry_id`,
          });
        }
        seen.add(movement.entryId);
        return movement;
      });
      return serialise(state, customerId, () => applyRun(state, customerId, debits));
    },

    /**
     * Credits of any wallets, each applied as `credit` would apply it and answered in its own item; see CreditMany
     * in proto/wallet/v1/wallet.proto. Malformed input fails the whole call before anything is written.
     */
    async creditMany(credits: CreditInput[]): Promise<CreditManyItem[]> {
      if (!Array.isArray(credits) || credits.length === 0 || credits.length > creditManyEntriesMax) {
        throw new AppError('invalid_request', `credits must hold 1 to ${creditManyEntriesMax} credits`, { param: 'credits' });
      }
      const seen = new Set<string>();
      const movements = credits.map((credit, index): MovementInput => {
        const movement: MovementInput = {
          customerId: credit?.customerId,
          entryId: credit?.entryId,
          kind: 'credit',
          amountEurCents: credit?.amountEurCents,
          reason: credit?.reason,
          reference: credit?.reference,
        };
        try {
          validateMovement(movement);
        } catch (error) {
          if (error instanceof AppError && error.param)
            throw new AppError(error.code, `credits[${index}]: ${error.message}`, { param: `credits[${index}].${error.param}` });
          throw error;
        }
        if (seen.has(movement.entryId)) {
          throw new AppError('invalid_request', `credits[${index}]: entry id ${movement.entryId} appears twice in one request`, {
            param: `credits[${index}].entry_id`,
          });
        }
        seen.add(movement.entryId);
        return movement;
      });
      // A wallet's credits go as runs (one insert of contiguous slots each, in request order), in the wallet's
      // turn; runs of different wallets share the store's group commit.
      const items: CreditManyItem[] = new Array(movements.length);
      await Promise.all(
        creditRuns(movements).map(async ({ walletId, indexes }) => {
          const run = indexes.map((index) => movements[index]!);
          try {
            const outcome = await serialise(state, walletId, () => applyRun(state, walletId, run));
            for (const [position, item] of outcome.items.entries()) items[indexes[position]!] = creditItemOf(item);
          } catch (error) {
            if (!(error instanceof AppError)) state.logger.warn({ err: error, wallet_id: walletId }, 'CreditMany credits failed');
            for (const index of indexes) items[index] = failedCreditItem(movements[index]!.entryId, error);
          }
        }),
      );
      return items;
    },

    /**
     * Which entries are applied, each in the wallet named with it: one lookup on the unique `entry_id` index each
     * (FerretDB scans for `$in`). See FindEntries in proto/wallet/v1/wallet.proto.
     */
    async findEntries(keys: EntryKey[]): Promise<FoundEntry[]> {
      if (!Array.isArray(keys) || keys.length === 0 || keys.length > findEntriesMax) {
        throw new AppError('invalid_request', `entries must hold 1 to ${findEntriesMax} entries`, { param: 'entries' });
      }
      keys.forEach((key, index) => {
        try {
          assertWalletId(key?.customerId);
          assertEntryId(key?.entryId);
        } catch (error) {
          if (error instanceof AppError && error.param)
            throw new AppError(error.code, `entries[${index}]: ${error.message}`, { param: `entries[${index}].${error.param}` });
          throw error;
        }
      });
      return Promise.all(
        keys.map(async ({ customerId, entryId }): Promise<FoundEntry> => {
          const entry = await state.store.ledger.findOne({ entry_id: entryId }, { projection: { wallet_id: 1, seq: 1 } });
          // Another wallet's entry is not this caller's to see, not even as a sequence.
          const applied = entry !== null && entry.wallet_id === customerId;
          return { entry_id: entryId, applied, sequence: applied ? entry.seq : 0 };
        }),
      );
    },

    /** `consistent` reads the store (linearisable); otherwise a head at most `readFreshMs` old may answer. */
    async getWallet(customerId: string, options: { consistent?: boolean } = {}): Promise<WalletView> {
      assertWalletId(customerId);
      const head = options.consistent ? await readHead(state, customerId) : await recentHead(state, customerId);
      return {
        customer_id: customerId,
        balance_eur_cents: head.balanceEurCents,
        held_eur_cents: head.heldEurCents,
        sequence: head.sequence,
        balance_cap_eur_cents: balanceCapEurCents,
      };
    },

    /** Newest first, at most `limit` entries. */
    async listEntries(customerId: string, limit: number): Promise<LedgerEntryDocument[]> {
      assertWalletId(customerId);
      const bounded = Math.min(Math.max(Number.isInteger(limit) && limit > 0 ? limit : 50, 1), 500);
      const head = await readHead(state, customerId);
      const sequences: number[] = [];
      for (let sequence = head.sequence; sequence >= 1 && sequences.length < bounded; sequence--) sequences.push(sequence);
      const entries = await Promise.all(sequences.map((sequence) => entryAt(state, customerId, sequence)));
      return entries.filter((entry): entry is LedgerEntryDocument => entry !== null);
    },

    /** Another replica's movement (its broadcast): reads here see it without waiting out the freshness window. */
    /** Another replica's movement (its announcement carries the new head). */
    observeMoved(moved: WalletMoved): void {
      if (moved.sequence < 1) return;
      noteReadHead(state, moved.customerId, {
        sequence: moved.sequence,
        balanceEurCents: moved.balanceEurCents,
        heldEurCents: moved.heldEurCents,
      });
    },

    /** The heads this replica serves reads from; suspended while announcements may be missed. */
    readCache: state.readHeads,

    /** Finishes what a crash left at one wallet's head; `thorough` also looks behind the head's checkpoint. */
    repairWallet(walletId: string, thorough = false): Promise<number> {
      return repairWallet(state, walletId, thorough);
    },

    /** Repairs the next batch of wallets after the recovery cursor (the periodic sweep). */
    recoverStep(thorough = false): Promise<{ visited: number; repairedEntries: number; wrapped: boolean }> {
      return recoverStep(state, thorough);
    },

    /** A full, thorough sweep over every wallet (at start-up, when a predecessor may have died mid-movement). */
    async recoverAll(): Promise<{ visited: number; repairedEntries: number }> {
      state.recoveryCursor = '';
      let visited = 0;
      let repairedEntries = 0;
      for (;;) {
        const step = await recoverStep(state, true);
        visited += step.visited;
        repairedEntries += step.repairedEntries;
        if (step.wrapped) return { visited, repairedEntries };
      }
    },
  };
}
