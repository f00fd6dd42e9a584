/**
 * Billing dates. A seat or server bought at instant `anchor` is paid for whole calendar months counted from
 * that instant: period n ends `n` months after the anchor, on the anchor's day of the month and time of day,
 * or on the last day of a month that is too short for it. Dates are always computed from the anchor, never
 * from the previous end, so a 31st survives a short month (31 Jan → 29 Feb → 31 Mar).
 */

const millisecondsPerDay = 86_400_000;

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

/** `anchor` moved `months` calendar months on (UTC), the day clamped to the end of a short month. */
export function addMonthsClamped(anchor: Date, months: number): Date {
  if (!Number.isInteger(months)) throw new RangeError(`months must be an integer, got ${months}`);
  const anchorMs = anchor.getTime();
  if (!Number.isFinite(anchorMs)) throw new RangeError('anchor is not a valid date');
  const totalMonths = anchor.getUTCFullYear() * 12 + anchor.getUTCMonth() + months;
  const year = Math.floor(totalMonths / 12);
  const monthIndex = totalMonths - year * 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, monthIndex));
  const timeOfDayMs = anchorMs - Date.UTC(anchor.getUTCFullYear(), anchor.getUTCMonth(), anchor.getUTCDate());
  return new Date(Date.UTC(year, monthIndex, day) + timeOfDayMs);
}

/** End of the `cycle`-th paid month of something bought at `anchor` (cycle 1 is the first month). */
export function periodEnd(anchor: Date, cycle: number): Date {
  return addMonthsClamped(anchor, cycle);
}

/**
 * The billing period key of a charge: the UTC calendar date of the instant the paid month starts. One seat
 * never has two periods starting on the same date, so `seat:<id>:<period>` names each charge exactly once.
 */
export function periodKey(periodStart: Date): string {
  return periodStart.toISOString().slice(0, 10);
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * millisecondsPerDay);
}

export function addHours(date: Date, hours: number): Date {
  return new Date(date.getTime() + hours * 3_600_000);
}
