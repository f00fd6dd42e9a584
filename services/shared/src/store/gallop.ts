/**
 * The largest n in [from, upperBound] for which `present(n)` holds, where the present numbers are a gapless run
 * from 1 and `from` is present (or 0): gallops forward from `from` (from+1, from+2, from+4, …) then bisects, so a
 * stale or missing hint costs O(log n) lookups instead of one per number. Used wherever a sequence is claimed by
 * inserts and only `_id` lookups are cheap: ledger checkpoints, top-up ids, rate-limit slots.
 */
export async function lastPresent(
  from: number,
  present: (n: number) => Promise<boolean>,
  upperBound = Number.POSITIVE_INFINITY,
): Promise<number> {
  let low = from;
  let step = 1;
  while (from + step <= upperBound && (await present(from + step))) {
    low = from + step;
    step *= 2;
  }
  let high = Math.min(from + step, upperBound + 1);
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await present(middle)) low = middle;
    else high = middle;
  }
  return low;
}
