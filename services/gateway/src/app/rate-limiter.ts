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
/**
 * FerretDB 1.24 inserts in batches of 100 documents and, when an ordered batch hits a duplicate, still goes on
 * with the next batch (its `n` then counts documents after the failure; measured). Inside one batch it stops at
 * the first duplicate, as MongoDB does, so a reservation of at most 100 slots is "ours up to the first error"
 * on both stores; a larger one would leave slots inserted by us that we cannot tell apart from other replicas'.
 */
const reservationSlotsMax = 100;
/** Share of the limit one replica may hold unused (lost at the window's end): 1/20 = 5 %. */
const reservationShareOfLimit = 20;
/** Within this many reservations (of the cap) of the limit, a replica reserves only for requests already queued. */
const nearLimitReservations = 2;
/** A reservation used up within this time was too small: the next one doubles; otherwise it halves per period. */
const quickReservationMs = 1_000;
/**
 * Requests of one replica queued for slots of one prefix. Beyond this a request inserts a slot of its own (the
 * single insert of the unbatched limiter, so never costlier than that): the queue's memory stays bounded, and
 * only a flood of one customer on one replica gets there.
 */
export const rateLimitWaitersMax = 1_024;
/** Consecutive reservations that win no slot (other replicas win them all) before the queued requests are refused. */
const fruitlessReservationsMax = 64;
const duplicateKeyCode = 11_000;

/** What one replica knows about one `<bucket>:<customer>:<window>` prefix. */
interface PrefixState {
  /** Slots this replica inserted (so exclusively its own) and has not handed out yet, ascending. */
  ownedSlots: number[];
  /** Next slot this replica will try to insert; below it, slots are taken (or were skipped by a gallop). */
  nextSlot: number;
  reservationSize: number;
  lastReservationAtMs: number | undefined;
  /** Requests waiting for a slot, served first come first served. */
  waiters: Waiter[];
  /** Whether the one reservation loop of this prefix is running. */
  reserving: boolean;
  claimsInFlight: number;
}

interface Waiter {
  /** A slot, or undefined when the limit is reached. */
  resolve: (slot: number | undefined) => void;
  reject: (error: unknown) => void;
}

interface Claim {
  slots: number[];
  error?: unknown;
}

/**
 * Fixed one-minute windows shared by every gateway replica through the store. Each admitted request uses one
 * numbered slot `<bucket>:<customer>:<window>:<n>` (n = 1..limit) that this replica inserted; the unique `_id`
 * makes a slot exclusive even on FerretDB, whose updates are not atomic, so across any number of replicas at
 * most `limit` requests pass per window.
 *
 * To spend far fewer than one store write per request, a replica inserts several consecutive slots with one
 * ordered insertMany and hands them out from memory; concurrent requests queue behind the one reservation in
 * flight per prefix instead of each inserting. The reservation starts at one slot per prefix and window (a
 * customer at a low rate costs and behaves exactly as with single inserts), doubles when the previous one was
 * used up within a second, shrinks when not, and is capped at max(1, limit/20) and 100 slots: the slots a
 * replica holds unused when a window ends are lost, so replicas may together admit up to (replicas × cap)
 * fewer than `limit` in a window, never more. One replica alone admits exactly `limit`, since it keeps what it
 * holds until the window ends. After losing a slot to another replica it gallops forward by `_id` lookups
 * instead of trying each slot in turn.
 */
export function createRateLimiter({ store, clock }: { store: GatewayStore; clock: Clock }) {
  const singleSlots = new InsertBatcher(store.rateLimitSlots);
  const states = new Map<string, PrefixState>();
  let lastSweptWindow = 0;

  function slotId(prefix: string, slot: number): string {
    return `${prefix}:${slot}`;
  }

  function stateOf(prefix: string): PrefixState {
    let state = states.get(prefix);
    if (state) return state;
    if (states.size >= statesMax) {
      // Only idle states go: an in-flight reservation must find its state again. Their unused slots are lost.
      for (const [key, candidate] of states) {
        if (!candidate.reserving && candidate.claimsInFlight === 0 && candidate.waiters.length === 0) states.delete(key);
      }
    }
    state = {
      ownedSlots: [],
      nextSlot: 1,
      reservationSize: 1,
      lastReservationAtMs: undefined,
      waiters: [],
      reserving: false,
      claimsInFlight: 0,
    };
    states.set(prefix, state);
    return state;
  }

  async function slotTaken(prefix: string, slot: number): Promise<boolean> {
    return (await store.rateLimitSlots.findOne({ _id: slotId(prefix, slot) }, { projection: { _id: 1 } })) !== null;
  }

  /** First free slot after `from` (known taken), assuming slots fill from 1 upwards without gaps. */
  async function firstFreeSlot(prefix: string, from: number, limit: number): Promise<number> {
    return Math.min(await lastPresent(from, (slot) => slotTaken(prefix, slot), limit), limit) + 1;
  }

  /**
   * Inserts up to `count` consecutive slots from `state.nextSlot` with one ordered insertMany and returns those
   * that are ours: with ordered inserts exactly the ones before the first write error. A store error comes back
   * in `error` next to any slots that were ours before it, so the caller can keep those and still fail.
   */
  async function claim(state: PrefixState, prefix: string, window: number, count: number, limit: number): Promise<Claim> {
    const first = state.nextSlot;
    const size = Math.min(count, limit - first + 1);
    // Advanced before the insert, so claims running at once on this replica never overlap each other.
    state.nextSlot = first + size;
    state.claimsInFlight++;
    try {
      const documents = Array.from({ length: size }, (_, offset) => ({ _id: slotId(prefix, first + offset), window }));
      let inserted = size;
      try {
        // A single slot (a customer at a low rate) shares one unordered insert with other customers' single slots
        // (group commit): many customers each coming back now and then would otherwise cost a command each.
        if (size === 1) {
          if (!(await singleSlots.insertIfAbsent(documents[0]!))) inserted = 0;
        } else await store.rateLimitSlots.insertMany(documents, { ordered: true });
      } catch (error) {
        const firstError = firstWriteError(error);
        // Without a write error at a known position (timeout, outage, write concern) nothing is known to be
        // ours; whatever did get inserted stays unused, which can only admit less.
        if (!firstError || firstError.index < 0 || firstError.index >= size) return { slots: [], error };
        inserted = firstError.index;
        if (firstError.code !== duplicateKeyCode) return { slots: slotRange(first, inserted), error };
      }
      const slots = slotRange(first, inserted);
      if (inserted === size) return { slots };
      // Slot `first + inserted` went to another replica; the rest of this claim was not inserted.
      try {
        const free = await firstFreeSlot(prefix, first + inserted, limit);
        // Alone, this claim may hand back its uninserted remainder if it is free; with other claims in flight
        // their slots lie beyond, and going back would make this replica collide with itself.
        state.nextSlot = state.claimsInFlight === 1 ? free : Math.max(state.nextSlot, free);
      } catch (error) {
        return { slots, error };
      }
      return { slots };
    } finally {
      state.claimsInFlight--;
    }
  }

  /**
   * Size of the next reservation. The first of a run of reservations (requests were waiting and none was in
   * flight) follows the rate: it doubles when the previous reservation was used up quickly, so a burst of
   * sequential requests soon costs one insert per many. Later ones in the same run happen only while requests
   * are still queued after a reservation, and take exactly as many as are queued: a concurrent burst then
   * ends with no slot left over, so replicas racing on one customer strand nothing. Near the limit every slot
   * held unused is a request another replica refuses, so there reservations take exactly the demand too.
   */
  function nextReservationSize(state: PrefixState, limit: number, firstOfRun: boolean): number {
    const nowMs = clock.now().getTime();
    const cap = Math.min(reservationSlotsMax, Math.max(1, Math.floor(limit / reservationShareOfLimit)));
    if (state.lastReservationAtMs !== undefined) {
      const sinceLastMs = Math.max(0, nowMs - state.lastReservationAtMs);
      state.reservationSize =
        sinceLastMs < quickReservationMs
          ? Math.min(cap, state.reservationSize * 2)
          : Math.max(1, Math.floor(state.reservationSize / 2 ** Math.min(16, Math.floor(sinceLastMs / quickReservationMs))));
    }
    state.lastReservationAtMs = nowMs;
    const nearLimit = limit - state.nextSlot + 1 <= nearLimitReservations * cap;
    return Math.min(cap, firstOfRun && !nearLimit ? Math.max(state.reservationSize, state.waiters.length) : state.waiters.length);
  }

  function serveWaiters(state: PrefixState): void {
    while (state.waiters.length > 0 && state.ownedSlots.length > 0) state.waiters.shift()!.resolve(state.ownedSlots.shift());
  }

  /**
   * The one reservation loop of a prefix on this replica: while requests wait, it reserves slots with one
   * insertMany at a time and hands them out in arrival order, so a burst never starts an insert per request.
   * It ends when nobody waits; every pass either wins slots or moves `nextSlot` forward, so it cannot spin.
   */
  async function reserveForWaiters(state: PrefixState, prefix: string, window: number, limit: number): Promise<void> {
    state.reserving = true;
    let fruitlessReservations = 0;
    let firstOfRun = true;
    try {
      for (;;) {
        serveWaiters(state);
        if (state.waiters.length === 0) return;
        if (state.nextSlot > limit || fruitlessReservations >= fruitlessReservationsMax) {
          for (const waiter of state.waiters.splice(0)) waiter.resolve(undefined);
          return;
        }
        const claimed = await claim(state, prefix, window, nextReservationSize(state, limit, firstOfRun), limit);
        firstOfRun = false;
        state.ownedSlots.push(...claimed.slots);
        fruitlessReservations = claimed.slots.length > 0 ? 0 : fruitlessReservations + 1;
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

  /** Past the queue's bound: this request alone claims single slots, as the unbatched limiter did. */
  async function takeSingleSlot(state: PrefixState, prefix: string, window: number, limit: number): Promise<number | undefined> {
    for (let attempt = 0; attempt < fruitlessReservationsMax && state.nextSlot <= limit; attempt++) {
      const claimed = await claim(state, prefix, window, 1, limit);
      if (claimed.slots.length > 0) return claimed.slots[0];
      if (claimed.error !== undefined) throw claimed.error;
    }
    return undefined;
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
      const state = stateOf(prefix);
      const admit = (slot: number): RateLimitDecision => ({ allowed: true, limit, remaining: limit - slot, resetSeconds });
      const refuse = (): RateLimitDecision => ({ allowed: false, limit, remaining: 0, resetSeconds });
      if (state.waiters.length === 0) {
        const owned = state.ownedSlots.shift();
        if (owned !== undefined) return admit(owned);
        // A reservation in flight may still bring slots below the limit, so only refuse when none is.
        if (!state.reserving && state.claimsInFlight === 0 && state.nextSlot > limit) return refuse();
      }
      if (state.waiters.length >= rateLimitWaitersMax) {
        const single = await takeSingleSlot(state, prefix, window, limit);
        return single === undefined ? refuse() : admit(single);
      }
      const slot = await new Promise<number | undefined>((resolve, reject) => {
        state.waiters.push({ resolve, reject });
        if (!state.reserving) void reserveForWaiters(state, prefix, window, limit);
      });
      return slot === undefined ? refuse() : admit(slot);
    },

    /** Slots this replica holds for the current window and has not handed out (lost if unused when it ends). */
    reservedSlots(bucket: string, customerId: string): number[] {
      const prefix = `${bucket}:${customerId}:${windowOf(clock.now().getTime())}`;
      return [...(states.get(prefix)?.ownedSlots ?? [])];
    },
  };
}

function slotRange(first: number, count: number): number[] {
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
