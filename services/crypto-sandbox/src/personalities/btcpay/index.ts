import crypto from 'node:crypto';
import type { Clock } from '@mtx/shared/clock';
import type { Logger } from '@mtx/shared/logger';
import type { Db } from '@mtx/shared/mongo';
import type { SandboxConfig } from '../../config';
import type { DeliveryMode, PostbackDispatcher, PostbackJob, PostbackMessage } from '../../delivery';
import type { SandboxHttp } from '../../handlers/http';
import type { Invoices } from '../../invoices';
import type { InvoiceDocument, TransactionDocument } from '../../store/sandbox-store';
import type { Personality } from '../personality';
import { invoiceStatusOf, paymentIdOf, registerGreenfieldRoutes } from './greenfield';
import { btcpayInvoices, ensureBtcpayCollections, type BtcpayInvoiceDocument } from './store';
import { btcpayMessage, type BtcpayEvent } from './webhooks';

/**
 * A fake BTCPay Server (docs/providers/btcpay.md): one store's Greenfield API over the sandbox's invoice book and
 * simulated chain, and the webhooks BTCPay would send, in its payloads and signature. Not BTCPay: amounts, rates
 * and addresses are the sandbox's, a deposit settles as it arrives, and only what payments uses is served.
 */
export interface BtcpayPersonality extends Personality {
  registerRoutes(app: SandboxHttp): void;
  /** Creates its collections when missing (before `start`: building the personality sends the store nothing). */
  ensureCollections(): Promise<void>;
  /** Starts the expiry check (`InvoiceExpired` once an invoice's time passes without full payment). */
  start(): void;
  stop(): Promise<void>;
  /** One pass of the expiry check; the timer runs it, tests may too. */
  checkExpiries(): Promise<number>;
}

export function createBtcpayPersonality(options: {
  config: SandboxConfig;
  database: Db;
  invoices: Invoices;
  dispatcher: PostbackDispatcher;
  clock: Clock;
  logger: Logger;
}): BtcpayPersonality {
  const { config, invoices, dispatcher, clock, logger } = options;
  const collection = btcpayInvoices(options.database);
  const webhookId = `wh_${crypto.createHash('sha256').update(config.BTCPAY_STORE_ID).digest('hex').slice(0, 16)}`;
  const webhookUrl =
    config.BTCPAY_WEBHOOK_URL ?? `${(config.PAYMENTS_HOOKS_URL ?? config.GATEWAY_URL).replace(/\/+$/, '')}/v1/hooks/payments/btcpay`;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  const message = (label: string, event: BtcpayEvent, redeliveryOf?: () => string | undefined) =>
    btcpayMessage(label, event, {
      webhookId,
      secret: config.BTCPAY_WEBHOOK_SECRET,
      timestampSeconds: Math.floor(clock.now().getTime() / 1000),
      ...(redeliveryOf ? { redeliveryOf } : {}),
    });

  const baseOf = (data: BtcpayInvoiceDocument) => ({ storeId: data.store_id, invoiceId: data._id, metadata: data.metadata });

  /**
   * A payment's webhooks in BTCPay's order: `InvoiceReceivedPayment` (payment Processing), `InvoiceProcessing` when
   * it completes the invoice, `InvoicePaymentSettled`, then `InvoiceSettled` when it completed the invoice. A payment
   * after the invoice's time passed has `afterExpiration: true` and settles no invoice.
   */
  async function postbacks(invoice: InvoiceDocument, transaction: TransactionDocument, mode: DeliveryMode): Promise<PostbackJob | null> {
    const data = await collection.findOne({ _id: invoice._id });
    if (!data || mode === 'never') return null;
    const view = await invoices.view(invoice);
    // Payments are numbered in arrival order: what the address had before this one.
    const before = view.transactions.slice(0, transaction.n - 1).reduce((sum, candidate) => sum + BigInt(candidate.amount), 0n);
    const after = before + BigInt(transaction.amount);
    const expected = BigInt(invoice.amount);
    const afterExpiration = transaction.received_at.getTime() >= invoice.expires_at.getTime();
    const completes = !afterExpiration && before < expected && after >= expected;
    const base = baseOf(data);
    const payment = (status: 'Processing' | 'Settled') => ({
      id: paymentIdOf(transaction.transaction_id),
      receivedDate: Math.floor(transaction.received_at.getTime() / 1000),
      value: view.transactions.find((candidate) => candidate.id === transaction.transaction_id)?.amount_decimal ?? '0',
      fee: '0',
      status,
      destination: invoice.address,
    });
    const paymentEvent = (type: string, status: 'Processing' | 'Settled'): BtcpayEvent => ({
      type,
      ...base,
      afterExpiration,
      paymentMethodId: data.payment_method_id,
      payment: payment(status),
    });
    const received = message('InvoiceReceivedPayment', paymentEvent('InvoiceReceivedPayment', 'Processing'));
    const settledEvent = paymentEvent('InvoicePaymentSettled', 'Settled');
    const settled = message('InvoicePaymentSettled', settledEvent);
    const processing = completes ? [message('InvoiceProcessing', { type: 'InvoiceProcessing', ...base, overPaid: after > expected })] : [];
    const invoiceSettled = completes
      ? [message('InvoiceSettled', { type: 'InvoiceSettled', ...base, manuallyMarked: false, overPaid: after > expected })]
      : [];
    let messages: PostbackMessage[];
    if (mode === 'reversed') messages = [settled, ...invoiceSettled, received, ...processing];
    else messages = [received, ...processing, settled, ...invoiceSettled];
    // A duplicate: the settled payment's event once more, as BTCPay redelivers it (`isRedelivery: true`).
    if (mode === 'twice') messages.push(message('InvoicePaymentSettled', settledEvent, settled.firstDeliveryId));
    return { invoiceId: invoice._id, transactionId: transaction.transaction_id, url: webhookUrl, mode, messages };
  }

  async function checkExpiries(): Promise<number> {
    const now = clock.now();
    const due = await collection
      .find({ expiry_handled: false, expires_at: { $lte: now } })
      .limit(config.BTCPAY_EXPIRY_BATCH)
      .toArray();
    let sent = 0;
    for (const data of due) {
      const view = await invoices.get(data._id);
      const { status } = invoiceStatusOf(view, now);
      if (status === 'Expired') {
        dispatcher.schedule({
          invoiceId: view.id,
          transactionId: '',
          url: webhookUrl,
          mode: 'normal',
          messages: [message('InvoiceExpired', { type: 'InvoiceExpired', ...baseOf(data), partiallyPaid: BigInt(view.paid_amount) > 0n })],
        });
        sent += 1;
      }
      await collection.updateOne({ _id: data._id }, { $set: { expiry_handled: true } });
    }
    return sent;
  }

  return {
    name: 'btcpay',
    postbacks,
    checkExpiries,
    ensureCollections: () => ensureBtcpayCollections(options.database),
    registerRoutes(app) {
      registerGreenfieldRoutes(app, {
        invoices,
        btcpayInvoices: collection,
        clock,
        storeId: config.BTCPAY_STORE_ID,
        apiKey: config.BTCPAY_API_KEY,
        rateStepMs: config.RATE_STEP_MS,
        publicUrl: (request) => `${request.protocol}://${request.headers.host ?? 'localhost'}/btcpay`,
      });
    },
    start() {
      if (timer) return;
      timer = setInterval(() => {
        // One pass at a time: a slow pass makes the next tick skip, never queue.
        if (running) return;
        running = checkExpiries()
          .catch((error: unknown) => logger.warn({ err: error }, 'BTCPay expiry check failed; the next pass retries'))
          .finally(() => (running = undefined));
      }, config.BTCPAY_EXPIRY_CHECK_MS);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
