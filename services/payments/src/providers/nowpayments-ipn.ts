import crypto from 'node:crypto';
import { AppError } from '@mtx/shared/errors';
import { assetOfTicker, decimalOf, normalizedDecimal } from './nowpayments-assets';
import type { ProviderPostback, ProviderTransaction } from './provider';

/**
 * NOWPayments' instant payment notifications (IPN): the signature and the body. See docs/providers/nowpayments.md.
 *
 * NOWPayments signs `JSON.stringify` of the notification with its keys sorted, nested objects (`fee`) too, and
 * sends the hex HMAC-SHA512 under the merchant's IPN secret in `x-nowpayments-sig`. The body on the wire need not
 * be in that order or spelling, so the receiver parses it and signs the canonical form again: the check depends on
 * the values only, never on the bytes' key order or number formatting (`1e-7`, `0.0000001`).
 */
export const signatureHeader = 'x-nowpayments-sig';

const signaturePattern = /^[0-9a-f]{128}$/i;

/** The value with every object's keys in sorted order, arrays kept in theirs. `__proto__` stays an own key. */
export function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** The text NOWPayments signs: the parsed notification, keys sorted recursively, through JSON.stringify. */
export function canonicalText(parsed: unknown): string {
  return JSON.stringify(sortedKeys(parsed));
}

/** Constant-time check of `x-nowpayments-sig` over the body's canonical form. */
export function verifyIpn(body: Buffer, headers: Record<string, string>, secret: crypto.KeyObject): boolean {
  const presentedText = headers[signatureHeader] ?? '';
  let text = '';
  try {
    text = canonicalText(JSON.parse(body.toString('utf8')));
  } catch {
    // Not JSON: nothing was signed. Still compared below, so timing does not tell this case apart.
  }
  const expected = crypto.createHmac('sha512', secret).update(text, 'utf8').digest();
  const wellFormed = signaturePattern.test(presentedText);
  const presented = wellFormed ? Buffer.from(presentedText, 'hex') : Buffer.alloc(expected.length);
  return crypto.timingSafeEqual(presented, expected) && wellFormed && text !== '';
}

/** NOWPayments' payment statuses and what each means for crediting. */
const crediting = new Set(['partially_paid', 'confirmed', 'sending', 'finished']);
const pending = new Set(['waiting', 'confirming']);
const failing = new Set(['failed', 'expired', 'refunded']);

/** A NOWPayments payment as `GET /payment/{id}` and the IPN body carry it (the fields we read). */
export interface NowPaymentsPayment {
  payment_id?: unknown;
  parent_payment_id?: unknown;
  payment_status?: unknown;
  pay_currency?: unknown;
  actually_paid?: unknown;
  order_id?: unknown;
  updated_at?: unknown;
  created_at?: unknown;
}

const paymentIdPattern = /^[0-9A-Za-z_-]{1,64}$/;

/** A payment id (NOWPayments sends numbers, some answers strings) as a string, or undefined. */
export function paymentIdOf(value: unknown): string | undefined {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : typeof value === 'string' ? value : undefined;
  return text !== undefined && paymentIdPattern.test(text) ? text : undefined;
}

/**
 * What a payment's state means as a transaction: `actually_paid` is the payment's running total, so the
 * transaction id names the total (`<payment_id>@<actually_paid>`) and `cumulativeOf` the payment; payments credits
 * the increase over the highest total it recorded for that payment. Null while nothing has been paid and the
 * status is not a failure.
 */
export function transactionOf(payment: NowPaymentsPayment, receivedFallback: Date): ProviderTransaction | null {
  const paymentId = paymentIdOf(payment.payment_id);
  const status = typeof payment.payment_status === 'string' ? payment.payment_status : '';
  const paid = decimalOf(payment.actually_paid ?? 0);
  if (!paymentId || paid === undefined)
    throw new AppError('invalid_request', 'NOWPayments payment has no valid payment_id or actually_paid');
  const total = normalizedDecimal(paid);
  const updatedAt = new Date(String(payment.updated_at ?? ''));
  const receivedAt = Number.isNaN(updatedAt.getTime()) ? receivedFallback : updatedAt;
  const base = {
    transactionId: `${paymentId}@${total}`,
    amountDecimal: total,
    providerStatus: status,
    receivedAt,
    cumulativeOf: paymentId,
  };
  if (failing.has(status)) return { ...base, status: 'failed' };
  if (crediting.has(status)) return { ...base, status: 'confirmed' };
  if (pending.has(status) && total !== '0') return { ...base, status: 'confirming' };
  // `waiting` with nothing paid, or a status this build does not know: moves no money.
  return null;
}

/** The notification, after verifyIpn: which payment, of which of our top-ups, and the transaction it reports. */
export function parseIpn(body: Buffer, now: Date): ProviderPostback {
  let raw: NowPaymentsPayment;
  try {
    raw = JSON.parse(body.toString('utf8')) as NowPaymentsPayment;
  } catch {
    throw new AppError('invalid_request', 'NOWPayments notification is not JSON');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new AppError('invalid_request', 'NOWPayments notification is not a JSON object');
  const paymentId = paymentIdOf(raw.payment_id);
  const parentId = raw.parent_payment_id === null || raw.parent_payment_id === undefined ? undefined : paymentIdOf(raw.parent_payment_id);
  const asset = typeof raw.pay_currency === 'string' ? assetOfTicker(raw.pay_currency) : undefined;
  if (!paymentId || (raw.parent_payment_id != null && !parentId) || !asset)
    throw new AppError('invalid_request', 'NOWPayments notification lacks a payment id or names a currency we do not offer');
  const orderId = typeof raw.order_id === 'string' && raw.order_id.length <= 64 ? raw.order_id : undefined;
  return {
    // A repeat deposit is a payment of its own whose parent is the payment our top-up was created with.
    invoiceId: parentId ?? paymentId,
    ...(orderId ? { orderId } : {}),
    assetCode: asset.assetCode,
    blockchainCode: asset.blockchainCode,
    transaction: transactionOf(raw, now),
  };
}
