import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addMonthsClamped, periodEnd, periodKey } from '../src/domain/calendar';

const utc = (text: string) => new Date(text);

describe('addMonthsClamped (a calendar month on, purchase day kept, month ends clamped)', () => {
  it('keeps the 31st through a leap February: 31 Jan 2028 → 29 Feb → 31 Mar → 30 Apr → 31 May', () => {
    const anchor = utc('2028-01-31T10:15:00Z');
    expect(periodEnd(anchor, 1).toISOString()).toBe('2028-02-29T10:15:00.000Z');
    expect(periodEnd(anchor, 2).toISOString()).toBe('2028-03-31T10:15:00.000Z');
    expect(periodEnd(anchor, 3).toISOString()).toBe('2028-04-30T10:15:00.000Z');
    expect(periodEnd(anchor, 4).toISOString()).toBe('2028-05-31T10:15:00.000Z');
  });

  it('clamps to 28 Feb in a common year and returns to the 30th and 29th afterwards', () => {
    expect(addMonthsClamped(utc('2027-01-30T00:00:00Z'), 1).toISOString()).toBe('2027-02-28T00:00:00.000Z');
    expect(addMonthsClamped(utc('2027-01-30T00:00:00Z'), 2).toISOString()).toBe('2027-03-30T00:00:00.000Z');
    expect(addMonthsClamped(utc('2027-01-29T00:00:00Z'), 1).toISOString()).toBe('2027-02-28T00:00:00.000Z');
    expect(addMonthsClamped(utc('2028-01-29T00:00:00Z'), 1).toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });

  it('crosses year ends and keeps the time of day to the millisecond', () => {
    expect(addMonthsClamped(utc('2027-12-31T23:59:59.999Z'), 1).toISOString()).toBe('2028-01-31T23:59:59.999Z');
    expect(addMonthsClamped(utc('2027-11-30T08:00:00Z'), 3).toISOString()).toBe('2028-02-29T08:00:00.000Z');
    expect(addMonthsClamped(utc('2027-03-31T08:00:00Z'), -1).toISOString()).toBe('2027-02-28T08:00:00.000Z');
    expect(addMonthsClamped(utc('2027-05-15T08:00:00Z'), 0).toISOString()).toBe('2027-05-15T08:00:00.000Z');
  });

  it('gives two seats bought on different days different renewal days', () => {
    expect(periodEnd(utc('2027-03-03T09:00:00Z'), 1).toISOString()).toBe('2027-04-03T09:00:00.000Z');
    expect(periodEnd(utc('2027-03-17T09:00:00Z'), 1).toISOString()).toBe('2027-04-17T09:00:00.000Z');
  });

  it('rejects fractional month counts and invalid dates', () => {
    expect(() => addMonthsClamped(utc('2027-01-01T00:00:00Z'), 1.5)).toThrow(RangeError);
    expect(() => addMonthsClamped(new Date(Number.NaN), 1)).toThrow(RangeError);
  });

  it('holds its invariants for any anchor and month count', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: 0, max: 240 }),
        (anchor, months) => {
          const result = addMonthsClamped(anchor, months);
          // Exactly `months` calendar months on.
          const monthDistance = (result.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + result.getUTCMonth() - anchor.getUTCMonth();
          expect(monthDistance).toBe(months);
          // Same time of day.
          expect(result.getTime() % 86_400_000).toBe(((anchor.getTime() % 86_400_000) + 86_400_000) % 86_400_000);
          // The day is kept unless the month is too short, in which case it is the month's last day.
          const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
          expect(result.getUTCDate()).toBe(Math.min(anchor.getUTCDate(), lastDay));
          // Strictly increasing in the month count.
          if (months > 0) expect(result.getTime()).toBeGreaterThan(addMonthsClamped(anchor, months - 1).getTime());
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

describe('periodKey', () => {
  it('names a period by the UTC date it starts', () => {
    expect(periodKey(utc('2028-02-29T10:15:00Z'))).toBe('2028-02-29');
  });
});
