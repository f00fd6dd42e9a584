/**
 * The postback storm of the money faults (row 5), and the full payment the crash row (4b) dies on, in each
 * provider's own format: the crypto-sandbox's postbacks (one message per on-chain transaction, HMAC-SHA256 of the
 * raw body with a signed timestamp), BTCPay Server's webhooks (one per payment, HMAC-SHA256 of the raw body, no
 * timestamp to trust) and NOWPayments' IPNs (the payment's running total `actually_paid`, HMAC-SHA512 of the
 * recursively key-sorted JSON, no timestamp) from the crypto-sandbox's fake NOWPayments. Each builds the good
 * deliveries (every status of every payment, then duplicates), the forged ones, and says which ledger entries are
 * genuine.
 */
import crypto from 'node:crypto';
import { freePort } from '@mtx/devstack/ports';
import type { ServiceProcess } from '@mtx/devstack/services';
import { createUnaryClient, type UnaryClient } from '@mtx/shared/grpc';
import { databaseName } from '@mtx/shared/mongo';
import {
  developmentBtcpayApiKey,
  developmentBtcpayStoreId,
  developmentBtcpayWebhookSecret,
} from '../../services/crypto-sandbox/src/config';
import { btcpayWebhooks } from './btcpay-webhooks';
import { coins, ipn, ipnSecret, signIpn } from './nowpayments-ipns';
import type { Customer, FaultStack, HttpAnswer, TopupForPostbacks } from './stack';

export interface StormDelivery {
  body: string;
  signature: string | null;
  expected: 'ok' | 'unauthenticated';
  variant: string;
  /** The payment the message is about (a transaction, or a NOWPayments payment), and where it stands in its order. */
  group: string;
  rank: number;
}

export interface StormPlan {
  deliveries: StormDelivery[];
  /** Payments (transactions, or running totals) the storm reports. */
  reports: number;
  /** Entry-id prefixes the credits must carry, each with what it is worth (a transaction's, or a top-up's whole). */
  creditPrefixes: Array<{ topup: TopupForPostbacks; prefix: string; amountEurCents: number }>;
  /** Transaction ids that may be recorded or credited; anything else under `entryPattern` is a forgery let through. */
  genuine: Set<string>;
  /** Wallet entry ids and payments' record keys of this storm, as a regex over the transaction id part. */
  transactionPattern: string;
}

/** A top-up paid in full in one confirmed payment, as the provider reports it (the crash row, 4b). */
export interface FullPayment {
  /** The transaction id as the provider's adapter names it: the wallet entry is `topup:<provider>:<it>`. */
  transactionId: string;
  /** The provider's genuine signed callback; each call is a fresh delivery of it, as a provider's retry is. */
  delivery(): StormDelivery;
}

export interface StormPersonality {
  readonly name: 'sandbox' | 'nowpayments' | 'btcpay';
  createTopup(customer: Customer, amountEurCents: number): Promise<TopupForPostbacks>;
  plan(topups: TopupForPostbacks[], seed: number, random: () => number): StormPlan;
  post(delivery: StormDelivery): Promise<HttpAnswer>;
  /**
   * The payment of `topup` in full; `label` names the transaction where the provider lets the payer's side choose
   * it (a sandbox transaction, a BTCPay payment), NOWPayments names its running total itself.
   */
  fullPayment(topup: TopupForPostbacks, label: string): FullPayment;
  /** The payments process that creates this personality's top-ups: the stack's own, or the replica it started. */
  process(): Promise<ServiceProcess>;
  /** Delivers a callback to the hook listener of `process()` itself (the crash row: it takes what it dies on). */
  deliverToProcess(delivery: StormDelivery): Promise<HttpAnswer>;
  /** Stops what the personality started. */
  close(): Promise<void>;
}

/** How each top-up is paid: exactly, in one to three transactions. */
function splits(topup: TopupForPostbacks, random: () => number): bigint[] {
  const parts = 1 + Math.floor(random() * 3);
  const amounts: bigint[] = [];
  let left = topup.depositUnits;
  for (let part = 0; part < parts; part++) {
    const units = part === parts - 1 ? left : (topup.depositUnits * BigInt(1 + Math.floor(random() * 40))) / 100n;
    left -= units;
    amounts.push(units);
  }
  return amounts;
}

const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)]!;

/** A provider that reports each on-chain transaction on its own: how one report looks, and how it is signed. */
interface TransactionReports {
  provider: 'sandbox' | 'btcpay';
  /** A report of one transaction of a top-up: `confirming` is seen on chain, `confirmed` is settled. */
  body(topup: TopupForPostbacks, transactionId: string, units: bigint, status: 'confirming' | 'confirmed'): string;
  sign(body: string): string;
  /** `genuine` with its amount raised tenfold, to be sent under the genuine body's signature. */
  tamper(genuine: string, units: bigint): string;
  /** A forgery of this provider's own kind (the sandbox: a stale signed timestamp). */
  ownForgery: { variant: string; forge(genuine: string, forgedId: string): { body: string; signature: string } };
}

/** The storm of a provider that reports transactions one by one: every status of each, duplicates, forgeries. */
function transactionStormPlan(reports: TransactionReports, topups: TopupForPostbacks[], seed: number, random: () => number): StormPlan {
  const transactions = topups.flatMap((topup) =>
    splits(topup, random).map((units, part) => ({ topup, id: `storm-${seed}-${topup.id}-${part}`, units })),
  );
  const deliveries: StormDelivery[] = [];
  for (const transaction of transactions)
    for (const [rank, status] of (['confirming', 'confirmed'] as const).entries()) {
      const body = reports.body(transaction.topup, transaction.id, transaction.units, status);
      deliveries.push({ body, signature: reports.sign(body), expected: 'ok', variant: status, group: transaction.id, rank });
    }
  while (deliveries.length < 900) {
    const transaction = pick(transactions, random);
    const body = reports.body(transaction.topup, transaction.id, transaction.units, 'confirmed');
    deliveries.push({ body, signature: reports.sign(body), expected: 'ok', variant: 'duplicate', group: transaction.id, rank: 1 });
  }
  const variants = [
    'wrong secret',
    'body changed after signing',
    'no signature',
    'malformed signature',
    'signature of another body',
    reports.ownForgery.variant,
  ] as const;
  for (let index = 0; deliveries.length < 1_000; index++) {
    const transaction = pick(transactions, random);
    const variant = variants[index % variants.length]!;
    const genuine = reports.body(transaction.topup, transaction.id, transaction.units, 'confirmed');
    const forgedId = `forged-${seed}-${index}`;
    let body = genuine;
    let signature: string | null = reports.sign(genuine);
    if (variant === 'wrong secret') {
      body = reports.body(transaction.topup, forgedId, transaction.topup.depositUnits * 10n, 'confirmed');
      signature = `sha256=${crypto.createHmac('sha256', 'not-the-provider-secret-0123456789').update(body).digest('hex')}`;
    } else if (variant === 'body changed after signing') {
      body = reports.tamper(genuine, transaction.units);
    } else if (variant === 'no signature') {
      signature = null;
    } else if (variant === 'malformed signature') {
      signature = [`sha256=${'z'.repeat(64)}`, signature.slice(0, 40), `md5=${signature.slice(7, 39)}`, ''][index % 4]!;
    } else if (variant === 'signature of another body') {
      body = reports.body(transaction.topup, forgedId, transaction.units, 'confirmed');
    } else {
      ({ body, signature } = reports.ownForgery.forge(genuine, forgedId));
    }
    deliveries.push({ body, signature, expected: 'unauthenticated', variant, group: transaction.id, rank: 1 });
  }
  return {
    deliveries,
    reports: transactions.length,
    creditPrefixes: transactions.map((transaction) => ({
      topup: transaction.topup,
      prefix: `topup:${reports.provider}:${transaction.id}`,
      amountEurCents: Number((BigInt(transaction.topup.amountEurCents) * transaction.units) / transaction.topup.depositUnits),
    })),
    genuine: new Set(transactions.map((transaction) => transaction.id)),
    transactionPattern: `^(storm|forged)-${seed}-`,
  };
}

/** The crypto-sandbox's own postbacks, delivered through the gateway's hook route. */
export function sandboxStorm(stack: FaultStack): StormPersonality {
  const reports: TransactionReports = {
    provider: 'sandbox',
    body: (topup, transactionId, units, status) => stack.postbackBody(topup, transactionId, units, status),
    sign: (body) => stack.sign(body),
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
  };
  return {
    name: 'sandbox',
    createTopup: (customer, amountEurCents) => stack.createTopup(customer, amountEurCents),
    plan: (topups, seed, random) => transactionStormPlan(reports, topups, seed, random),
    post: (delivery) => stack.postback(delivery.body, delivery.signature),
    fullPayment: (topup, label) => fullTransaction(reports, topup, label),
    process: async () => stack.service('payments'),
    deliverToProcess: (delivery) => stack.postback(delivery.body, delivery.signature),
    close: async () => undefined,
  };
}

/** One transaction paying the whole top-up, confirmed: a fresh signed report of it at each call. */
function fullTransaction(reports: TransactionReports, topup: TopupForPostbacks, transactionId: string): FullPayment {
  return {
    transactionId,
    delivery() {
      const body = reports.body(topup, transactionId, topup.depositUnits, 'confirmed');
      return { body, signature: reports.sign(body), expected: 'ok', variant: 'confirmed', group: transactionId, rank: 1 };
    },
  };
}

/** Extra environment of the payments replica a provider personality starts (the crash row arms its fault hook). */
export type ReplicaEnvironment = Record<string, string>;

/** A top-up made through a payments replica's gRPC API, with the invoice id payments stored for it. */
async function replicaTopup(
  stack: FaultStack,
  client: UnaryClient<any>,
  customer: Customer,
  amountEurCents: number,
  asset: { asset_code: string; blockchain_code: string },
): Promise<TopupForPostbacks> {
  const view = await client.call<any>('CreateTopup', { customer_id: customer.id, amount_eur_cents: amountEurCents, ...asset });
  const document = await stack.mongo
    .db(databaseName(stack.prefix, 'payments'))
    .collection<{ _id: string; invoice_id: string }>('topups')
    .findOne({ _id: String(view.id) });
  if (!document) throw new Error(`top-up ${view.id} is not in the payments store`);
  return {
    id: Number(view.id),
    customerId: customer.id,
    invoiceId: document.invoice_id,
    address: view.deposit_address,
    assetCode: view.asset_code,
    blockchainCode: view.blockchain_code,
    amountEurCents,
    depositUnits: BigInt(view.deposit_amount),
    createdAt: new Date(view.created_at),
  };
}

/**
 * BTCPay Server's webhooks (the crypto-sandbox's fake store, with its development settings), for BTC top-ups made
 * by a payments replica of the stack with PAYMENTS_PROVIDER=btcpay, delivered to that replica's hook listener.
 */
export async function btcpayStorm(stack: FaultStack, replicaEnv: ReplicaEnvironment = {}): Promise<StormPersonality> {
  const hooksPort = await freePort();
  const replica = await stack.startReplica('payments', 'payments-btcpay', {
    ...replicaEnv,
    PAYMENTS_PROVIDER: 'btcpay',
    BTCPAY_URL: `${stack.sandboxUrl}/btcpay`,
    BTCPAY_STORE_ID: developmentBtcpayStoreId,
    BTCPAY_API_KEY: developmentBtcpayApiKey,
    BTCPAY_WEBHOOK_SECRET: developmentBtcpayWebhookSecret,
    HOOKS_PORT: String(hooksPort),
  });
  const client = createUnaryClient<any>('payments/v1/payments.proto', 'mtx.payments.v1.PaymentsService', replica.address, 10_000);
  const reports: TransactionReports = { provider: 'btcpay', ...btcpayWebhooks() };
  const post = (delivery: StormDelivery) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'BTCPayServer' };
    if (delivery.signature !== null) headers['btcpay-sig'] = delivery.signature;
    return stack.request('POST', `http://127.0.0.1:${hooksPort}/v1/hooks/payments/btcpay`, { rawBody: delivery.body, headers });
  };
  return {
    name: 'btcpay',
    createTopup: (customer, amountEurCents) =>
      replicaTopup(stack, client, customer, amountEurCents, { asset_code: 'BTC', blockchain_code: 'BTC' }),
    plan: (topups, seed, random) => transactionStormPlan(reports, topups, seed, random),
    post,
    fullPayment: (topup, label) => fullTransaction(reports, topup, label),
    process: async () => replica,
    deliverToProcess: post,
    async close() {
      client.close();
      await stack.stopReplica('payments-btcpay');
    },
  };
}

/**
 * NOWPayments: top-ups created by a payments replica whose provider is NOWPayments (the stack's own payments
 * creates sandbox top-ups and takes the callbacks of both), IPNs delivered through the gateway's route, or (the
 * crash row) to the replica's own hook listener.
 */
export function nowPaymentsStorm(stack: FaultStack, replicaEnv: ReplicaEnvironment = {}): StormPersonality {
  let client: UnaryClient<any> | undefined;
  let replica: ServiceProcess | undefined;
  let hooksPort = 0;
  // One replica, however many top-ups ask for it at once: the storm creates four at a time, and each used to start
  // a replica of its own, of which close() stopped one.
  let starting: Promise<UnaryClient<any>> | undefined;
  const creator = () => {
    starting ??= (async () => {
      hooksPort = await freePort();
      replica = await stack.startReplica('payments', 'payments-nowpayments', {
        ...replicaEnv,
        PAYMENTS_PROVIDER: 'nowpayments',
        HOOKS_PORT: String(hooksPort),
      });
      client = createUnaryClient<any>('payments/v1/payments.proto', 'mtx.payments.v1.PaymentsService', replica.address, 10_000);
      return client;
    })();
    return starting;
  };
  const deliveryTo = (url: string, delivery: StormDelivery) =>
    stack.request('POST', url, {
      rawBody: delivery.body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'NOWPayments',
        ...(delivery.signature === null ? {} : { 'x-nowpayments-sig': delivery.signature }),
      },
    });
  return {
    name: 'nowpayments',
    createTopup: async (customer, amountEurCents) =>
      replicaTopup(stack, await creator(), customer, amountEurCents, { asset_code: 'USDT', blockchain_code: 'TRON' }),
    plan(topups, _seed, random) {
      // Each top-up's payment reports its running total after each transaction.
      const totals = topups.flatMap((topup) => {
        let total = 0n;
        return splits(topup, random).map((units, index, all) => {
          total += units;
          return { topup, total, index, last: index === all.length - 1 };
        });
      });
      const key = (topup: TopupForPostbacks, total: bigint) => `${topup.invoiceId}@${coins(total)}`;
      const good = (report: (typeof totals)[number], status: string, variant: string, rank: number): StormDelivery => {
        const parsed = ipn(report.topup, report.total, status);
        return { body: JSON.stringify(parsed), signature: signIpn(parsed), expected: 'ok', variant, group: report.topup.invoiceId, rank };
      };
      const deliveries: StormDelivery[] = [];
      for (const report of totals) {
        deliveries.push(good(report, 'confirming', 'confirming', 2 * report.index));
        deliveries.push(good(report, report.last ? 'finished' : 'partially_paid', 'credited', 2 * report.index + 1));
      }
      while (deliveries.length < 900) {
        const report = pick(totals, random);
        deliveries.push(
          good(
            report,
            report.last ? pick(['confirmed', 'sending', 'finished'], random) : 'partially_paid',
            'duplicate',
            2 * report.index + 1,
          ),
        );
      }
      const variants = [
        'wrong secret',
        'body changed after signing',
        'no signature',
        'malformed signature',
        'signature of another body',
        'raw bytes signed',
      ] as const;
      for (let index = 0; deliveries.length < 1_000; index++) {
        const report = pick(totals, random);
        const variant = variants[index % variants.length]!;
        const genuine = ipn(report.topup, report.total, 'finished');
        let body = JSON.stringify(genuine);
        let signature: string | null = signIpn(genuine);
        if (variant === 'wrong secret') {
          const forged = ipn(report.topup, report.topup.depositUnits * 10n, 'finished');
          body = JSON.stringify(forged);
          signature = signIpn(forged, 'not-the-ipn-secret-0123456789');
        } else if (variant === 'body changed after signing') {
          body = JSON.stringify({ ...genuine, actually_paid: coins(report.total * 10n) });
        } else if (variant === 'no signature') {
          signature = null;
        } else if (variant === 'malformed signature') {
          signature = ['z'.repeat(128), signature.slice(0, 40), `sha512=${signature}`, ''][index % 4]!;
        } else if (variant === 'signature of another body') {
          body = JSON.stringify(ipn(report.topup, report.topup.depositUnits * 3n, 'finished'));
        } else {
          // Signed as the bytes came, not as NOWPayments signs (sorted keys): a receiver doing so would be wrong too.
          signature = crypto.createHmac('sha512', ipnSecret).update(body).digest('hex');
        }
        deliveries.push({ body, signature, expected: 'unauthenticated', variant, group: report.topup.invoiceId, rank: 0 });
      }
      return {
        deliveries,
        reports: totals.length,
        creditPrefixes: topups.map((topup) => ({
          topup,
          prefix: `topup:nowpayments:${topup.invoiceId}@`,
          amountEurCents: topup.amountEurCents,
        })),
        genuine: new Set(totals.map((report) => key(report.topup, report.total))),
        transactionPattern: `^(${topups.map((topup) => topup.invoiceId).join('|')})@`,
      };
    },
    post: (delivery) => deliveryTo(`${stack.gatewayUrl}/v1/hooks/payments/nowpayments`, delivery),
    fullPayment(topup) {
      // The payment's running total reaches the whole amount: `finished`, keyed by that total.
      const parsed = ipn(topup, topup.depositUnits, 'finished');
      const body = JSON.stringify(parsed);
      return {
        transactionId: `${topup.invoiceId}@${coins(topup.depositUnits)}`,
        delivery: () => ({ body, signature: signIpn(parsed), expected: 'ok', variant: 'finished', group: topup.invoiceId, rank: 1 }),
      };
    },
    async process() {
      await creator();
      return replica!;
    },
    deliverToProcess: (delivery) => deliveryTo(`http://127.0.0.1:${hooksPort}/v1/hooks/payments/nowpayments`, delivery),
    async close() {
      await starting?.catch(() => undefined);
      client?.close();
      if (client) await stack.stopReplica('payments-nowpayments');
      client = undefined;
      replica = undefined;
      starting = undefined;
    },
  };
}
