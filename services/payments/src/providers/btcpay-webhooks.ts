import crypto from 'node:crypto';
import { AppError } from '@mtx/shared/errors';
import { coinOfCryptoCode, onChainCryptoCode } from './btcpay-assets';
import type { ProviderPostback, ProviderTransaction, ProviderTransactionStatus } from './provider';

/**
 * BTCPay Server's webhooks (docs/providers/btcpay.md): `BTCPay-Sig: sha256=<hex HMAC-SHA256 of the raw body>` keyed
 * with the webhook's secret, and a JSON event. Payments are credited per `payment.id` once settled:
 * `InvoicePaymentSettled`, or `InvoiceReceivedPayment` whose payment is already `Settled` (a store that needs no
 * confirmation). Every other event moves no money: acknowledged and ignored.
 *
 * No `sentAt`: BTCPay re-sends the very body of a failed delivery (its `timestamp` included, with a new
 * `deliveryId` and `isRedelivery: true`) for about 70 minutes, and an operator can redeliver any delivery later
 * still, so a timestamp window would refuse its own retries. A replayed body is only ever a duplicate, by
 * `payment.id`.
 */

const signaturePattern = /^sha256=([0-9a-fA-F]{64})$/;

/** BTCPay's payment statuses and what payments makes of them. */
const paymentStatuses: Record<string, ProviderTransactionStatus> = {
  Processing: 'confirming',
  Settled: 'confirmed',
  Invalid: 'failed',
};

export function createBtcpayWebhooks(options: { storeId: string; webhookSecret: string }) {
  // One key object for every webhook: from raw bytes, Node builds a new one per HMAC.
  const secret = crypto.createSecretKey(Buffer.from(options.webhookSecret, 'utf8'));

  return {
    verify(body: Buffer, headers: Record<string, string>): boolean {
      const match = signaturePattern.exec(headers['btcpay-sig'] ?? '');
      const expected = crypto.createHmac('sha256', secret).update(body).digest();
      // Compared even when the header is malformed, so timing does not reveal which check failed.
      const presented = match ? Buffer.from(match[1]!, 'hex') : Buffer.alloc(expected.length);
      return crypto.timingSafeEqual(presented, expected) && match !== null;
    },

    parse(body: Buffer): ProviderPostback {
      let raw: Record<string, unknown>;
      try {
        raw = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        throw new AppError('invalid_request', 'webhook body is not JSON');
      }
      if (!raw || typeof raw !== 'object' || typeof raw.type !== 'string')
        throw new AppError('invalid_request', 'webhook body is not a BTCPay event');
      // A store's secret signed it, yet it names another store: a misconfigured webhook, never retried.
      if (raw.storeId !== undefined && raw.storeId !== options.storeId)
        throw new AppError('not_found', 'this webhook is for a store this server does not serve');
      const isPayment = raw.type === 'InvoicePaymentSettled' || raw.type === 'InvoiceReceivedPayment';
      if (!raw.type.startsWith('Invoice')) return ignored(raw);
      if (typeof raw.invoiceId !== 'string' || raw.invoiceId.length === 0 || raw.invoiceId.length > 128 || raw.storeId === undefined)
        throw new AppError('invalid_request', 'webhook names no store or invoice');
      if (!isPayment) return ignored(raw);
      const cryptoCode = onChainCryptoCode(raw.paymentMethodId);
      const coin = cryptoCode ? coinOfCryptoCode(cryptoCode) : undefined;
      const metadata = raw.metadata as { orderId?: unknown } | undefined;
      const orderId = metadata?.orderId;
      return {
        invoiceId: raw.invoiceId,
        ...(typeof orderId === 'string' && orderId.length <= 64 ? { orderId } : {}),
        // A coin outside the table (or Lightning) cannot be ours: it reaches the crediting as a mismatch an operator sees.
        assetCode: coin?.assetCode ?? String(raw.paymentMethodId),
        blockchainCode: coin?.blockchainCode ?? String(raw.paymentMethodId),
        transaction: transactionOf(raw.payment, raw.type === 'InvoicePaymentSettled', raw.afterExpiration, dateOfBtcpay(raw.timestamp)),
      };
    },
  };
}

function ignored(raw: Record<string, unknown>): ProviderPostback {
  return {
    invoiceId: typeof raw.invoiceId === 'string' ? raw.invoiceId : '',
    assetCode: '',
    blockchainCode: '',
    transaction: null,
  };
}

/** A Greenfield timestamp (unix seconds; an ISO 8601 string is taken too), or null. */
export function dateOfBtcpay(value: unknown): Date | null {
  const date =
    typeof value === 'number' || (typeof value === 'string' && /^[0-9]{1,12}$/.test(value))
      ? new Date(Number(value) * 1000)
      : typeof value === 'string' && value.length <= 64
        ? new Date(value)
        : null;
  return date && !Number.isNaN(date.getTime()) ? date : null;
}

/**
 * A payment of BTCPay's API (webhook `payment`, or an entry of an invoice payment method's `payments`). Without a
 * `receivedDate`, `receivedAtOtherwise` stands in (the event's time, or the invoice's creation for a read).
 */
export function transactionOf(
  raw: unknown,
  settledEvent = false,
  afterExpiration?: unknown,
  receivedAtOtherwise?: Date | null,
): ProviderTransaction {
  const payment = raw as { id?: unknown; value?: unknown; status?: unknown; receivedDate?: unknown } | null;
  const value = typeof payment?.value === 'number' ? String(payment.value) : payment?.value;
  const receivedAt = dateOfBtcpay(payment?.receivedDate) ?? receivedAtOtherwise ?? null;
  const providerStatus = typeof payment?.status === 'string' ? payment.status : undefined;
  const status = settledEvent ? 'confirmed' : providerStatus ? paymentStatuses[providerStatus] : undefined;
  if (
    !payment ||
    typeof payment.id !== 'string' ||
    payment.id.length === 0 ||
    payment.id.length > 128 ||
    typeof value !== 'string' ||
    !/^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]{1,3})?$/.test(value) ||
    receivedAt === null ||
    status === undefined
  ) {
    throw new AppError('invalid_request', 'BTCPay payment is malformed');
  }
  return {
    transactionId: payment.id,
    amountDecimal: value,
    status,
    providerStatus: providerStatus ?? 'Settled',
    receivedAt,
    ...(typeof afterExpiration === 'boolean' ? { afterExpiration } : {}),
  };
}
