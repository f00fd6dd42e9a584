import crypto from 'node:crypto';
import { base62Alphabet, randomBase62 } from '@mtx/shared/secret-box';

export type KeyLevel = 'full' | 'read';

const keyPrefixes: Record<KeyLevel, string> = { full: 'sk_', read: 'rk_' };
export { randomBase62 };

const keyRandomLength = 40;
const keyChecksumLength = 6;

/** 6 base62 characters of the SHA-256 of the key's prefix and random part: not secret, only a typo and forgery check. */
function keyChecksum(prefixAndRandom: string): string {
  const digest = crypto.hash('sha256', prefixAndRandom, 'buffer');
  let checksum = '';
  for (let index = 0; checksum.length < keyChecksumLength; index++) checksum += base62Alphabet[digest[index]! % 62];
  return checksum;
}

/** `sk_` or `rk_`, 40 random base62 characters (238 bits), and a 6-character checksum. */
export function generateKey(level: KeyLevel): string {
  const body = `${keyPrefixes[level]}${randomBase62(keyRandomLength)}`;
  return `${body}${keyChecksum(body)}`;
}

/**
 * Whether a key could have been issued here, decided without any lookup: a checksummed key's checksum must hold
 * (a random or mistyped one fails it: about one chance in 57 billion to pass), and a key issued before checksums
 * (40 characters after the prefix) is still accepted, so it keeps working until rotated.
 */
export function keyShapeValid(key: string): boolean {
  const bodyLength = key.length - 3;
  if (bodyLength === keyRandomLength) return true;
  if (bodyLength !== keyRandomLength + keyChecksumLength) return false;
  return key.slice(-keyChecksumLength) === keyChecksum(key.slice(0, -keyChecksumLength));
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
  // The one-shot hash: no Hash object per request.
  return crypto.hash('sha256', key, 'hex');
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
