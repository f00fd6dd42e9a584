import { BridgeProtocolError } from './wire';

/**
 * Numbers on the bridge are decimal text (docs/terminal-bridge.md, "Numbers"): integers as digits, prices,
 * volumes and money as digits with an optional fraction, never exponent form, which MQL's `StringToDouble`
 * and `DoubleToString` both handle without surprises.
 */

const decimalPattern = /^-?[0-9]{1,40}(\.[0-9]{1,40})?$/;
const integerPattern = /^-?[0-9]{1,19}$/;

/** The shortest decimal text that reads back as the same double, without an exponent. */
export function formatDecimal(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`${value} has no decimal form`);
  if (Object.is(value, -0)) return '0';
  const text = String(value);
  const exponentAt = text.indexOf('e');
  if (exponentAt < 0) return text;
  const negative = text.startsWith('-');
  const mantissa = text.slice(negative ? 1 : 0, exponentAt);
  const exponent = Number(text.slice(exponentAt + 1));
  const [whole = '', fraction = ''] = mantissa.split('.');
  const digits = whole + fraction;
  const pointAt = whole.length + exponent;
  let result: string;
  if (pointAt <= 0) result = `0.${'0'.repeat(-pointAt)}${digits}`;
  else if (pointAt >= digits.length) result = digits + '0'.repeat(pointAt - digits.length);
  else result = `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
  return negative ? `-${result}` : result;
}

export function parseDecimal(text: string, key: string): number {
  if (!decimalPattern.test(text))
    throw new BridgeProtocolError('malformed', `field ${key}: ${JSON.stringify(text.slice(0, 32))} is not a decimal`);
  return Number(text);
}

/** A whole number within the exact range of a double (tickets, logins, ids, times). */
export function parseInteger(text: string, key: string): number {
  if (!integerPattern.test(text))
    throw new BridgeProtocolError('malformed', `field ${key}: ${JSON.stringify(text.slice(0, 32))} is not an integer`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new BridgeProtocolError('malformed', `field ${key}: ${text} is beyond 2^53`);
  return value === 0 ? 0 : value;
}

export function formatInteger(value: number): string {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not a safe integer`);
  return String(value === 0 ? 0 : value);
}
