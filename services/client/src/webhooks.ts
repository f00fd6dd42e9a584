import crypto from 'node:crypto';
import type { WebhookEvent } from './types';

/** A delivery whose signature does not hold: not from us, changed on the way, or too old. */
export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

/** The default tolerance between the signature's timestamp and now, in seconds (Stripe's). */
export const webhookToleranceSecondsDefault = 300;

/**
 * Checks a webhook delivery and returns its event. `body` is the request body exactly as received (the raw
 * bytes: a body parsed and serialised again no longer matches), `header` the `Mtx-Signature` header, `secret`
 * the endpoint's `whsec_…`. Throws WebhookSignatureError when the header is missing or malformed, when no `v1`
 * signature matches (compared in constant time), or when its timestamp is further than `toleranceS` seconds
 * from now (a replayed old delivery); 0 skips the age check.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  toleranceS: number = webhookToleranceSecondsDefault,
  nowMs: number = Date.now(),
): WebhookEvent {
  if (!header) throw new WebhookSignatureError('no Mtx-Signature header');
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator <= 0) continue;
    const name = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (name === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    if (name === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0)
    throw new WebhookSignatureError('Mtx-Signature must be t=<unix seconds>,v1=<hex HMAC-SHA256>');
  const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const expected = crypto
    .createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), raw]))
    .digest();
  const matches = signatures.some((signature) => crypto.timingSafeEqual(Buffer.from(signature, 'hex'), expected));
  if (!matches) throw new WebhookSignatureError('no signature matches the body with this secret');
  if (toleranceS > 0 && Math.abs(nowMs / 1000 - timestamp) > toleranceS)
    throw new WebhookSignatureError(`the signature is ${Math.round(Math.abs(nowMs / 1000 - timestamp))} s old, more than ${toleranceS} s`);
  let event: WebhookEvent;
  try {
    event = JSON.parse(raw.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookSignatureError('the signed body is not JSON');
  }
  return event;
}
