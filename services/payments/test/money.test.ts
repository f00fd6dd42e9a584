import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  eurCentsForUnits,
  formatUnits,
  parseScaledDecimal,
  quotedEurCents,
  transactionUnits,
  unitsForEurCents,
  unitsOfDecimal,
} from '../src/domain/money';
import { planPayment, type PaymentProgress } from '../src/domain/payment';
import { deriveTopupStatus, isAwaitingCoin } from '../src/domain/topup-state';

const rate = fc
  .tuple(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 99_999_999 }))
  .filter(([whole, fraction]) => whole > 0 || fraction > 0)
  .map(([whole, fraction]) => `${whole}.${String(fraction).padStart(8, '0')}`);

describe('decimal arithmetic', () => {
  it('parses scaled decimals exactly and refuses anything else', () => {
    expect(parseScaledDecimal('58123.45678901', 8)).toBe(5812345678901n);
    expect(parseScaledDecimal('0.92', 8)).toBe(92000000n);
    expect(parseScaledDecimal('7', 2)).toBe(700n);
    expect(parseScaledDecimal('1.500000000', 8)).toBe(150000000n);
    for (const bad of ['', '-1', '1e3', '.5', '1.', ' 1', '0x10', '1.000000001'])
      expect(() => parseScaledDecimal(bad, 8), bad).toThrow(RangeError);
  });

  it('formats smallest units as decimals without trailing zeros', () => {
    expect(formatUnits(54347827n, 6)).toBe('54.347827');
    expect(formatUnits(2000000n, 6)).toBe('2');
    expect(formatUnits(5n, 8)).toBe('0.00000005');
    expect(formatUnits(1234500000000000000n, 18)).toBe('1.2345');
    expect(formatUnits(0n, 6)).toBe('0');
  });

  it('rounds the asset amount up: the quote always covers the EUR amount, one unit less never does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 50000 }), rate, fc.integer({ min: 0, max: 18 }), (cents, rateEur, decimals) => {
        const units = unitsForEurCents(cents, rateEur, decimals);
        const scaledRate = parseScaledDecimal(rateEur, 8);
        const scale = 10n ** BigInt(decimals + 8);
        // units × rate ≥ cents/100 EUR, and (units − 1) × rate < cents/100 EUR
        expect(units * scaledRate * 100n >= BigInt(cents) * scale).toBe(true);
        expect((units - 1n) * scaledRate * 100n < BigInt(cents) * scale).toBe(true);
      }),
    );
    expect(unitsForEurCents(1000, '0.92000000', 6)).toBe(10869566n);
    expect(formatUnits(unitsForEurCents(20000, '58000.00000000', 8), 8)).toBe('0.00344828');
  });

  it('values units at a market rate rounded down', () => {
    expect(eurCentsForUnits(10869566n, '0.92000000', 6)).toBe(1000);
    expect(eurCentsForUnits(10869565n, '0.92000000', 6)).toBe(999);
    expect(eurCentsForUnits(10n ** 18n, '3100.00000000', 18)).toBe(310000);
  });
});

describe('crediting payments', () => {
  const quote = { quoteEurCents: 5000, quoteUnits: 54347827n, expiresAt: new Date('2027-03-01T10:30:00Z'), decimals: 6 };
  const inside = new Date('2027-03-01T10:10:00Z');
  const after = new Date('2027-03-01T10:31:00Z');
  const empty: PaymentProgress = { creditedEurCents: 0, quotedUnits: 0n, quotedEurCents: 0 };
  const apply = (progress: PaymentProgress, units: bigint, receivedAt = inside, marketRateEur?: string) => {
    const plan = planPayment({ ...quote, progress, units, receivedAt, ...(marketRateEur ? { marketRateEur } : {}) });
    return {
      plan,
      next: { creditedEurCents: plan.creditedAfterEurCents, quotedUnits: plan.quotedUnitsAfter, quotedEurCents: plan.quotedEurCentsAfter },
    };
  };

  it('credits payments that add up to the quote with exactly the quoted amount, however they are split', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 8 }), (weights) => {
        const total = weights.reduce((sum, weight) => sum + weight, 0);
        let remaining = quote.quoteUnits;
        let progress = empty;
        for (const [index, weight] of weights.entries()) {
          const part = index === weights.length - 1 ? remaining : (quote.quoteUnits * BigInt(weight)) / BigInt(total);
          remaining -= part;
          progress = apply(progress, part).next;
          expect(progress.creditedEurCents).toBeLessThanOrEqual(5000);
        }
        expect(progress.creditedEurCents).toBe(5000);
      }),
    );
  });

  it('credits only what arrived on an under-payment and the extra on an over-payment', () => {
    expect(apply(empty, quote.quoteUnits / 2n).plan).toMatchObject({ rate: 'quoted', eurCents: 2499 });
    expect(apply(empty, (quote.quoteUnits * 3n) / 2n).plan.eurCents).toBe(
      quotedEurCents((quote.quoteUnits * 3n) / 2n, 5000, quote.quoteUnits),
    );
    expect(apply(empty, (quote.quoteUnits * 3n) / 2n).plan.eurCents).toBe(7499);
  });

  it('credits coin after the window at the market rate, leaving the quoted totals alone', () => {
    const first = apply(empty, quote.quoteUnits / 2n);
    const late = apply(first.next, quote.quoteUnits / 2n, after, '0.80000000');
    expect(late.plan.rate).toBe('market');
    expect(late.plan.eurCents).toBe(eurCentsForUnits(quote.quoteUnits / 2n, '0.80000000', 6));
    expect(late.plan.quotedUnitsAfter).toBe(first.next.quotedUnits);
    expect(() => planPayment({ ...quote, progress: empty, units: 1n, receivedAt: after })).toThrow(/market rate/);
  });
});

describe('top-up status', () => {
  const expiresAt = new Date('2027-03-01T10:30:00Z');
  const before = new Date('2027-03-01T10:29:59Z');
  const later = new Date('2027-03-01T10:30:00Z');
  it('derives the status from what was credited and the quote window', () => {
    expect(deriveTopupStatus(5000, { creditedEurCents: 0, expired: false }, expiresAt, before)).toBe('pending');
    expect(deriveTopupStatus(5000, { creditedEurCents: 0, expired: false }, expiresAt, later)).toBe('failed');
    expect(deriveTopupStatus(5000, { creditedEurCents: 0, expired: true }, expiresAt, before)).toBe('failed');
    expect(deriveTopupStatus(5000, { creditedEurCents: 1, expired: true }, expiresAt, later)).toBe('partial');
    expect(deriveTopupStatus(5000, { creditedEurCents: 5000, expired: true }, expiresAt, later)).toBe('paid');
    expect(deriveTopupStatus(5000, { creditedEurCents: 9000, expired: false }, expiresAt, before)).toBe('paid');
    expect(isAwaitingCoin('partial', expiresAt, before)).toBe(true);
    expect(isAwaitingCoin('partial', expiresAt, later)).toBe(false);
    expect(isAwaitingCoin('failed', expiresAt, before)).toBe(false);
  });
});

describe('coin amounts written as decimals', () => {
  it('converts plain and exponent forms to smallest units, rounding a fraction of a unit down', () => {
    expect(unitsOfDecimal('0.0005', 8)).toBe(50_000n);
    expect(unitsOfDecimal('1e-7', 8)).toBe(10n);
    expect(unitsOfDecimal('1.5E+2', 6)).toBe(150_000_000n);
    expect(unitsOfDecimal('12', 0)).toBe(12n);
    expect(unitsOfDecimal('0.123456789', 6)).toBe(123_456n);
    expect(unitsOfDecimal('5e-9', 8)).toBe(0n);
    expect(transactionUnits({ amountUnits: '42' }, 6)).toBe(42n);
    expect(transactionUnits({ amountDecimal: '0.000042' }, 6)).toBe(42n);
  });

  it('refuses what is not a non-negative decimal', () => {
    for (const bad of ['-1', '0x10', '', '1.', '.5', 'NaN', '1e', '1,5']) expect(() => unitsOfDecimal(bad, 8)).toThrow(RangeError);
    expect(() => transactionUnits({}, 8)).toThrow(RangeError);
  });
});
