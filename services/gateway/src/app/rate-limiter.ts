import { duplicateKeyCode, refusedStatements } from '@mtx/shared/bulk-write';
import { lastPresent } from '@mtx/shared/gallop';
import { InsertBatcher } from '@mtx/shared/insert-batcher';
import type { Clock } from '@mtx/shared/clock';
import type { GatewayStore } from '../store/gateway-store';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests that may still pass in the next instant: the limit less those admitted in the last 60 s. */
  remaining: number;
  /** Seconds until the oldest request counted in the last 60 s leaves it (and `remaining` grows). */
  resetSeconds: number;
  /** Seconds until the next request would pass; refusals send it as Retry-After. */
  retryAfterSeconds: number;
}

const windowMs = 60_000;
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
 */
export function createRateLimiter({ store, clock }: { store: GatewayStore; clock: Clock }) {
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

  /** What the headers say at `nowMs` after the order has `length` slots (the last one possibly this request's). */
  async function describe(state: PrefixState, nowMs: number, limit: number, allowed: boolean): Promise<RateLimitDecision> {
    const length = orderLength(state);
    // The oldest slot still counted: the first of the last `limit` whose time is within 60 s (times grow along it).
    let low = Math.max(1, length - limit + 1);
    let high = length + 1;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if ((await timeAt(state, middle)) + windowMs > nowMs) high = middle;
      else low = middle + 1;
    }
    const counted = length - low + 1;
    const secondsUntil = async (position: number) =>
      position < 1 || position > length ? 0 : Math.max(1, Math.ceil(((await timeAt(state, position)) + windowMs - nowMs) / 1000));
    const resetSeconds = counted === 0 ? 0 : await secondsUntil(low);
    const retryAfterSeconds = await secondsUntil(length + 1 - limit);
    return { allowed, limit, remaining: Math.max(0, limit - counted), resetSeconds, retryAfterSeconds };
  }

  /**
   * Inserts slots `first..first+count-1` of the current minute at `atMs` and returns how many are ours: with an
   * ordered insert exactly those before the first duplicate. A store error comes back next to the slots won.
   */
  async function claim(state: PrefixState, count: number, atMs: number): Promise<{ won: number; error?: unknown }> {
    const { current } = state;
    const first = current.head + 1;
    const documents = Array.from({ length: count }, (_, offset) => ({
      _id: slotId(state.key, current.window, first + offset),
      window: current.window,
      at: atMs,
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
      if (!firstError) return { won: 0, error: caught };
      won = firstError.index;
      if (firstError.code !== duplicateKeyCode) error = caught;
    }
    for (let offset = 0; offset < won; offset++) current.times[first - 1 + offset] = atMs;
    current.head = first - 1 + won;
    if (won < count && error === undefined) {
      try {
        await findHead(state.key, current);
      } catch (caught) {
        error = caught;
      }
    }
    return error === undefined ? { won } : { won, error };
  }

  /**
   * The one reservation loop of a customer's bucket on this replica: while requests wait, it claims with one
   * insert a slot for each that may pass now, hands them out in arrival order, and refuses the rest with the
   * time the next one would pass.
   */
  async function reserveForWaiters(state: PrefixState): Promise<void> {
    state.reserving = true;
    let fruitlessClaims = 0;
    try {
      while (state.waiters.length > 0) {
        const nowMs = clock.now().getTime();
        const window = windowOf(nowMs);
        await turnTo(state, window);
        const limit = state.waiters[0]!.limit;
        const wanted = Math.min(state.waiters.length, claimSlotsMax);
        const admissible = fruitlessClaims >= fruitlessClaimsMax ? 0 : await admissibleCount(state, nowMs, limit, wanted);
        if (admissible === 0) {
          const refusal = await describe(state, nowMs, limit, false);
          for (const waiter of state.waiters.splice(0)) waiter.resolve({ ...refusal, limit: waiter.limit });
          return;
        }
        // Times grow along the order even if this replica's clock is behind the one that claimed the slot before.
        const lastTime = state.current.head > 0 ? await timeAt(state, orderLength(state)) : Number.NEGATIVE_INFINITY;
        const atMs = Math.max(nowMs, lastTime);
        const claimed = await claim(state, admissible, atMs);
        fruitlessClaims = claimed.won > 0 ? 0 : fruitlessClaims + 1;
        // A claim that landed after its minute ended may be missing from the next minute's count: not admitted.
        const landedInTime = windowOf(clock.now().getTime()) === window;
        if (landedInTime) {
          const firstWon = orderLength(state) - claimed.won;
          for (let offset = 0; offset < claimed.won; offset++) {
            const waiter = state.waiters.shift()!;
            waiter.resolve(await describeAt(state, nowMs, waiter.limit, firstWon + offset + 1));
          }
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

  /** The decision of the request admitted at `position` of the order, as the order stood when it was admitted. */
  async function describeAt(state: PrefixState, nowMs: number, limit: number, position: number): Promise<RateLimitDecision> {
    const previousHead = state.previous?.head ?? 0;
    const currentHead = state.current.head;
    state.current.head = position - previousHead;
    try {
      return await describe(state, nowMs, limit, true);
    } finally {
      state.current.head = currentHead;
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
    state = { key, previous: undefined, current: { window: window - 2, head: 0, times: [] }, waiters: [], reserving: false };
    states.set(key, state);
    return state;
  }

  return {
    async take(bucket: string, customerId: string, limit: number): Promise<RateLimitDecision> {
      const window = windowOf(clock.now().getTime());
      void sweep(window);
      const state = stateOf(`${bucket}:${customerId}`, window);
      if (state.waiters.length >= rateLimitWaitersMax) {
        return { allowed: false, limit, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 };
      }
      return new Promise<RateLimitDecision>((resolve, reject) => {
        state.waiters.push({ limit, resolve, reject });
        if (!state.reserving) void reserveForWaiters(state);
      });
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
