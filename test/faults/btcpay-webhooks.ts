import crypto from 'node:crypto';
import { signBtcpayWebhook } from '../../services/crypto-sandbox/src/personalities/btcpay/webhooks';
import { developmentBtcpayStoreId, developmentBtcpayWebhookSecret } from '../../services/crypto-sandbox/src/config';
import { postbackSecret, type TopupForPostbacks } from './stack';

/** A BTC amount in satoshis as BTCPay writes it: a decimal string with 8 places. */
const btcOfUnits = (units: bigint) => `${units / 100_000_000n}.${String(units % 100_000_000n).padStart(8, '0')}`;

/**
 * BTCPay Server's webhooks as the storm sends them (row 5 of money.test.ts, see storm.ts): one per payment,
 * `InvoiceReceivedPayment` while it is processing and `InvoicePaymentSettled` once settled, signed `BTCPay-Sig`.
 */
export function btcpayWebhooks() {
  const sign = (body: string) => signBtcpayWebhook(body, developmentBtcpayWebhookSecret);
  const body = (topup: TopupForPostbacks, transactionId: string, units: bigint, status: 'confirming' | 'confirmed') => {
    const deliveryId = crypto.randomBytes(11).toString('base64url');
    return JSON.stringify(
      {
        deliveryId,
        webhookId: 'wh_faults',
        originalDeliveryId: deliveryId,
        isRedelivery: false,
        type: status === 'confirmed' ? 'InvoicePaymentSettled' : 'InvoiceReceivedPayment',
        timestamp: Math.floor(Date.now() / 1000),
        storeId: developmentBtcpayStoreId,
        invoiceId: topup.invoiceId,
        metadata: { orderId: String(topup.id) },
        afterExpiration: false,
        paymentMethodId: 'BTC-CHAIN',
        payment: {
          id: transactionId,
          receivedDate: Math.floor(topup.createdAt.getTime() / 1000) + 1,
          value: btcOfUnits(units),
          fee: '0',
          status: status === 'confirmed' ? 'Settled' : 'Processing',
          destination: topup.address,
        },
      },
      null,
      2,
    );
  };
  return {
    body,
    sign,
    tamper: (genuine: string, units: bigint) => genuine.replace(`"value": "${btcOfUnits(units)}"`, `"value": "${btcOfUnits(units * 10n)}"`),
    ownForgery: {
      // BTCPay signs no timestamp (it re-sends old bodies itself); a body signed with another provider's key instead.
      variant: "another provider's key",
      forge(genuine: string, forgedId: string) {
        const parsed = JSON.parse(genuine) as { payment: Record<string, unknown> };
        const forged = JSON.stringify({ ...parsed, payment: { ...parsed.payment, id: forgedId } }, null, 2);
        return { body: forged, signature: `sha256=${crypto.createHmac('sha256', postbackSecret).update(forged).digest('hex')}` };
      },
    },
  };
}
