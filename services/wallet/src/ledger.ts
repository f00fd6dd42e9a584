import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import type { Logger } from '@mtx/shared/logger';
import { BoundedCache } from '@mtx/shared/bounded-cache';
import { InsertBatcher } from '@mtx/shared/insert-batcher';
import { WriteGate } from '@mtx/shared/write-gate';
import { insertIfAbsent, isDuplicateKeyError } from '@mtx/shared/mongo';
import { OrderedRunBatcher, type RunOutcome } from '@mtx/shared/run-batcher';
import {
  assertEntryId,
  assertMovementAmount,
  assertWalletId,
  balanceCapEurCents,
  emptyHead,
  ledgerSlotId,
  planMovement,
  type MovementKind,
  type WalletHead,
} from './domain/movement';
import { checkpointInterval, type LedgerEntryDocument, type LedgerStore } from './store/ledger-store';

export interface MovementInput {
  customerId: string;
  entryId: string;
  kind: MovementKind;
  amountEurCents: number;
  reason: string;
  reference: string;
}

export interface MovementOutcome {
  entry_id: string;
  applied: boolean;
  replay: boolean;
  balance_eur_cents: number;
  held_eur_cents: number;
  sequence: number;
  balance_delta_eur_cents: number;
  held_delta_eur_cents: number;
}

/** One entry of a DebitMany: a debit of the request's wallet. */
export interface DebitInput {
  entryId: string;
  amountEurCents: number;
  reason: string;
  reference: string;
}

/** How one DebitMany entry ended; see DebitMany in proto/wallet/v1/wallet.proto. */
export type DebitOutcome = 'applied' | 'replay' | 'insufficient_balance' | 'conflict';

export interface DebitManyItem {
  entry_id: string;
  outcome: DebitOutcome;
  balance_eur_cents: number;
  held_eur_cents: number;
  sequence: number;
  balance_delta_eur_cents: number;
  held_delta_eur_cents: number;
}

export interface DebitManyOutcome {
  customer_id: string;
  /** One per request entry, in request order. */
  items: DebitManyItem[];
  balance_eur_cents: number;
  held_eur_cents: number;
  sequence: number;
}

/**
 * Entries in one DebitMany. Its ledger entries go out as one ordered insert, which FerretDB stops at the first
 * duplicate only within one 100-document batch; 50 keeps a run well inside one.
 */
export const debitManyEntriesMax = 50;

export interface WalletView {
  customer_id: string;
  balance_eur_cents: number;
  held_eur_cents: number;
  sequence: number;
  balance_cap_eur_cents: number;
}

export interface CreditedEvent {
  customer_id: string;
  entry_id: string;
  balance_eur_cents: number;
}

/** Where applied credits are announced (NATS `events.wallet.credited`); delivery is at least once. */
export type CreditPublisher = (event: CreditedEvent) => void;

/** A wallet's head after a movement, broadcast to every replica so their read caches follow at once. */
export interface MovedEvent {
  customer_id: string;
  sequence: number;
  balance_eur_cents: number;
  held_eur_cents: number;
}

export type MovedPublisher = (event: MovedEvent) => void;

export interface LedgerOptions {
  store: LedgerStore;
  clock: Clock;
  logger: Logger;
  publishCredited?: CreditPublisher;
  publishMoved?: MovedPublisher;
  /**
   * How long a head this replica knows (from its own movements, a read, or another replica's broadcast) answers
   * reads without a store lookup. 0 makes every read look one slot past its hint (linearisable).
   */
  readFreshMs?: number;
  queueMax?: number;
  headCacheMax?: number;
  recoveryBatch?: number;
  /** Entry-id prefix that kills the process after the ledger insert (fault injection); empty is off. */
  crashAfterLedgerWritePrefix?: string;
  exit?: (code: number) => never;
}

// A slot lost to another replica costs one retry; this many in a row means the wallet is pathologically hot.
const movementAttemptsMax = 64;
const reasonLengthMax = 40;
const referenceLengthMax = 200;

function headOf(entry: LedgerEntryDocument): WalletHead {
  return { sequence: entry.seq, balanceEurCents: entry.balance_after_eur_cents, heldEurCents: entry.held_after_eur_cents };
}

/** The ledger entry that applies `input` on top of `at`, in the slot after it. */
function entryAfter(at: WalletHead, input: MovementInput, createdAt: Date): LedgerEntryDocument {
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
function figuresOf(entry: LedgerEntryDocument) {
  return {
    entry_id: entry.entry_id,
    balance_eur_cents: entry.balance_after_eur_cents,
    held_eur_cents: entry.held_after_eur_cents,
    sequence: entry.seq,
    balance_delta_eur_cents: entry.balance_delta_eur_cents,
    held_delta_eur_cents: entry.held_delta_eur_cents,
  };
}

interface WalletQueue {
  tail: Promise<unknown>;
  pending: number;
}

export type Ledger = ReturnType<typeof createLedger>;

/**
 * The insert-linearised ledger. A movement is exactly one insert at `<wallet>:<head + 1>`: the `_id` index
 * makes two writers of one slot exclusive (the loser re-reads the head and retries) and the unique `entry_id`
 * makes a movement apply at most once. Nothing is ever updated (FerretDB updates are unisolated and scan the
 * whole collection), so no money can be lost to a race. The head hints (memory, insert-only checkpoints) and
 * the entry-id pointers are written after the insert, verified by every reader (which always looks one slot
 * further) and finished by whoever comes next or by the recovery pass.
 *
 * Invariant the hints keep: every entry up to a remembered head or a checkpoint has its pointer (and was
 * announced). Whoever walks past, or collides with, an entry it did not write finishes it first, so a replay
 * is found by `_id` lookups, never by a scan.
 */
export function createLedger(options: LedgerOptions) {
  const { store, clock, logger } = options;
  const publishCredited = options.publishCredited ?? (() => undefined);
  const publishMoved = options.publishMoved ?? (() => undefined);
  const readFreshMs = options.readFreshMs ?? 0;
  const queueMax = options.queueMax ?? 1_000;
  const recoveryBatch = options.recoveryBatch ?? 500;
  const crashPrefix = options.crashAfterLedgerWritePrefix ?? '';
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const heads = new BoundedCache<WalletHead>(options.headCacheMax ?? 100_000);
  const registered = new BoundedCache<true>(options.headCacheMax ?? 100_000);
  // Read-side only: unlike `heads`, these carry no promise that the entries up to them have their pointers.
  const readHeads = new BoundedCache<{ head: WalletHead; verifiedAtMs: number }>(options.headCacheMax ?? 100_000);
  const noteReadHead = (walletId: string, head: WalletHead) => {
    const known = readHeads.get(walletId);
    // A late broadcast or a slower read must not move a newer head back.
    if (known && known.head.sequence > head.sequence) return;
    readHeads.set(walletId, { head, verifiedAtMs: performance.now() });
  };
  const queues = new Map<string, WalletQueue>();
  // Movements of different wallets share store round trips under load (each insert keeps its own outcome), and
  // the hot path's writes take the database's write lock one command at a time (see WriteGate).
  const writeGate = new WriteGate(1);
  const ledgerInserts = new InsertBatcher(store.ledger, { queueMax: queueMax * 10, gate: writeGate });
  const pointerInserts = new InsertBatcher(store.entryIds, { queueMax: queueMax * 10, gate: writeGate });
  // DebitMany runs (contiguous slots, then their pointers) must go in order; concurrent runs share a command.
  const ledgerRuns = new OrderedRunBatcher(store.ledger, { queueMax: queueMax * 10, gate: writeGate });
  const pointerRuns = new OrderedRunBatcher(store.entryIds, { queueMax: queueMax * 10, gate: writeGate });
  let recoveryCursor = '';

  /**
   * Runs movements of one wallet one at a time in this process, so replicas are the only source of contention.
   * A task may hand back `settled`: work the caller need not wait for (the follow-up writes of an applied
   * movement) but the next movement of the wallet must.
   */
  function serialise<T>(walletId: string, task: () => Promise<{ result: T; settled?: Promise<void> }>): Promise<T> {
    let queue = queues.get(walletId);
    if (!queue) {
      queue = { tail: Promise.resolve(), pending: 0 };
      queues.set(walletId, queue);
    }
    if (queue.pending >= queueMax) {
      return Promise.reject(new AppError('unavailable', `too many movements are queued for this wallet (${queueMax}); retry shortly`));
    }
    const current = queue;
    current.pending += 1;
    const run = current.tail.then(task);
    current.tail = run
      .then((outcome) => outcome.settled)
      .catch(() => undefined)
      .finally(() => {
        current.pending -= 1;
        if (current.pending === 0 && queues.get(walletId) === current) queues.delete(walletId);
      });
    return run.then((outcome) => outcome.result);
  }

  async function entryAt(walletId: string, sequence: number): Promise<LedgerEntryDocument | null> {
    return store.ledger.findOne({ _id: ledgerSlotId(walletId, sequence) });
  }

  /**
   * A recent head from the checkpoints, found by galloping over block numbers (1, 2, 4, … then bisecting), so a
   * cold start costs O(log n) lookups. A gap left by a crash only makes it start from an older checkpoint. The
   * head is read from the ledger entry itself, so a damaged checkpoint cannot skew a balance.
   */
  async function checkpointStart(walletId: string): Promise<WalletHead> {
    const present = async (block: number) =>
      (await store.checkpoints.findOne({ _id: `${walletId}:${block}` }, { projection: { _id: 1 } })) !== null;
    let low = 0;
    let high = 1;
    while (await present(high)) {
      low = high;
      high *= 2;
    }
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (await present(middle)) low = middle;
      else high = middle;
    }
    if (low === 0) return emptyHead;
    const entry = await entryAt(walletId, low * checkpointInterval);
    if (entry) return headOf(entry);
    logger.error({ wallet_id: walletId, block: low }, 'checkpoint points past the ledger; reading from the start');
    return emptyHead;
  }

  function announce(entry: LedgerEntryDocument): void {
    if (entry.kind === 'credit')
      publishCredited({ customer_id: entry.wallet_id, entry_id: entry.entry_id, balance_eur_cents: entry.balance_after_eur_cents });
  }

  /**
   * Finishes an entry's follow-up writes whoever wrote it: announcement, then pointer, then (on a block boundary)
   * checkpoint. An entry without a pointer may never have been announced (its writer may have died after the
   * insert), so it is announced before the pointer is written; a repeat announcement is harmless, a lost one is not.
   * Returns whether anything was missing.
   */
  async function ensureFollowUps(entry: LedgerEntryDocument, knownMissingPointer = false): Promise<boolean> {
    let repaired = false;
    if (knownMissingPointer || !(await store.entryIds.findOne({ _id: entry.entry_id }, { projection: { _id: 1 } }))) {
      announce(entry);
      repaired = await pointerInserts.insertIfAbsent({ _id: entry.entry_id, wallet_id: entry.wallet_id, seq: entry.seq });
    }
    if (await writeCheckpoint(entry)) repaired = true;
    return repaired;
  }

  /** The checkpoint an entry on a block boundary owes, once every entry up to it has its pointer. */
  async function writeCheckpoint(entry: LedgerEntryDocument): Promise<boolean> {
    if (entry.seq % checkpointInterval !== 0) return false;
    const block = entry.seq / checkpointInterval;
    return insertIfAbsent(store.checkpoints, {
      _id: `${entry.wallet_id}:${block}`,
      wallet_id: entry.wallet_id,
      block,
      seq: entry.seq,
      balance_eur_cents: entry.balance_after_eur_cents,
      held_eur_cents: entry.held_after_eur_cents,
      created_at: clock.now(),
    });
  }

  /**
   * Follows the ledger from `start` until the first free slot: a stale hint only costs lookups. Writers pass
   * `finish`, which completes the follow-up writes of every entry walked past (entries another replica, perhaps a
   * dead one, wrote), keeping the invariant that everything up to a remembered head has its pointer.
   */
  async function walkForward(
    walletId: string,
    start: WalletHead,
    finish: boolean,
  ): Promise<{ head: WalletHead; walked: LedgerEntryDocument[]; repaired: number }> {
    let head = start;
    let repaired = 0;
    const walked: LedgerEntryDocument[] = [];
    for (;;) {
      const next = await entryAt(walletId, head.sequence + 1);
      if (!next) return { head, walked, repaired };
      if (finish && (await ensureFollowUps(next))) repaired += 1;
      walked.push(next);
      head = headOf(next);
    }
  }

  async function headForWrite(walletId: string, optimistic: boolean): Promise<{ head: WalletHead; walked: LedgerEntryDocument[] }> {
    // The insert at head + 1 is itself the freshness check (E11000 when another replica moved the wallet), so a
    // remembered head is used without looking one slot further first.
    if (!registered.get(walletId)) {
      // Registered before its first entry, so the recovery pass (which walks registrations) reaches every ledger.
      await insertIfAbsent(store.wallets, { _id: walletId, created_at: clock.now() });
      registered.set(walletId, true);
    }
    const remembered = optimistic ? heads.get(walletId) : undefined;
    if (remembered) return { head: remembered, walked: [] };
    let start = heads.get(walletId);
    if (!start) start = await checkpointStart(walletId);
    const result = await walkForward(walletId, start, true);
    heads.set(walletId, result.head);
    return result;
  }

  async function findApplied(entryId: string, walked: LedgerEntryDocument[]): Promise<LedgerEntryDocument | null> {
    const seen = walked.find((entry) => entry.entry_id === entryId);
    if (seen) return seen;
    const pointer = await store.entryIds.findOne({ _id: entryId });
    if (!pointer) return null;
    return entryAt(pointer.wallet_id, pointer.seq);
  }

  const sameMovement = (original: LedgerEntryDocument, input: MovementInput) =>
    original.wallet_id === input.customerId && original.kind === input.kind && original.amount_eur_cents === input.amountEurCents;

  function replayOutcome(original: LedgerEntryDocument, input: MovementInput): MovementOutcome {
    if (!sameMovement(original, input)) {
      throw new AppError('conflict', `entry id ${input.entryId} was already used for a different movement`, {
        param: 'entry_id',
        details: { kind: original.kind, amount_eur_cents: original.amount_eur_cents },
      });
    }
    return { ...figuresOf(original), applied: false, replay: true };
  }

  async function finishInsert(entry: LedgerEntryDocument): Promise<void> {
    try {
      await ensureFollowUps(entry, true);
    } catch (error) {
      // The movement is applied (the insert is the commit); only hints are missing. Forgetting the in-memory
      // head makes the next movement walk from a checkpoint and finish them.
      heads.delete(entry.wallet_id);
      logger.warn(
        { err: error, entry_id: entry.entry_id },
        'ledger hints not written after an applied movement; recovery will finish them',
      );
    }
  }

  async function applyMovement(input: MovementInput): Promise<{ result: MovementOutcome; settled?: Promise<void> }> {
    const walletId = input.customerId;
    for (let attempt = 0; attempt < movementAttemptsMax; attempt++) {
      const remembered = heads.get(walletId);
      // A debit the remembered balance cannot cover is refused only on the true head.
      const optimistic =
        attempt === 0 && remembered !== undefined && (input.kind === 'credit' || remembered.balanceEurCents >= input.amountEurCents);
      const { head, walked } = await headForWrite(walletId, optimistic);
      if (input.kind === 'debit' && head.balanceEurCents < input.amountEurCents) {
        // A debit that already applied must answer as a replay even if the balance has moved on since.
        const existing = await findApplied(input.entryId, walked);
        if (existing) return { result: replayOutcome(existing, input) };
      }
      const entry = entryAfter(head, input, clock.now());
      try {
        await ledgerInserts.insert(entry);
      } catch (error) {
        if (!isDuplicateKeyError(error)) {
          heads.delete(walletId);
          throw error;
        }
        // E11000 names either the slot (another writer moved the wallet) or the entry id (already applied).
        const occupant = await entryAt(walletId, entry.seq);
        if (occupant && occupant.entry_id !== input.entryId) {
          await ensureFollowUps(occupant);
          heads.set(walletId, headOf(occupant));
          continue;
        }
        const original =
          occupant ?? (await findApplied(input.entryId, walked)) ?? (await store.ledger.findOne({ entry_id: input.entryId }));
        if (!original) continue;
        return { result: replayOutcome(original, input) };
      }
      if (crashPrefix && entry.entry_id.startsWith(crashPrefix)) {
        logger.fatal({ entry_id: entry.entry_id }, 'fault injection: crashing between the ledger write and the head hints');
        exit(137);
      }
      heads.set(walletId, headOf(entry));
      noteReadHead(walletId, headOf(entry));
      publishMoved({
        customer_id: walletId,
        sequence: entry.seq,
        balance_eur_cents: entry.balance_after_eur_cents,
        held_eur_cents: entry.held_after_eur_cents,
      });
      // The insert is the commit: the caller is answered now; the announcement, pointer and checkpoint follow
      // before the next movement of this wallet starts (and recovery finishes them if this process dies).
      return {
        result: { ...figuresOf(entry), applied: true, replay: false },
        settled: finishInsert(entry),
      };
    }
    throw new AppError('unavailable', 'the wallet is moving too fast to apply this movement now; retry with the same entry id');
  }

  /**
   * Follow-ups of a run of entries this process inserted together: announcements, then the pointers in ONE
   * ordered insert, then the checkpoints of the block boundaries the run crossed (only once every pointer is in,
   * which is what a checkpoint promises). In order, so a crash leaves the run's entries without pointers as a
   * suffix at the head, which the recovery step finds by stepping back from the head.
   */
  async function finishRun(entries: LedgerEntryDocument[]): Promise<boolean> {
    try {
      for (const entry of entries) announce(entry);
      await insertPointersInOrder(entries);
      for (const entry of entries) await writeCheckpoint(entry);
      return true;
    } catch (error) {
      // As for one movement: applied, only hints missing; the next movement walks from a checkpoint and finishes them.
      heads.delete(entries[0]!.wallet_id);
      logger.warn(
        { err: error, entry_ids: entries.map((entry) => entry.entry_id) },
        'ledger hints not written after applied movements; recovery will finish them',
      );
      return false;
    }
  }

  async function insertPointersInOrder(entries: LedgerEntryDocument[]): Promise<void> {
    let pointers = entries.map((entry) => ({ _id: entry.entry_id, wallet_id: entry.wallet_id, seq: entry.seq }));
    while (pointers.length > 0) {
      const outcome: RunOutcome = await pointerRuns.insert(pointers);
      if (outcome.error === undefined) return;
      // A writer that walked past the run (another replica) may have written one already: skip it, keep the order.
      if (outcome.landed === null || !outcome.duplicate) throw outcome.error;
      pointers = pointers.slice(outcome.landed + 1);
    }
  }

  function appliedItem(entry: LedgerEntryDocument): DebitManyItem {
    return { ...figuresOf(entry), outcome: 'applied' };
  }

  function refusedItem(entryId: string, outcome: 'insufficient_balance' | 'conflict', at: WalletHead): DebitManyItem {
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
  function priorItem(original: LedgerEntryDocument, input: MovementInput, at: WalletHead): DebitManyItem {
    if (!sameMovement(original, input)) return refusedItem(input.entryId, 'conflict', at);
    return { ...appliedItem(original), outcome: 'replay' };
  }

  /**
   * The entries of a DebitMany against one head, in request order: each is applied if the balance left by the
   * ones before it covers it, else refused; refused and already-resolved entries move nothing.
   */
  function planDebits(
    head: WalletHead,
    debits: MovementInput[],
    open: number[],
  ): { steps: Array<{ index: number; at: WalletHead; entry?: LedgerEntryDocument }>; refused: number[] } {
    const steps: Array<{ index: number; at: WalletHead; entry?: LedgerEntryDocument }> = [];
    const refused: number[] = [];
    const createdAt = clock.now();
    let at = head;
    for (const index of open) {
      const debit = debits[index]!;
      if (at.balanceEurCents < debit.amountEurCents) {
        steps.push({ index, at });
        refused.push(index);
        continue;
      }
      const entry = entryAfter(at, debit, createdAt);
      steps.push({ index, at, entry });
      at = headOf(entry);
    }
    return { steps, refused };
  }

  /**
   * Several debits of one wallet as ONE ledger insert of contiguous slots (and one pointer insert after it),
   * with the same rules as one debit each: planned in request order against the head, a refusal only on a
   * verified head, an entry id applied at most once. When the run collides (ordered, so the entries before the
   * collision are in and none after it was tried), the landed ones are finished, the collision is resolved like
   * a single movement's (another writer's slot: finish it and re-read; the entry id: a replay) and the rest is
   * planned again against the new head.
   */
  async function applyDebits(walletId: string, debits: MovementInput[]): Promise<{ result: DebitManyOutcome; settled?: Promise<void> }> {
    const items: Array<DebitManyItem | undefined> = debits.map(() => undefined);
    let final: WalletHead | undefined;
    let moved = false;
    let settled: Promise<void> | undefined;
    for (let attempt = 0; attempt < movementAttemptsMax; attempt++) {
      const open = debits.flatMap((_, index) => (items[index] === undefined ? [index] : []));
      if (open.length === 0) break;
      const optimistic = attempt === 0 && heads.get(walletId) !== undefined;
      let { head, walked } = await headForWrite(walletId, optimistic);
      let plan = planDebits(head, debits, open);
      if (optimistic && plan.refused.length > 0) {
        // A debit the remembered balance cannot cover is refused only on the true head.
        ({ head, walked } = await headForWrite(walletId, false));
        plan = planDebits(head, debits, open);
      }
      final = head;
      // A refused entry that already applied answers as a replay even if the balance has moved on since.
      await Promise.all(
        plan.refused.map(async (index) => {
          const existing = await findApplied(debits[index]!.entryId, walked);
          if (existing) items[index] = priorItem(existing, debits[index]!, head);
        }),
      );
      const entries = plan.steps.flatMap((step) => (step.entry ? [step.entry] : []));
      const resolveSteps = (until: number) => {
        for (const step of plan.steps.slice(0, until)) {
          if (step.entry) items[step.index] = appliedItem(step.entry);
          else items[step.index] ??= refusedItem(debits[step.index]!.entryId, 'insufficient_balance', step.at);
        }
      };
      if (entries.length === 0) {
        resolveSteps(plan.steps.length);
        break;
      }
      // Ordered: on any store the entries before the first failure are in and none after it was tried.
      const { landed, error, duplicate } = await ledgerRuns.insert(entries);
      if (landed === null) {
        heads.delete(walletId);
        throw error;
      }
      const run = entries.slice(0, landed);
      if (crashPrefix && run.some((entry) => entry.entry_id.startsWith(crashPrefix))) {
        logger.fatal(
          { entry_ids: run.map((entry) => entry.entry_id) },
          'fault injection: crashing between the ledger write and the head hints',
        );
        exit(137);
      }
      if (run.length > 0) {
        final = headOf(run[run.length - 1]!);
        heads.set(walletId, final);
        noteReadHead(walletId, final);
        moved = true;
      }
      if (error === undefined) {
        resolveSteps(plan.steps.length);
        // The insert is the commit: the caller is answered now, the pointers and checkpoints follow before the
        // wallet's next movement starts (and recovery finishes them if this process dies).
        settled = finishRun(run).then(() => undefined);
        break;
      }
      // The run stopped at entries[landed]: what was planned before it stands, the rest is planned again.
      const failed = entries[landed]!;
      const failedStep = plan.steps.findIndex((step) => step.entry === failed);
      resolveSteps(failedStep);
      // Finished before anything else is tried: a remembered head promises pointers up to it.
      const finished = run.length === 0 || (await finishRun(run));
      if (!duplicate) {
        heads.delete(walletId);
        throw error;
      }
      // E11000 names either the slot (another writer moved the wallet) or the entry id (already applied).
      const occupant = await entryAt(walletId, failed.seq);
      if (occupant && occupant.entry_id !== failed.entry_id) {
        await ensureFollowUps(occupant);
        if (finished) heads.set(walletId, headOf(occupant));
        continue;
      }
      const failedIndex = plan.steps[failedStep]!.index;
      const original =
        occupant ?? (await findApplied(failed.entry_id, walked)) ?? (await store.ledger.findOne({ entry_id: failed.entry_id }));
      if (!original) continue;
      items[failedIndex] = priorItem(original, debits[failedIndex]!, plan.steps[failedStep]!.at);
      // Most likely the repeat of an earlier request: the entries after it are looked up by their pointers at
      // once rather than found by one collision each.
      await Promise.all(
        open
          .filter((index) => index > failedIndex && items[index] === undefined)
          .map(async (index) => {
            const existing = await findApplied(debits[index]!.entryId, []);
            if (existing) items[index] = priorItem(existing, debits[index]!, plan.steps[failedStep]!.at);
          }),
      );
    }
    if (items.some((item) => item === undefined) || !final) {
      throw new AppError('unavailable', 'the wallet is moving too fast to apply these debits now; retry with the same entry ids');
    }
    if (moved)
      publishMoved({
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

  function validateMovement(input: MovementInput): void {
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

  /** Reads the true head: linearisable, because it always looks one slot past whatever hint it starts from. */
  async function readHead(walletId: string): Promise<WalletHead> {
    const remembered = heads.get(walletId);
    let head: WalletHead;
    if (remembered) {
      head = (await walkForward(walletId, remembered, false)).head;
    } else {
      const start = await checkpointStart(walletId);
      // Everything up to a checkpoint has its pointer, so that head is safe to remember; a walked-to one is not.
      if (!heads.get(walletId)) heads.set(walletId, start);
      head = (await walkForward(walletId, start, false)).head;
    }
    noteReadHead(walletId, head);
    return head;
  }

  /**
   * A head at most `readFreshMs` old: what this replica applied itself is exact at once, another replica's
   * movement arrives by broadcast within milliseconds, and a lost broadcast is bounded by the freshness window.
   */
  async function recentHead(walletId: string): Promise<WalletHead> {
    const known = readFreshMs > 0 ? readHeads.get(walletId) : undefined;
    if (known && performance.now() - known.verifiedAtMs <= readFreshMs) return known.head;
    return readHead(walletId);
  }

  /**
   * Finishes what a crash may have left undone on one wallet; returns how many entries needed it. Only the
   * newest entries can lack their follow-ups: whoever wrote any later entry first finished the ones before it
   * (its own follow-ups complete before the wallet's next movement; a foreign one is finished when walked past
   * or hit by E11000). One movement leaves at most the head entry unfinished; a DebitMany run, whose pointers go
   * in one ordered insert after it, leaves a suffix of at most `debitManyEntriesMax` entries without pointers,
   * found by stepping back from the head, and perhaps a checkpoint inside the run, found among the entries
   * walked from the latest checkpoint. `thorough` re-checks every entry since the latest checkpoint instead (the
   * start-up sweep).
   */
  async function repairWallet(walletId: string, thorough = false): Promise<number> {
    const start = await checkpointStart(walletId);
    if (thorough) {
      const { head, repaired } = await walkForward(walletId, start, true);
      if (repaired > 0)
        logger.info(
          { wallet_id: walletId, repaired_entries: repaired, head_sequence: head.sequence },
          'recovery finished entries a crash left without pointers or checkpoints',
        );
      return repaired;
    }
    const { head, walked } = await walkForward(walletId, start, false);
    const walkedAt = new Map(walked.map((entry) => [entry.seq, entry]));
    const unpointed: LedgerEntryDocument[] = [];
    for (let sequence = head.sequence; sequence >= 1 && unpointed.length < debitManyEntriesMax; sequence--) {
      const entry = walkedAt.get(sequence) ?? (await entryAt(walletId, sequence));
      if (!entry || (await store.entryIds.findOne({ _id: entry.entry_id }, { projection: { _id: 1 } }))) break;
      unpointed.unshift(entry);
    }
    // Oldest first: a checkpoint is written only once every entry up to it has its pointer.
    const firstUnpointed = unpointed[0]?.seq ?? head.sequence + 1;
    const boundaries = walked.filter((entry) => entry.seq < firstUnpointed && entry.seq % checkpointInterval === 0);
    let repaired = 0;
    for (const entry of boundaries) if (await writeCheckpoint(entry)) repaired += 1;
    for (const entry of unpointed) if (await ensureFollowUps(entry, true)) repaired += 1;
    if (repaired > 0)
      logger.info(
        { wallet_id: walletId, repaired_entries: repaired, head_sequence: head.sequence },
        'recovery finished entries a crash left without their pointers or checkpoints',
      );
    return repaired;
  }

  /**
   * One bounded step of the recovery sweep: the next `recoveryBatch` wallets in `_id` order. Returns true
   * when the sweep has wrapped around (every wallet visited since the previous wrap).
   */
  async function recoverStep(thorough = false): Promise<{ visited: number; repairedEntries: number; wrapped: boolean }> {
    const batch = await store.wallets
      .find(recoveryCursor ? { _id: { $gt: recoveryCursor } } : {}, { projection: { _id: 1 } })
      .sort({ _id: 1 })
      .limit(recoveryBatch)
      .toArray();
    let repairedEntries = 0;
    for (const wallet of batch) repairedEntries += await repairWallet(wallet._id, thorough);
    const wrapped = batch.length < recoveryBatch;
    recoveryCursor = wrapped ? '' : batch[batch.length - 1]!._id;
    return { visited: batch.length, repairedEntries, wrapped };
  }

  return {
    async credit(input: Omit<MovementInput, 'kind'>): Promise<MovementOutcome> {
      const movement: MovementInput = { ...input, kind: 'credit' };
      validateMovement(movement);
      return serialise(movement.customerId, () => applyMovement(movement));
    },

    async debit(input: Omit<MovementInput, 'kind'>): Promise<MovementOutcome> {
      const movement: MovementInput = { ...input, kind: 'debit' };
      validateMovement(movement);
      return serialise(movement.customerId, () => applyMovement(movement));
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
      return serialise(customerId, () => applyDebits(customerId, debits));
    },

    /** `consistent` reads the store (linearisable); otherwise a head at most `readFreshMs` old may answer. */
    async getWallet(customerId: string, options: { consistent?: boolean } = {}): Promise<WalletView> {
      assertWalletId(customerId);
      const head = options.consistent ? await readHead(customerId) : await recentHead(customerId);
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
      const head = await readHead(customerId);
      const sequences: number[] = [];
      for (let sequence = head.sequence; sequence >= 1 && sequences.length < bounded; sequence--) sequences.push(sequence);
      const entries = await Promise.all(sequences.map((sequence) => entryAt(customerId, sequence)));
      return entries.filter((entry): entry is LedgerEntryDocument => entry !== null);
    },

    /** Another replica's movement (its broadcast): reads here see it without waiting out the freshness window. */
    observeMoved(event: MovedEvent): void {
      if (typeof event?.customer_id !== 'string' || !Number.isSafeInteger(event.sequence) || event.sequence < 1) return;
      if (!Number.isSafeInteger(event.balance_eur_cents) || !Number.isSafeInteger(event.held_eur_cents)) return;
      noteReadHead(event.customer_id, {
        sequence: event.sequence,
        balanceEurCents: event.balance_eur_cents,
        heldEurCents: event.held_eur_cents,
      });
    },

    repairWallet,
    recoverStep,

    /** A full, thorough sweep over every wallet (at start-up, when a predecessor may have died mid-movement). */
    async recoverAll(): Promise<{ visited: number; repairedEntries: number }> {
      recoveryCursor = '';
      let visited = 0;
      let repairedEntries = 0;
      for (;;) {
        const step = await recoverStep(true);
        visited += step.visited;
        repairedEntries += step.repairedEntries;
        if (step.wrapped) return { visited, repairedEntries };
      }
    },
  };
}
