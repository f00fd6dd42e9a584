import crypto from 'node:crypto';
import type { PostbackMessage } from '../../delivery';

/** BTCPay's signature header: `sha256=<hex HMAC-SHA256 of the raw body>`, keyed with the webhook's secret (UTF-8). */
export const btcpaySignatureHeader = 'btcpay-sig';

export function signBtcpayWebhook(body: string | Buffer, secret: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

export const newDeliveryId = () => crypto.randomBytes(16).toString('base64url').slice(0, 22);

/** The part of a webhook event the personality decides; delivery fields and the signature are added per attempt. */
export interface BtcpayEvent {
  type: string;
  storeId: string;
  invoiceId: string;
  metadata: Record<string, unknown>;
  [field: string]: unknown;
}

/**
 * One webhook delivery as BTCPay Server makes it: the event's `timestamp` (unix seconds) is fixed when the event
 * happens; the first attempt has a `deliveryId` of its own as `originalDeliveryId` and `isRedelivery: false`; every
 * retry re-sends the same event with a new `deliveryId`, `isRedelivery: true` and the first attempt's id as
 * `originalDeliveryId`. The body is indented JSON, as BTCPay writes it, and signed over its exact bytes.
 * `redeliveryOf` makes every attempt a redelivery of an earlier message (an operator's "Redeliver").
 */
export function btcpayMessage(
  label: string,
  event: BtcpayEvent,
  options: { webhookId: string; secret: string; timestampSeconds: number; redeliveryOf?: () => string | undefined },
): PostbackMessage & { firstDeliveryId: () => string | undefined } {
  let firstDeliveryId: string | undefined;
  return {
    label,
    firstDeliveryId: () => firstDeliveryId,
    render() {
      const deliveryId = newDeliveryId();
      const original = options.redeliveryOf?.() ?? firstDeliveryId;
      firstDeliveryId ??= deliveryId;
      const { type, storeId, invoiceId, metadata, ...fields } = event;
      const body = JSON.stringify(
        {
          deliveryId,
          webhookId: options.webhookId,
          originalDeliveryId: original ?? deliveryId,
          isRedelivery: original !== undefined,
          type,
          timestamp: options.timestampSeconds,
          storeId,
          invoiceId,
          metadata,
          ...fields,
        },
        null,
        2,
      );
      return { body, headers: { [btcpaySignatureHeader]: signBtcpayWebhook(body, options.secret) } };
    },
  };
}
