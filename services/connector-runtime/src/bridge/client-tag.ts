import { hash } from 'node:crypto';

/**
 * How a trade sent through the bridge carries the connector's client id (docs/terminal-bridge.md, "Client id
 * in the comment"). MT keeps at most 31 characters of an order's comment and nothing else a terminal can set
 * survives on the trade server (magic belongs to the customer), so the comment ends in an 11-character tag:
 * `~` and 10 base32 characters of the client id's SHA-256. The customer's comment keeps the first 20
 * characters before it. The EA never computes a tag: it finds comments that contain the ones it is given.
 */

export const maxCommentChars = 31;
export const tagChars = 11;
export const customerCommentChars = maxCommentChars - tagChars;

const base32Alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
const tagPattern = /^~[a-z2-7]{10}$/;

/** `~` + the first 50 bits of SHA-256(UTF-8 client id), five bits a character, most significant first. */
export function clientTag(clientId: string): string {
  const digest = hash('sha256', clientId, 'buffer');
  let tag = '~';
  // Each character reads five bits from a 16-bit window of the digest: no BigInt per leg.
  for (let offset = 0; offset < 50; offset += 5) {
    const at = offset >> 3;
    const window = (digest[at]! << 8) | digest[at + 1]!;
    tag += base32Alphabet[(window >> (11 - (offset & 7))) & 31];
  }
  return tag;
}

export function isClientTag(text: string): boolean {
  return tagPattern.test(text);
}

/**
 * The comment a trade is sent with: the customer's comment cut to 20 characters (a `~` in it becomes `-`, so
 * the tag is the only `~`), then the tag.
 */
export function tradeComment(customerComment: string, clientId: string): string {
  const kept = [...customerComment.replaceAll('~', '-')].slice(0, customerCommentChars).join('');
  return `${kept}${clientTag(clientId)}`;
}

/** The tag a comment carries, or undefined: the last `~` and the 10 characters after it. */
export function tagOfComment(comment: string): string | undefined {
  const at = comment.lastIndexOf('~');
  if (at < 0) return undefined;
  const candidate = comment.slice(at, at + tagChars);
  return isClientTag(candidate) ? candidate : undefined;
}
