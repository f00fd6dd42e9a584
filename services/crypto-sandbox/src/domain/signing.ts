import crypto from 'node:crypto';

export const signatureHeader = 'x-signature';

/** `sha256=<hex>` HMAC of the exact body bytes, the form the receiver recomputes before parsing anything. */
export function signPostback(body: string | Buffer, secret: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}
