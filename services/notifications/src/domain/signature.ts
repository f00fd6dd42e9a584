import crypto from 'node:crypto';

/**
 * `Mtx-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, as Stripe signs: the timestamp is
 * signed with the body, so a receiver that checks it within a tolerance refuses an old delivery replayed.
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const digest = crypto.createHmac('sha256', secret).update(`${unixSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${digest}`;
}
