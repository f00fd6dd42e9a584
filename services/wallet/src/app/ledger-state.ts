import { AppError } from '@mtx/shared/errors';
import { FreshCache } from '@mtx/shared/fresh-cache';
import { BoundedCache } from '@mtx/shared/bounded-cache';
import { InsertBatcher } from '@mtx/shared/insert-batcher';
import { WriteGate } from '@mtx/shared/write-gate';
import { OrderedRunBatcher } from '@mtx/shared/run-batcher';
import type { WalletHead } from '../domain/movement';
import type { LedgerOptions } from './ledger-types';

interface WalletQueue {
  tail: Promise<unknown>;
  pending: number;
}

/** Everything the ledger keeps between calls: its ports, bounds, caches, per-wallet queues and batchers. */
export function createLedgerState(options: LedgerOptions) {
  const { store, clock, logger } = options;
  const publishCredited = options.publishCredited ?? (() => undefined);
  const publishMoved = options.publishMoved ?? (() => undefined);
  const queueMax = options.queueMax ?? 1_000;
  const recoveryBatch = options.recoveryBatch ?? 500;
  const crashPrefix = options.crashAfterLedgerWritePrefix ?? '';
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const heads = new BoundedCache<WalletHead>(options.headCacheMax ?? 100_000);
  const registered = new BoundedCache<true>(options.headCacheMax ?? 100_000);
  // Read-side only: unlike `heads`, these carry no promise that the entries up to them were announced. Every
  // movement's broadcast carries the new head itself, so an announcement sets the entry (a newer sequence wins).
  const readHeads = new FreshCache<WalletHead>({ freshMs: options.readFreshMs ?? 0, entriesMax: options.headCacheMax ?? 100_000 });
  const queues = new Map<string, WalletQueue>();
  // Movements of different wallets share store round trips under load (each insert keeps its own outcome), and
  // the hot path's writes take the database's write lock one command at a time (see WriteGate).
  const writeGate = new WriteGate(1);
  const ledgerInserts = new InsertBatcher(store.ledger, { queueMax: queueMax * 10, gate: writeGate });
  // A checkpoint is owed by one movement in 16 of a wallet: too few to fill a command alone, so they share them.
  const checkpointInserts = new InsertBatcher(store.checkpoints, { queueMax: queueMax * 10, gate: writeGate });
  // Runs of one wallet's movements (contiguous slots) must go in order; concurrent runs share a command.
  const ledgerRuns = new OrderedRunBatcher(store.ledger, { queueMax: queueMax * 10, gate: writeGate });
  return {
    store,
    clock,
    logger,
    publishCredited,
    publishMoved,
    queueMax,
    recoveryBatch,
    crashPrefix,
    exit,
    heads,
    registered,
    readHeads,
    queues,
    writeGate,
    ledgerInserts,
    checkpointInserts,
    ledgerRuns,
    /** Where the recovery pass resumes: the last wallet id it visited. */
    recoveryCursor: '',
  };
}

export type LedgerState = ReturnType<typeof createLedgerState>;

export function noteReadHead(state: LedgerState, walletId: string, head: WalletHead) {
  const known = state.readHeads.peek(walletId);
  // A late broadcast or a slower read must not move a newer head back.
  if (known && known.sequence > head.sequence) return;
  state.readHeads.set(walletId, head);
}

/**
 * Runs movements of one wallet one at a time in this process, so replicas are the only source of contention.
 * A task may hand back `settled`: work the caller need not wait for (the follow-up writes of an applied
 * movement) but the next movement of the wallet must.
 */
export function serialise<T>(
  state: LedgerState,
  walletId: string,
  task: () => Promise<{ result: T; settled?: Promise<void> }>,
): Promise<T> {
  let queue = state.queues.get(walletId);
  if (!queue) {
    queue = { tail: Promise.resolve(), pending: 0 };
    state.queues.set(walletId, queue);
  }
  if (queue.pending >= state.queueMax) {
    return Promise.reject(new AppError('unavailable', `too many movements are queued for this wallet (${state.queueMax}); retry shortly`));
  }
  const current = queue;
  current.pending += 1;
  const run = current.tail.then(task);
  current.tail = run
    .then((outcome) => outcome.settled)
    .catch(() => undefined)
    .finally(() => {
      current.pending -= 1;
      if (current.pending === 0 && state.queues.get(walletId) === current) state.queues.delete(walletId);
    });
  return run.then((outcome) => outcome.result);
}
