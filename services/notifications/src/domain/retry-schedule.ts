/**
 * When a failing delivery is tried again: exponential from `baseMs`, capped at `maxMs`, each wait drawn from
 * [½, 1½) of it so endpoints that failed together do not all come back at once. Pure: `random` is passed in.
 */
export function retryDelayMs(failures: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, failures - 1));
  return Math.max(1, Math.round(exponential * (0.5 + random())));
}

/** Whether an endpoint failing since `failingSinceMs` has failed long enough to be disabled. */
export function retriesExhausted(failingSinceMs: number, nowMs: number, retryForMs: number): boolean {
  return nowMs - failingSinceMs >= retryForMs;
}
