import type { Clock } from '@mtx/shared/clock';
import { insertIfAbsent, type GatewayStore } from '../store/gateway-store';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

const windowMs = 60_000;
const hintsMax = 50_000;

/**
 * Fixed one-minute windows shared by every gateway replica through the store. Each admitted request takes
 * one numbered slot by inserting `<bucket>:<customer>:<window>:<n>`; the unique `_id` makes the slot
 * exclusive even on FerretDB, whose updates are not atomic, so across any number of replicas at most
 * `limit` requests pass per window. A replica remembers the next free slot it saw, and after losing a slot
 * it gallops forward by `_id` lookups instead of trying each slot in turn.
 */
export function createRateLimiter({ store, clock }: { store: GatewayStore; clock: Clock }) {
  const nextSlotHints = new Map<string, number>();
  let lastSweptWindow = 0;

  function slotId(prefix: string, slot: number): string {
    return `${prefix}:${slot}`;
  }

  async function slotTaken(prefix: string, slot: number): Promise<boolean> {
    return (await store.rateLimitSlots.findOne({ _id: slotId(prefix, slot) }, { projection: { _id: 1 } })) !== null;
  }

  /** First free slot at or after `from`, assuming slots fill from 1 upwards without gaps. */
  async function firstFreeSlot(prefix: string, from: number, limit: number): Promise<number> {
    let low = from; // known taken
    let step = 1;
    let high = from + step;
    while (high <= limit && (await slotTaken(prefix, high))) {
      low = high;
      step *= 2;
      high = from + step;
    }
    if (high > limit + 1) high = limit + 1;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (await slotTaken(prefix, middle)) low = middle;
      else high = middle;
    }
    return high;
  }

  async function sweep(window: number): Promise<void> {
    if (window <= lastSweptWindow) return;
    lastSweptWindow = window;
    // No TTL indexes on FerretDB: old windows are deleted by the replica that first sees a new window.
    await store.rateLimitSlots.deleteMany({ window: { $lt: window - 1 } }).catch(() => undefined);
    for (const key of nextSlotHints.keys()) if (!key.endsWith(`:${window}`)) nextSlotHints.delete(key);
  }

  return {
    async take(bucket: string, customerId: string, limit: number): Promise<RateLimitDecision> {
      const nowMs = clock.now().getTime();
      const window = Math.floor(nowMs / windowMs);
      const resetSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - nowMs) / 1000));
      const prefix = `${bucket}:${customerId}:${window}`;
      void sweep(window);
      // Reserve the slot number in process before the insert, so concurrent requests on one replica never
      // collide with each other; only a collision with another replica needs the search.
      const reserve = (from: number) => {
        const reserved = Math.max(from, nextSlotHints.get(prefix) ?? 1);
        if (nextSlotHints.size >= hintsMax) nextSlotHints.clear();
        nextSlotHints.set(prefix, reserved + 1);
        return reserved;
      };
      let slot = reserve(1);
      for (let attempt = 0; attempt < 64 && slot <= limit; attempt++) {
        if (await insertIfAbsent(store.rateLimitSlots, { _id: slotId(prefix, slot), window })) {
          return { allowed: true, limit, remaining: limit - slot, resetSeconds };
        }
        slot = reserve(await firstFreeSlot(prefix, slot, limit));
      }
      nextSlotHints.set(prefix, limit + 1);
      return { allowed: false, limit, remaining: 0, resetSeconds };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
