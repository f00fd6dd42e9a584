import crypto from 'node:crypto';

export type KeyLevel = 'full' | 'read';

const keyPrefixes: Record<KeyLevel, string> = { full: 'sk_', read: 'rk_' };
const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 text without modulo bias. */
export function randomBase62(length: number): string {
  let output = '';
  while (output.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      // 248 = 4 × 62: bytes above it would favour the first characters.
      if (byte < 248 && output.length < length) output += base62[byte % 62];
    }
  }
  return output;
}

export function generateKey(level: KeyLevel): string {
  return `${keyPrefixes[level]}${randomBase62(40)}`;
}

export function keyLevelOf(key: string): KeyLevel | undefined {
  if (key.startsWith('sk_')) return 'full';
  if (key.startsWith('rk_')) return 'read';
  return undefined;
}

/**
 * Keys are stored only as SHA-256 digests: they are 238-bit random strings, so a slow password hash would
 * add latency to every request without adding safety.
 */
export function hashKey(key: string): string {
  return crypto.createHash('sha256').update(key, 'utf8').digest('hex');
}

export function digestsEqual(leftHex: string, rightHex: string): boolean {
  const left = Buffer.from(leftHex, 'hex');
  const right = Buffer.from(rightHex, 'hex');
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}

/** The part of a key that may be shown and logged (Stripe shows the same). */
export function keyHint(key: string): string {
  return `${key.slice(0, 3)}…${key.slice(-4)}`;
}

export function newCustomerId(): string {
  return `cus_${randomBase62(16)}`;
}

export function newKeyId(): string {
  return `key_${randomBase62(16)}`;
}
