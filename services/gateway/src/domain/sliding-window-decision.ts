/** What a request's rate-limit headers say (see the rate limiter). */
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

export const slidingWindowMs = 60_000;

/**
 * The decision for the request at `length` of a bucket's order of admissions (or, refused, after it), at `nowMs`,
 * from the admission times this replica knows; `timeAt(position)` is undefined for one it has not read. Answers
 * the decision, or the first position whose time it needs: the caller reads that one and asks again. Synchronous,
 * so a request admitted from known times (a steady client's, from a leased slot) takes no microtask turn per
 * position read.
 */
export function slidingWindowDecision(
  timeAt: (position: number) => number | undefined,
  { nowMs, limit, allowed, length }: { nowMs: number; limit: number; allowed: boolean; length: number },
): RateLimitDecision | { missing: number } {
  // The oldest slot still counted: the first of the last `limit` whose time is within 60 s (times grow along it).
  let low = Math.max(1, length - limit + 1);
  let high = length + 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const at = timeAt(middle);
    if (at === undefined) return { missing: middle };
    if (at + slidingWindowMs > nowMs) high = middle;
    else low = middle + 1;
  }
  const counted = length - low + 1;
  let resetSeconds = 0;
  if (counted > 0) {
    const at = timeAt(low);
    if (at === undefined) return { missing: low };
    resetSeconds = Math.max(1, Math.ceil((at + slidingWindowMs - nowMs) / 1000));
  }
  const nextPosition = length + 1 - limit;
  let retryAfterSeconds = 0;
  if (nextPosition >= 1 && nextPosition <= length) {
    const at = timeAt(nextPosition);
    if (at === undefined) return { missing: nextPosition };
    retryAfterSeconds = Math.max(1, Math.ceil((at + slidingWindowMs - nowMs) / 1000));
  }
  return { allowed, limit, remaining: Math.max(0, limit - counted), resetSeconds, retryAfterSeconds };
}
