import crypto from 'node:crypto';

/**
 * NOWPayments' IPN signature as NOWPayments computes it: the notification's JSON with its keys sorted, nested
 * objects too, then the hex HMAC-SHA512 under the merchant's IPN secret, sent in `x-nowpayments-sig`. The body
 * itself goes out in another key order (NOWPayments' own order is not the sorted one), so a receiver that
 * signs the raw bytes fails, as it would against NOWPayments.
 */
export const ipnSignatureHeader = 'x-nowpayments-sig';

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
    );
  return value;
}

export function signIpn(notification: Record<string, unknown>, secret: string): string {
  return crypto
    .createHmac('sha512', secret)
    .update(JSON.stringify(sortedKeys(notification)), 'utf8')
    .digest('hex');
}

/** The same value with every object's keys in a random order (never the sorted one when there are two or more). */
export function shuffledKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shuffledKeys);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  for (let index = keys.length - 1; index > 0; index--) {
    const other = crypto.randomInt(index + 1);
    [keys[index], keys[other]] = [keys[other]!, keys[index]!];
  }
  if (keys.length > 1 && keys.every((key, index) => index === 0 || keys[index - 1]! <= key)) keys.reverse();
  return Object.fromEntries(keys.map((key) => [key, shuffledKeys((value as Record<string, unknown>)[key])]));
}

/** The body and headers of one IPN delivery. */
export function renderIpn(notification: Record<string, unknown>, secret: string): { body: string; headers: Record<string, string> } {
  return { body: JSON.stringify(shuffledKeys(notification)), headers: { [ipnSignatureHeader]: signIpn(notification, secret) } };
}
