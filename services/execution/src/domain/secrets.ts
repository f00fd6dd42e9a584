import { parseSecretKey as parseKey } from '@mtx/shared/secret-box';

export { createSecretBox, randomBase62, type EncryptedSecret, type SecretBox } from '@mtx/shared/secret-box';

/** ACCOUNT_SECRET_KEY as a 32-byte key (base64 or hex). */
export function parseSecretKey(value: string): Buffer {
  return parseKey(value, 'ACCOUNT_SECRET_KEY');
}
