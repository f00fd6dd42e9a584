/**
 * Exact decimal arithmetic for crypto amounts. Amounts are BigInt counts of an asset's smallest unit (18-decimal
 * tokens exceed 2^53) and EUR cents; rates are decimal strings, scaled to integers before any division, so no
 * binary floating point ever touches money.
 */

/** Decimal places rates are carried with (EUR per whole coin, e.g. `58123.45678901`). */
export const rateScaleDigits = 8;

const decimalPattern = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** `"1.5"` with scale 3 → `1500n`. Digits beyond the scale are refused, never silently dropped. */
export function parseScaledDecimal(value: string, scaleDigits: number): bigint {
  if (!decimalPattern.test(value)) throw new RangeError(`not a non-negative decimal: ${JSON.stringify(value)}`);
  const [whole, digits = ''] = value.split('.') as [string, string?];
  if (digits.length > scaleDigits && /[1-9]/.test(digits.slice(scaleDigits)))
    throw new RangeError(`${value} has more than ${scaleDigits} decimals`);
  return BigInt(whole) * 10n ** BigInt(scaleDigits) + BigInt((digits.slice(0, scaleDigits) || '0').padEnd(scaleDigits, '0'));
}

/** `12345n` with 4 decimals → `"1.2345"`; trailing zeros trimmed (`"2"`, `"0.5"`). */
export function formatUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = decimals > 0 ? digits.slice(digits.length - decimals).replace(/0+$/, '') : '';
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

const ceilDivide = (numerator: bigint, denominator: bigint) => (numerator + denominator - 1n) / denominator;

/**
 * Smallest units of the asset that `amountEurCents` costs at `rateEur` (EUR per whole coin), rounded UP to the
 * asset's smallest unit, so paying the quoted amount always covers the EUR amount.
 *   units = cents / 100 / rate × 10^decimals = cents × 10^(decimals + scale) / (100 × rate × 10^scale)
 */
export function unitsForEurCents(amountEurCents: number, rateEur: string, decimals: number): bigint {
  const scaledRate = parseScaledDecimal(rateEur, rateScaleDigits);
  if (scaledRate <= 0n) throw new RangeError('rate must be positive');
  return ceilDivide(BigInt(amountEurCents) * 10n ** BigInt(decimals + rateScaleDigits), 100n * scaledRate);
}

/** EUR cents that `units` are worth at `rateEur`, rounded DOWN: the customer is never credited a fraction not received. */
export function eurCentsForUnits(units: bigint, rateEur: string, decimals: number): number {
  const scaledRate = parseScaledDecimal(rateEur, rateScaleDigits);
  return Number((units * 100n * scaledRate) / 10n ** BigInt(decimals + rateScaleDigits));
}

/**
 * Cents owed for a cumulative `unitsPaid` at a quote of `quotedEurCents` for `quotedUnits`, rounded down.
 * Applied to running totals, so several partial payments that add up to the quote credit exactly the quote.
 */
export function quotedEurCents(unitsPaid: bigint, quotedEurCents: number, quotedUnits: bigint): number {
  return Number((unitsPaid * BigInt(quotedEurCents)) / quotedUnits);
}

export function isUnitAmount(value: unknown): value is string {
  return typeof value === 'string' && /^[1-9][0-9]{0,77}$/.test(value);
}

const coinAmountPattern = /^([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]{1,3}))?$/;

/**
 * Smallest units of a coin amount written as a decimal (`"0.0005"`, or `"5e-7"` as JavaScript prints small
 * numbers), rounded DOWN to the asset's smallest unit: a fraction of a unit never arrived. Throws RangeError for
 * anything that is not a non-negative decimal.
 */
export function unitsOfDecimal(value: string, decimals: number): bigint {
  const match = coinAmountPattern.exec(value);
  if (!match) throw new RangeError(`not a non-negative decimal: ${JSON.stringify(value)}`);
  const [, whole = '0', fraction = '', exponentText] = match;
  const shift = decimals + Number(exponentText ?? 0);
  const digits = BigInt(`${whole}${fraction}`);
  const scale = shift - fraction.length;
  return scale >= 0 ? digits * 10n ** BigInt(scale) : digits / 10n ** BigInt(-scale);
}

/** The smallest units of a provider's transaction amount, whichever way the provider wrote it. */
export function transactionUnits(amount: { amountUnits?: string; amountDecimal?: string }, decimals: number): bigint {
  if (amount.amountUnits !== undefined) {
    if (!/^[0-9]{1,78}$/.test(amount.amountUnits)) throw new RangeError(`not a unit amount: ${JSON.stringify(amount.amountUnits)}`);
    return BigInt(amount.amountUnits);
  }
  if (amount.amountDecimal !== undefined) return unitsOfDecimal(amount.amountDecimal, decimals);
  throw new RangeError('a transaction needs an amount');
}
