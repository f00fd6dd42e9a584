import { lastPresent } from '@mtx/shared/gallop';
import { InsertBatcher } from '@mtx/shared/insert-batcher';
import type { Clock } from '@mtx/shared/clock';
import type { GatewayStore } from '../store/gateway-store';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

const windowMs = 60_000;
const statesMax = 50_000;
/** Share of the limit in one block, 1/20 = 5 %: what one replica may hold unused when a window ends. */
const blockShareOfLimit = 20;
/**
 * FerretDB 1.24 inserts in batches of 100 documents and, when an ordered batch hits a duplicate, still goes on
 * with the next batch (its `n` then counts documents after the failure; measured). Inside one batch it stops at
 * the first duplicate, as MongoDB does, so a reservation of at most 100 blocks is "ours up to the first error"
 * on both stores; a larger one would leave blocks inserted by us that we cannot tell apart from other replicas'.
 */
const reservationBlocksMax = 100;
/**
 * Requests of one replica queued for slots of one prefix. Beyond this requests share one block claim at a time
 * instead of queueing: the queue's memory stays bounded, and only a flood of one customer on one replica gets
 * there.
 */
export const rateLimitWaitersMax = 1_024;
/** Consecutive reservations that win no block (other replicas win them all) before the queued requests are refused. */
const fruitlessReservationsMax = 64;
const duplicateKeyCode = 11_000;

/** Slots in one block for `limit`: max(1, limit/20). */
export function rateLimitBlockSlots(limit: number): number {
  return Math.max(1, Math.floor(limit / blockShareOfLimit));
}

/**
 * How a limit's slots fall into blocks: blocks of limit/20 up to the last two blocks' worth of slots, then
 * blocks of one slot. Near the limit every slot held unused is a request another replica refuses, so there a
 * replica claims exactly what is asked of it (one insert per request, as a slot-by-slot limiter would).
 */
export class BlockLayout {
  readonly blockSlots: number;
  /** Blocks of `blockSlots`; the blocks after them hold one slot each. */
  readonly fullBlocks: number;
  readonly blocksMax: number;

  constructor(readonly limit: number) {
    this.blockSlots = rateLimitBlockSlots(limit);
    const singleSlotTail = Math.min(limit, 2 * this.blockSlots);
    this.fullBlocks = this.blockSlots === 1 ? 0 : Math.floor((limit - singleSlotTail) / this.blockSlots);
    this.blocksMax = this.fullBlocks + (limit - this.fullBlocks * this.blockSlots);
  }

  slotsOf(block: number): SlotRange {
    if (block <= this.fullBlocks) return { next: (block - 1) * this.blockSlots + 1, last: block * this.blockSlots };
    const slot = this.fullBlocks * this.blockSlots + (block - this.fullBlocks);
    return { next: slot, last: slot };
  }

  /**
   * Blocks from `fromBlock` whose slots do not exceed `slots`, at least one: a claim for queued requests holds no
   * more than they need unless fewer are waiting than one block holds (what a replica holds unused when the
   * window ends is lost to every replica).
   */
  blocksFor(fromBlock: number, slots: number): number {
    let blocks = 0;
    let covered = 0;
    for (let block = fromBlock; block <= this.blocksMax && blocks < reservationBlocksMax; block++) {
      const range = this.slotsOf(block);
      covered += range.last - range.next + 1;
      if (covered > slots) break;
      blocks++;
    }
    return Math.max(1, blocks);
  }
}

/** Consecutive slots `next..last` this replica holds and has not handed out. */
interface SlotRange {
  next: number;
  last: number;
}

/** What one replica knows about one `<bucket>:<customer>:<window>` prefix. */
interface PrefixState {
  prefix: string;
  window: number;
  /** How the window's slots fall into blocks, from the limit the prefix was first seen with. */
  layout: BlockLayout;
  /** Slots of blocks this replica inserted (so exclusively its own), not handed out yet, ascending. */
  owned: SlotRange[];
  /** Next block this replica will try to insert; below it, blocks are taken (or were skipped by a gallop). */
  nextBlock: number;
  /** Requests waiting for a slot, served first come first served. */
  waiters: Waiter[];
  /** Whether the one reservation loop of this prefix is running. */
  reserving: boolean;
  claimsInFlight: number;
  /** The one block claim that requests past the queue's bound wait on, if any: resolves to the blocks won. */
  overflowClaim?: Promise<number>;
}

interface Waiter {
  /** A slot, or undefined when the limit is reached. */
  resolve: (slot: number | undefined) => void;
  reject: (error: unknown) => void;
}

interface Claim {
  /** Blocks won, ascending. */
  blocks: number[];
  error?: unknown;
}

/**
 * Fixed one-minute windows shared by every gateway replica through the store. Each admitted request uses one
 * numbered slot (1..limit) of a block `<bucket>:<customer>:<window>:b<k>` that this replica inserted; block k
 * holds slots (k-1)·B+1 .. k·B with B = max(1, limit/20), and the last 2·B slots are blocks of one slot
 * (`BlockLayout`). The unique `_id` makes a block exclusive even on
 * FerretDB, whose updates are not atomic, so across any number of replicas at most `limit` requests pass per
 * window.
 *
 * A replica inserts a block when it needs a slot and holds none, then hands the block's slots out from memory:
 * one store write per B requests of a customer, whatever the customer's rate, and concurrent requests queue
 * behind the one reservation in flight per prefix instead of each inserting. The slots a replica holds unused
 * when a window ends are lost, so replicas may together admit up to replicas × (B − 1) fewer than `limit` in a
 * window, never more; one replica alone admits exactly `limit`, since it keeps what it holds until the window
 * ends. After losing a block to another replica it gallops forward by `_id` lookups instead of trying each
 * block in turn.
 */
export function createRateLimiter({ store, clock }: { store: GatewayStore; clock: Clock }) {
  // Blocks claimed one at a time (the usual case) by many customers share one unordered insert (group commit).
  const singleBlocks = new InsertBatcher(store.rateLimitSlots);
  const states = new Map<string, PrefixState>();
  let lastSweptWindow = 0;

  function blockId(prefix: string, block: number): string {
    return `${prefix}:b${block}`;
  }

  function stateOf(prefix: string, window: number, limit: number): PrefixState {
    let state = states.get(prefix);
    if (state) return state;
    if (states.size >= statesMax) {
      // Only idle states go: an in-flight reservation must find its state again. Their unused slots are lost.
      for (const [key, candidate] of states) {
        if (!candidate.reserving && candidate.claimsInFlight === 0 && candidate.waiters.length === 0) states.delete(key);
      }
    }
    state = { prefix, window, layout: new BlockLayout(limit), owned: [], nextBlock: 1, waiters: [], reserving: false, claimsInFlight: 0 };
    states.set(prefix, state);
    return state;
  }

  function takeOwnedSlot(state: PrefixState): number | undefined {
    const range = state.owned[0];
    if (!range) return undefined;
    const slot = range.next++;
    if (range.next > range.last) state.owned.shift();
    return slot;
  }

  function addOwnedBlocks(state: PrefixState, blocks: number[]): void {
    for (const block of blocks) state.owned.push(state.layout.slotsOf(block));
    state.owned.sort((left, right) => left.next - right.next);
  }

  async function blockTaken(prefix: string, block: number): Promise<boolean> {
    return (await store.rateLimitSlots.findOne({ _id: blockId(prefix, block) }, { projection: { _id: 1 } })) !== null;
  }

  /**
   * Inserts up to `count` consecutive blocks from `state.nextBlock` and returns those that are ours: with an
   * ordered insert exactly the ones before the first write error. A store error comes back in `error` next to
   * any blocks that were ours before it, so the caller can keep those and still fail.
   */
  async function claim(state: PrefixState, count: number): Promise<Claim> {
    const { prefix, window } = state;
    const blocksMax = state.layout.blocksMax;
    const first = state.nextBlock;
    const size = Math.min(count, blocksMax - first + 1, reservationBlocksMax);
    // Advanced before the insert, so claims running at once on this replica never overlap each other.
    state.nextBlock = first + size;
    state.claimsInFlight++;
    try {
      const documents = Array.from({ length: size }, (_, offset) => ({ _id: blockId(prefix, first + offset), window }));
      let inserted = size;
      try {
        if (size === 1) {
          if (!(await singleBlocks.insertIfAbsent(documents[0]!))) inserted = 0;
        } else await store.rateLimitSlots.insertMany(documents, { ordered: true });
      } catch (error) {
        const firstError = firstWriteError(error);
        // Without a write error at a known position (timeout, outage, write concern) nothing is known to be
        // ours; whatever did get inserted stays unused, which can only admit less.
        if (!firstError || firstError.index < 0 || firstError.index >= size) return { blocks: [], error };
        inserted = firstError.index;
        if (firstError.code !== duplicateKeyCode) return { blocks: consecutive(first, inserted), error };
      }
      const blocks = consecutive(first, inserted);
      if (inserted === size) return { blocks };
      // Block `first + inserted` went to another replica; the rest of this claim was not inserted.
      try {
        const free = Math.min(await lastPresent(first + inserted, (block) => blockTaken(prefix, block), blocksMax), blocksMax) + 1;
        // Alone, this claim may hand back its uninserted remainder if it is free; with other claims in flight
        // their blocks lie beyond, and going back would make this replica collide with itself.
        state.nextBlock = state.claimsInFlight === 1 ? free : Math.max(state.nextBlock, free);
      } catch (error) {
        return { blocks, error };
      }
      return { blocks };
    } finally {
      state.claimsInFlight--;
    }
  }

  function serveWaiters(state: PrefixState): void {
    while (state.waiters.length > 0) {
      const slot = takeOwnedSlot(state);
      if (slot === undefined) return;
      state.waiters.shift()!.resolve(slot);
    }
  }

  /**
   * The one reservation loop of a prefix on this replica: while requests wait, it inserts as many blocks as
   * they need with one command at a time and hands the slots out in arrival order, so a burst never starts an
   * insert per request. It ends when nobody waits; every pass either wins blocks or moves `nextBlock` forward,
   * so it cannot spin.
   */
  async function reserveForWaiters(state: PrefixState): Promise<void> {
    state.reserving = true;
    let fruitlessReservations = 0;
    try {
      for (;;) {
        serveWaiters(state);
        if (state.waiters.length === 0) return;
        if (state.nextBlock > state.layout.blocksMax || fruitlessReservations >= fruitlessReservationsMax) {
          for (const waiter of state.waiters.splice(0)) waiter.resolve(undefined);
          return;
        }
        const claimed = await claim(state, state.layout.blocksFor(state.nextBlock, state.waiters.length));
        addOwnedBlocks(state, claimed.blocks);
        fruitlessReservations = claimed.blocks.length > 0 ? 0 : fruitlessReservations + 1;
        if (claimed.error !== undefined) {
          serveWaiters(state);
          // The rest fail with the store's error (the gateway answers 503): none is admitted without a slot, and
          // none retries into an outage one after another.
          for (const waiter of state.waiters.splice(0)) waiter.reject(claimed.error);
          return;
        }
      }
    } catch (error) {
      for (const waiter of state.waiters.splice(0)) waiter.reject(error);
    } finally {
      state.reserving = false;
    }
  }

  /**
   * Past the queue's bound: requests take slots of blocks held, and share one block claim at a time while none
   * is left (a claim per request would insert blocks nobody needs).
   */
  async function takeOverflowSlot(state: PrefixState): Promise<number | undefined> {
    let fruitlessClaims = 0;
    while (fruitlessClaims < fruitlessReservationsMax) {
      const owned = takeOwnedSlot(state);
      if (owned !== undefined) return owned;
      if (state.nextBlock > state.layout.blocksMax) return undefined;
      state.overflowClaim ??= claim(state, 1)
        .then((claimed) => {
          addOwnedBlocks(state, claimed.blocks);
          if (claimed.error !== undefined) throw claimed.error;
          return claimed.blocks.length;
        })
        .finally(() => {
          state.overflowClaim = undefined;
        });
      if ((await state.overflowClaim) === 0) fruitlessClaims++;
    }
    return takeOwnedSlot(state);
  }

  async function sweep(window: number): Promise<void> {
    if (window <= lastSweptWindow) return;
    lastSweptWindow = window;
    // No TTL indexes on FerretDB: old windows are deleted by the replica that first sees a new window.
    await store.rateLimitSlots.deleteMany({ window: { $lt: window - 1 } }).catch(() => undefined);
    for (const key of states.keys()) if (!key.endsWith(`:${window}`)) states.delete(key);
  }

  function windowOf(nowMs: number): number {
    return Math.floor(nowMs / windowMs);
  }

  return {
    async take(bucket: string, customerId: string, limit: number): Promise<RateLimitDecision> {
      const nowMs = clock.now().getTime();
      const window = windowOf(nowMs);
      const resetSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - nowMs) / 1000));
      const prefix = `${bucket}:${customerId}:${window}`;
      void sweep(window);
      const state = stateOf(prefix, window, limit);
      const admit = (slot: number): RateLimitDecision => ({ allowed: true, limit, remaining: limit - slot, resetSeconds });
      const refuse = (): RateLimitDecision => ({ allowed: false, limit, remaining: 0, resetSeconds });
      if (state.waiters.length === 0) {
        const owned = takeOwnedSlot(state);
        if (owned !== undefined) return admit(owned);
        // A reservation in flight may still bring slots below the limit, so only refuse when none is.
        if (!state.reserving && state.claimsInFlight === 0 && state.nextBlock > state.layout.blocksMax) return refuse();
      }
      if (state.waiters.length >= rateLimitWaitersMax) {
        const slot = await takeOverflowSlot(state);
        return slot === undefined ? refuse() : admit(slot);
      }
      const slot = await new Promise<number | undefined>((resolve, reject) => {
        state.waiters.push({ resolve, reject });
        if (!state.reserving) void reserveForWaiters(state);
      });
      return slot === undefined ? refuse() : admit(slot);
    },

    /** Slots this replica holds for the current window and has not handed out (lost if unused when it ends). */
    reservedSlots(bucket: string, customerId: string): number[] {
      const prefix = `${bucket}:${customerId}:${windowOf(clock.now().getTime())}`;
      return (states.get(prefix)?.owned ?? []).flatMap((range) => consecutive(range.next, range.last - range.next + 1));
    },
  };
}

function consecutive(first: number, count: number): number[] {
  return Array.from({ length: count }, (_, offset) => first + offset);
}

/**
 * The lowest-index write error of a failed insertMany. Duck-typed (the gateway does not depend on the driver
 * directly). Only the index is trusted: FerretDB's inserted count can include documents after the failure.
 */
function firstWriteError(error: unknown): { index: number; code: number } | undefined {
  if (!(error instanceof Error) || error.name !== 'MongoBulkWriteError') return undefined;
  const reported = (error as Error & { writeErrors?: unknown }).writeErrors;
  const writeErrors = Array.isArray(reported) ? reported : reported ? [reported] : [];
  let first: { index: number; code: number } | undefined;
  for (const writeError of writeErrors as Array<{ index?: unknown; code?: unknown }>) {
    if (typeof writeError?.index !== 'number' || !Number.isInteger(writeError.index)) continue;
    if (!first || writeError.index < first.index) first = { index: writeError.index, code: Number(writeError.code) };
  }
  return first;
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
