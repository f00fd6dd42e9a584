import crypto from 'node:crypto';
import { freePort } from '@mtx/devstack/ports';
import { createUnaryClient } from '@mtx/shared/grpc';
import { databaseName } from '@mtx/shared/mongo';
import { signBtcpayWebhook } from '../../services/crypto-sandbox/src/personalities/btcpay/webhooks';
import {
  developmentBtcpayApiKey,
  developmentBtcpayStoreId,
  developmentBtcpayWebhookSecret,
} from '../../services/crypto-sandbox/src/config';
import { postbackSecret, type Customer, type FaultStack, type HttpAnswer, type TopupForPostbacks } from './stack';

/**
 * One provider's side of the postback storm (row 5 of money.test.ts): how its top-ups are made, what its postbacks
 * look like and how they are signed and delivered, and the forgeries its receiver must refuse with 401.
 */
export interface StormPersonality {
  /** The provider's name in entry ids (`topup:<provider>:<transaction>`) and hook paths. */
  provider: string;
  createTopup(customer: Customer, amountEurCents: number): Promise<TopupForPostbacks>;
  /** A postback of one transaction of a top-up: `confirming` is seen on chain, `confirmed` is settled. */
  body(topup: TopupForPostbacks, transactionId: string, units: bigint, status: 'confirming' | 'confirmed'): string;
  sign(body: string): string;
  /** `signature` null sends none. */
  post(body: string, signature: string | null): Promise<HttpAnswer>;
  /** `genuine` with its amount raised tenfold, to be sent under the genuine body's signature. */
  tamper(genuine: string, units: bigint): string;
  /** A forgery of this provider's own kind (the sandbox: a stale signed timestamp). */
  ownForgery: { variant: string; forge(genuine: string, forgedId: string): { body: string; signature: string } };
  close(): Promise<void>;
}

/** The crypto-sandbox's own postbacks, delivered through the gateway's hook route. */
export function sandboxStorm(stack: FaultStack): StormPersonality {
  return {
    provider: 'sandbox',
    createTopup: (customer, amountEurCents) => stack.createTopup(customer, amountEurCents),
    body: (topup, transactionId, units, status) => stack.postbackBody(topup, transactionId, units, status),
    sign: (body) => stack.sign(body),
    post: (body, signature) => stack.postback(body, signature),
    tamper: (genuine, units) => genuine.replace(`"amount":"${units}"`, `"amount":"${units * 10n}"`),
    ownForgery: {
      variant: 'stale timestamp',
      forge(genuine, forgedId) {
        const parsed = JSON.parse(genuine) as Record<string, unknown>;
        const body = JSON.stringify({
          ...parsed,
          timestamp: new Date(Date.now() - 10 * 60_000).toISOString(),
          transaction: { ...(parsed.transaction as object), id: forgedId },
        });
        return { body, signature: stack.sign(body) };
      },
    },
    close: async () => undefined,
  };
}

/** The smallest units of BTC as BTCPay writes a value (`"0.00012345"`). */
const btcOfUnits = (units: bigint) => `${units / 100_000_000n}.${String(units % 100_000_000n).padStart(8, '0')}`;

/**
 * BTCPay Server's webhooks (the crypto-sandbox's fake store, with its development settings), for BTC top-ups made
 * by a payments replica of the stack with PAYMENTS_PROVIDER=btcpay, delivered to that replica's hook listener.
 */
export async function btcpayStorm(stack: FaultStack): Promise<StormPersonality> {
  const hooksPort = await freePort();
  const replica = await stack.startReplica('payments', 'payments-btcpay', {
    PAYMENTS_PROVIDER: 'btcpay',
    BTCPAY_URL: `${stack.sandboxUrl}/btcpay`,
    BTCPAY_STORE_ID: developmentBtcpayStoreId,
    BTCPAY_API_KEY: developmentBtcpayApiKey,
    BTCPAY_WEBHOOK_SECRET: developmentBtcpayWebhookSecret,
    HOOKS_PORT: String(hooksPort),
  });
  const client = createUnaryClient<any>('payments/v1/payments.proto', 'mtx.payments.v1.PaymentsService', replica.address, 10_000);
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
    provider: 'btcpay',
    async createTopup(customer, amountEurCents) {
      const topup = await client.call<any>('CreateTopup', {
        customer_id: customer.id,
        amount_eur_cents: amountEurCents,
        asset_code: 'BTC',
        blockchain_code: 'BTC',
      });
      const document = await stack.mongo
        .db(databaseName(stack.prefix, 'payments'))
        .collection<{ _id: string; invoice_id: string }>('topups')
        .findOne({ _id: String(topup.id) });
      if (!document) throw new Error(`top-up ${topup.id} is not in the payments store`);
      return {
        id: Number(topup.id),
        customerId: customer.id,
        invoiceId: document.invoice_id,
        address: topup.deposit_address,
        assetCode: topup.asset_code,
        blockchainCode: topup.blockchain_code,
        amountEurCents,
        depositUnits: BigInt(topup.deposit_amount),
        createdAt: new Date(topup.created_at),
      };
    },
    body,
    sign,
    post(payload, signature) {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'BTCPayServer' };
      if (signature !== null) headers['btcpay-sig'] = signature;
      return stack.request('POST', `http://127.0.0.1:${hooksPort}/v1/hooks/payments/btcpay`, { rawBody: payload, headers });
    },
    tamper: (genuine, units) => genuine.replace(`"value": "${btcOfUnits(units)}"`, `"value": "${btcOfUnits(units * 10n)}"`),
    ownForgery: {
      // BTCPay signs no timestamp (it re-sends old bodies itself); a body signed with another provider's key instead.
      variant: "another provider's key",
      forge(genuine, forgedId) {
        const parsed = JSON.parse(genuine) as { payment: Record<string, unknown> };
        const forged = JSON.stringify({ ...parsed, payment: { ...parsed.payment, id: forgedId } }, null, 2);
        return { body: forged, signature: `sha256=${crypto.createHmac('sha256', postbackSecret).update(forged).digest('hex')}` };
      },
    },
    async close() {
      client.close();
      await stack.stopReplica('payments-btcpay');
    },
  };
}
