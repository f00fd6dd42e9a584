import { duplicateKeyCode, refusedStatements } from '@mtx/shared/bulk-write';
import { lastPresent } from '@mtx/shared/gallop';
import { InsertBatcher } from '@mtx/shared/insert-batcher';
import type { Clock } from '@mtx/shared/clock';
import type { GatewayStore } from '../store/gateway-store';
import { slidingWindowDecision, slidingWindowMs, type RateLimitDecision } from '../domain/sliding-window-decision';
import { LeaseDemand, type LeasedSlot } from './rate-limit-lease';

export type { RateLimitDecision };

const windowMs = slidingWindowMs;
const statesMax = 50_000;
/** Slots one ordered insert claims at most: FerretDB inserts in batches of 100 and goes on past a duplicate beyond. */
const claimSlotsMax = 100;
/**
 * Requests of one replica queued for one customer's bucket. Beyond it they are refused (429, Retry-After 1)
 * instead of queueing, so the queue's memory stays bounded; only a flood of one customer on one replica gets there.
 */
export const rateLimitWaitersMax = 1_024;
/** Claims in a row that win no slot (other replicas win them all) before the queued requests are refused. */
const fruitlessClaimsMax = 64;

/** The slots of one customer's bucket claimed in one minute: slot j's admission time is `times[j-1]`. */
interface Chain {
  window: number;
  /** Highest slot known to be taken (by any replica); slots 1..head are all taken. */
  head: number;
  /** Admission times in ms of slots 1..head, where known (other replicas' are read when needed). */
  times: Array<number | undefined>;
}

interface PrefixState {
  key: string;
  /** The minute before `current`, with its final head: what still counts in a sliding minute. */
  previous: Chain | undefined;
  current: Chain;
  waiters: Waiter[];
  reserving: boolean;
  /** Slots of `current` this replica claimed ahead and has not handed out yet (see `leaseMs`), lowest first. */
  lease: LeasedSlot[];
  demand: LeaseDemand;
  /** The limit the last request named, for a lease claimed with no request waiting. */
  lastLimit: number;
}

interface Waiter {
  limit: number;
  resolve: (decision: RateLimitDecision) => void;
  reject: (error: unknown) => void;
}

/**
 * A sliding one-minute limit shared by every gateway replica through the store: at most `limit` requests of a
 * customer's bucket pass in any 60 s, whatever the replicas. Each admitted request claims the next numbered slot
 * `<bucket>:<customer>:<minute>:s<k>` by insert, storing its admission time; the unique `_id` makes a slot
 * exclusive even on FerretDB, whose `findOneAndUpdate`/`$inc` lose updates under concurrency
 * (test/store-atomicity.test.ts measures it), so a counter or a GCRA state updated in place would over-admit
 * there. Slots are numbered per minute only so that old ones can be deleted by minute; the order that counts runs
 * through the previous minute's slots into this minute's.
 *
 * The next request passes at time t when the request `limit` places back in that order was admitted at or
 * before t − 60 s; admission times only grow along the order (each claim starts from the latest time it knows), so
 * this bounds every 60 s span. A request whose claim lands after its minute has ended is not admitted (the next
 * minute may have counted the previous one's slots without it); it waits for a slot of the new minute.
 *
 * One reservation loop per customer's bucket on each replica claims, with one ordered insert, a slot for every
 * queued request that may pass now; single slots of many customers share one insert (group commit).
 *
 * With `leaseMs` > 0 a replica that admits a bucket steadily also claims slots ahead (a lease, sized by what it
 * admitted in the last `leaseMs`), stored with a time no earlier than `leaseMs` from now, and hands them out
 * until then without a store write on the answer's path; the next lease is claimed behind the answers when half
 * is left. Each slot's time still bounds its admission and every one before it, so the limit stays exact; an
 * unused leased slot counts as admitted until it leaves the window, and within twice a lease of the limit no
 * lease is claimed, so only a bucket far from its limit gives up slots that way.
 */
export function createRateLimiter({ store, clock, leaseMs = 0 }: { store: GatewayStore; clock: Clock; leaseMs?: number }) {
  // No database span per admitted request: its trace shows the limiter's time as the gap before the gRPC call,
  // and a refusal is answered (429) and counted; a slot's insert is not what a trace reader looks for.
  const singleSlots = new InsertBatcher(store.rateLimitSlots, { untraced: true });
  const states = new Map<string, PrefixState>();
  let lastSweptWindow = 0;

  const slotId = (key: string, window: number, slot: number) => `${key}:${window}:s${slot}`;
  const windowOf = (nowMs: number) => Math.floor(nowMs / windowMs);

  async function slotTime(key: string, chain: Chain, slot: number): Promise<number> {
    const known = chain.times[slot - 1];
    if (known !== undefined) return known;
    const document = await store.rateLimitSlots.findOne({ _id: slotId(key, chain.window, slot) }, { projection: { at: 1 } });
    // A slot without a time (or swept) is older than any that counts.
    const at = document?.at ?? Number.NEGATIVE_INFINITY;
    chain.times[slot - 1] = at;
    return at;
  }

  /** Moves `chain.head` forward over slots other replicas took, reading their times on the way. */
  async function findHead(key: string, chain: Chain): Promise<void> {
    chain.head = await lastPresent(chain.head, async (slot) => {
      const document = await store.rateLimitSlots.findOne({ _id: slotId(key, chain.window, slot) }, { projection: { at: 1 } });
      if (document) chain.times[slot - 1] ??= document.at ?? Number.NEGATIVE_INFINITY;
      return document !== null;
    });
  }

  /** Slots in the order that counts: the previous minute's, then this one's. */
  function orderLength(state: PrefixState): number {
    return (state.previous?.head ?? 0) + state.current.head;
  }

  async function timeAt(state: PrefixState, position: number): Promise<number> {
    const previousHead = state.previous?.head ?? 0;
    if (position <= previousHead) return slotTime(state.key, state.previous!, position);
    return slotTime(state.key, state.current, position - previousHead);
  }

  /** Starts the minute `window` on this replica: the minute before becomes `previous`, with its head as stored. */
  async function turnTo(state: PrefixState, window: number): Promise<void> {
    if (state.current.window === window) return;
    const previous: Chain = state.current.window === window - 1 ? state.current : { window: window - 1, head: 0, times: [] };
    await findHead(state.key, previous);
    state.previous = previous;
    state.current = { window, head: 0, times: [] };
  }

  /** How many of the next `wanted` slots may be admitted at `nowMs` (those whose slot `limit` back is old enough). */
  async function admissibleCount(state: PrefixState, nowMs: number, limit: number, wanted: number): Promise<number> {
    const length = orderLength(state);
    let count = 0;
    while (count < wanted) {
      const back = length + count + 1 - limit;
      // A slot of this very claim (limit below the claim's size) is admitted now: it counts for a minute.
      if (back > length) break;
      if (back >= 1 && (await timeAt(state, back)) + windowMs > nowMs) break;
      count++;
    }
    return count;
  }

  /**
   * What the headers say at `nowMs` for the request at `length` of the order (or, refused, after it). Reads only
   * positions up to `length`, which no later claim changes, so it may run beside the reservation loop.
   */
  async function describe(
    state: PrefixState,
    nowMs: number,
    limit: number,
    allowed: boolean,
    length = orderLength(state),
  ): Promise<RateLimitDecision> {
    // The chains as they stand now: a turn of the minute meanwhile replaces them, which must not shift positions.
    const { previous, current } = state;
    const previousHead = previous?.head ?? 0;
    const knownAt = (position: number) =>
      position <= previousHead ? previous!.times[position - 1] : current.times[position - previousHead - 1];
    for (;;) {
      const decision = slidingWindowDecision(knownAt, { nowMs, limit, allowed, length });
      if (!('missing' in decision)) return decision;
      const position = decision.missing;
      // Read from the store (another replica's slot): known from then on.
      await (position <= previousHead ? slotTime(state.key, previous!, position) : slotTime(state.key, current, position - previousHead));
    }
  }

  /**
   * Inserts slots `first..first+count-1` of the current minute and returns how many are ours: with an ordered
   * insert exactly those before the first duplicate. The last `leased` of them are claimed ahead and stored with
   * `leasedAtMs`, no earlier than the time they may be handed out until; the others with `atMs`. A store error
   * comes back next to the slots won.
   */
  async function claim(
    state: PrefixState,
    count: number,
    atMs: number,
    leased = 0,
    leasedAtMs = atMs,
  ): Promise<{ first: number; won: number; error?: unknown }> {
    const { current } = state;
    const first = current.head + 1;
    const timeOf = (offset: number) => (offset < count - leased ? atMs : leasedAtMs);
    const documents = Array.from({ length: count }, (_, offset) => ({
      _id: slotId(state.key, current.window, first + offset),
      window: current.window,
      at: timeOf(offset),
    }));
    let won = count;
    let error: unknown;
    try {
      if (count === 1) {
        if (!(await singleSlots.insertIfAbsent(documents[0]!))) won = 0;
      } else await store.rateLimitSlots.insertMany(documents, { ordered: true });
    } catch (caught) {
      const firstError = refusedStatements(caught, count)?.[0];
      // Without a write error at a known position nothing is known to be ours; whatever was inserted stays
      // unused, which can only admit less.
      if (!firstError) return { first, won: 0, error: caught };
      won = firstError.index;
      if (firstError.code !== duplicateKeyCode) error = caught;
    }
    for (let offset = 0; offset < won; offset++) current.times[first - 1 + offset] = timeOf(offset);
    current.head = first - 1 + won;
    if (won < count && error === undefined) {
      try {
        await findHead(state.key, current);
      } catch (caught) {
        error = caught;
      }
    }
    return error === undefined ? { first, won } : { first, won, error };
  }

  /** The first leased slot still usable at `nowMs`; those past their time or of an earlier minute are dropped. */
  function usableLeasedSlot(state: PrefixState, nowMs: number): LeasedSlot | undefined {
    const window = windowOf(nowMs);
    while (state.lease.length > 0) {
      const leased = state.lease[0]!;
      if (leased.window === window && leased.window === state.current.window && nowMs <= leased.usableUntilMs) return leased;
      state.lease.shift();
    }
    return undefined;
  }

  /** Whether the lease runs low while requests still come: the loop then claims the next one behind the answers. */
  function wantsRefill(state: PrefixState): boolean {
    const size = state.demand.leaseSize(state.lastLimit, claimSlotsMax);
    return size > 0 && state.lease.length * 2 <= size;
  }

  /** Hands out the next leased slot to a request: its decision, with no store write (the slot is already ours). */
  function admitLeased(state: PrefixState, nowMs: number, limit: number, leased: LeasedSlot): Promise<RateLimitDecision> {
    state.lease.shift();
    state.demand.note(nowMs, 1);
    return describe(state, nowMs, limit, true, (state.previous?.head ?? 0) + leased.slot);
  }

  /**
   * The one reservation loop of a customer's bucket on this replica: while requests wait, it claims with one
   * insert a slot for each that may pass now, hands them out in arrival order, and refuses the rest with the
   * time the next one would pass. With leasing on it also claims, in the same insert or behind the answers when
   * the lease runs low, the next lease's slots, while the bucket has room for twice as many beyond the waiting.
   */
  async function reserveForWaiters(state: PrefixState): Promise<void> {
    state.reserving = true;
    let fruitlessClaims = 0;
    try {
      while (state.waiters.length > 0 || wantsRefill(state)) {
        const nowMs = clock.now().getTime();
        const window = windowOf(nowMs);
        await turnTo(state, window);
        for (let leased = usableLeasedSlot(state, nowMs); leased && state.waiters.length > 0; leased = usableLeasedSlot(state, nowMs)) {
          const waiter = state.waiters.shift()!;
          waiter.resolve(await admitLeased(state, nowMs, waiter.limit, leased));
        }
        if (state.waiters.length === 0 && !wantsRefill(state)) return;
        const limit = state.waiters[0]?.limit ?? state.lastLimit;
        const waiting = Math.min(state.waiters.length, claimSlotsMax);
        const leaseWanted = state.demand.leaseSize(limit, claimSlotsMax - waiting);
        const admissible =
          fruitlessClaims >= fruitlessClaimsMax ? 0 : await admissibleCount(state, nowMs, limit, waiting + 2 * leaseWanted);
        // A lease only while the bucket has room for twice it beyond the waiting requests: near the limit every
        // request claims its own slot, so leased slots never take the last ones.
        const leased = admissible >= waiting + 2 * leaseWanted ? leaseWanted : 0;
        const count = Math.min(admissible, waiting) + leased;
        if (waiting === 0 && leased === 0) return;
        if (count === 0) {
          const refusal = await describe(state, nowMs, limit, false);
          for (const waiter of state.waiters.splice(0)) waiter.resolve({ ...refusal, limit: waiter.limit });
          return;
        }
        // Times grow along the order even if this replica's clock is behind the one that claimed the slot before
        // (or a lease before this claim may still be handed out until a later time). A leased slot's stored time
        // is at least the time it may be handed out until, so every slot's time bounds its admission and all
        // before it; counted from now, not from the times before, so leases in a row do not push times ahead.
        const lastTime = state.current.head > 0 ? await timeAt(state, orderLength(state)) : Number.NEGATIVE_INFINITY;
        const atMs = Math.max(nowMs, lastTime);
        const usableUntilMs = nowMs + leaseMs;
        const claimed = await claim(state, count, atMs, leased, Math.max(atMs, usableUntilMs));
        fruitlessClaims = claimed.won > 0 ? 0 : fruitlessClaims + 1;
        // A claim that landed after its minute ended may be missing from the next minute's count: not admitted.
        const landedInTime = windowOf(clock.now().getTime()) === window && state.current.window === window;
        if (landedInTime) {
          // Positions in the order of the slots won (other replicas' slots found after a lost claim follow them).
          const firstWon = (state.previous?.head ?? 0) + claimed.first - 1;
          const forWaiters = Math.min(claimed.won, count - leased);
          state.demand.note(nowMs, forWaiters);
          for (let offset = 0; offset < forWaiters; offset++) {
            const waiter = state.waiters.shift()!;
            waiter.resolve(await describe(state, nowMs, waiter.limit, true, firstWon + offset + 1));
          }
          for (let offset = forWaiters; offset < claimed.won; offset++)
            state.lease.push({ window, slot: claimed.first + offset, usableUntilMs });
        }
        if (claimed.error !== undefined) {
          // The rest fail with the store's error (the gateway answers 503): none is admitted without a slot.
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

  async function sweep(window: number): Promise<void> {
    if (window <= lastSweptWindow) return;
    lastSweptWindow = window;
    // No TTL indexes on FerretDB: minutes before the previous one are deleted by the replica that first sees a
    // new minute; nothing in them counts any more.
    await store.rateLimitSlots.deleteMany({ window: { $lt: window - 1 } }).catch(() => undefined);
    for (const [key, state] of states) if (state.current.window < window - 1 && !state.reserving) states.delete(key);
  }

  function stateOf(key: string, window: number): PrefixState {
    let state = states.get(key);
    if (state) return state;
    if (states.size >= statesMax) {
      // Only idle states go: an in-flight reservation must find its state again.
      for (const [candidate, existing] of states) if (!existing.reserving && existing.waiters.length === 0) states.delete(candidate);
    }
    state = {
      key,
      previous: undefined,
      current: { window: window - 2, head: 0, times: [] },
      waiters: [],
      reserving: false,
      lease: [],
      demand: new LeaseDemand(leaseMs),
      lastLimit: 0,
    };
    states.set(key, state);
    return state;
  }

  return {
    // Not async: a request admitted from a leased slot gets its decision with no promise layers but the one.
    take(bucket: string, customerId: string, limit: number): Promise<RateLimitDecision> {
      const window = windowOf(clock.now().getTime());
      if (window > lastSweptWindow) void sweep(window);
      const state = stateOf(`${bucket}:${customerId}`, window);
      if (state.waiters.length >= rateLimitWaitersMax) {
        return Promise.resolve({ allowed: false, limit, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 });
      }
      state.lastLimit = limit;
      const nowMs = clock.now().getTime();
      // A slot claimed ahead is ours already: the answer waits for no store write, and the next lease is claimed
      // behind it when this one runs low. Requests queued before this one keep their turn.
      const leased = state.waiters.length === 0 ? usableLeasedSlot(state, nowMs) : undefined;
      if (leased) {
        const decision = admitLeased(state, nowMs, limit, leased);
        if (!state.reserving && wantsRefill(state)) void reserveForWaiters(state);
        return decision;
      }
      return new Promise<RateLimitDecision>((resolve, reject) => {
        state.waiters.push({ limit, resolve, reject });
        if (!state.reserving) void reserveForWaiters(state);
      });
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
