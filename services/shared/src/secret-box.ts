/** Secrets kept at rest (AES-256-GCM under a configured key) and random identifiers. */
import crypto from 'node:crypto';

export interface EncryptedSecret {
  v: 1;
  iv: string;
  tag: string;
  data: string;
}

/** Parses a 32-byte key given as base64 or hex; `setting` names it in the error. */
export function parseSecretKey(value: string, setting = 'the secret key'): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error(`${setting} must be 32 bytes, base64 or hex encoded`);
  return key;
}

/** AES-256-GCM with a random 96-bit IV per secret; the tag authenticates it, so tampering fails to decrypt. */
export function createSecretBox(key: Buffer) {
  return {
    seal(plaintext: string): EncryptedSecret {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return { v: 1, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
    },
    open(secret: EncryptedSecret): string {
      const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(secret.iv, 'base64'));
      decipher.setAuthTag(Buffer.from(secret.tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(secret.data, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;

export const base62Alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Unbiased random base62 text (rejection sampling), for identifiers and secrets. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      // 248 = 4 × 62: bytes above it would favour the first characters.
      if (byte < 248 && out.length < length) out += base62Alphabet[byte % 62];
    }
  }
  return out;
}
