import crypto from 'node:crypto';
import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import type { Collection, Db } from '@mtx/shared/mongo';
import type { InvoiceView, Invoices } from '../../invoices';
import { coinNumber, fakeCurrency, precisionOf, unitsForEurCents } from './currencies';

/**
 * The fake NOWPayments' payments over the shared invoice book: one invoice per payment created through
 * `POST /payment` (its id is the payment id), deposits are the invoice's transactions. A payment takes the
 * deposits that reach its address while it is open (not yet paid in full, fixed rate not yet expired); each
 * later deposit is a repeat payment of its own, with its own `payment_id` and `parent_payment_id` = the original,
 * as NOWPayments reports coin sent again to an address.
 */
export interface NowPaymentDocument {
  /** The payment id (a decimal number, as NOWPayments' are). */
  _id: string;
  /** The invoice whose address and deposits it shares (the original payment's id). */
  invoice_id: string;
  parent_payment_id?: string;
  /** A repeat payment's one deposit (the invoice transaction number). */
  transaction_n?: number;
  pay_currency: string;
  price_amount: number;
  price_currency: string;
  order_id: string;
  order_description: string | null;
  ipn_callback_url: string | null;
  purchase_id: string;
  created_at: Date;
}

/** A status set through the control endpoint (`failed`, `refunded`, …), over the derived one. */
export interface NowPaymentStatusDocument {
  _id: string;
  status: string;
  at: Date;
}

export const paymentStatuses = [
  'waiting',
  'confirming',
  'confirmed',
  'sending',
  'partially_paid',
  'finished',
  'failed',
  'refunded',
  'expired',
] as const;

export interface PaymentState {
  document: NowPaymentDocument;
  invoice: InvoiceView;
  payUnits: bigint;
  paidUnits: bigint;
  /** When the last deposit the payment holds arrived. */
  paidAt: Date | null;
  status: string;
}

const newNumericId = () => String(4_000_000_000 + crypto.randomInt(0, 2 ** 32));

export type NowPayments = ReturnType<typeof createNowPayments>;

export function createNowPayments(dependencies: { database: Db; invoices: Invoices; clock: Clock; rateStepMs: number; quoteMs: number }) {
  const { invoices, clock } = dependencies;
  const payments: Collection<NowPaymentDocument> = dependencies.database.collection('nowpayments_payments');
  const statuses: Collection<NowPaymentStatusDocument> = dependencies.database.collection('nowpayments_statuses');

  /** Which deposits (transaction numbers, from 1) the original payment holds; the others are repeat payments. */
  function originalTakes(invoice: InvoiceView): number[] {
    const expected = BigInt(invoice.amount);
    const expiresAtMs = new Date(invoice.expires_at).getTime();
    let paid = 0n;
    const taken: number[] = [];
    invoice.transactions.forEach((transaction, index) => {
      if (paid < expected && new Date(transaction.received_at).getTime() < expiresAtMs) {
        paid += BigInt(transaction.amount);
        taken.push(index + 1);
      }
    });
    return taken;
  }

  async function stateOf(document: NowPaymentDocument, invoice?: InvoiceView): Promise<PaymentState> {
    const view = invoice ?? (await invoices.get(document.invoice_id));
    const override = await statuses.findOne({ _id: document._id });
    if (document.transaction_n !== undefined) {
      const deposit = view.transactions[document.transaction_n - 1];
      const units = BigInt(deposit?.amount ?? '0');
      return {
        document,
        invoice: view,
        payUnits: units,
        paidUnits: units,
        paidAt: deposit ? new Date(deposit.received_at) : null,
        status: override?.status ?? 'finished',
      };
    }
    const taken = originalTakes(view);
    const paidUnits = taken.reduce((sum, n) => sum + BigInt(view.transactions[n - 1]!.amount), 0n);
    const payUnits = BigInt(view.amount);
    const last = taken.length > 0 ? view.transactions[taken[taken.length - 1]! - 1]! : undefined;
    let status: string;
    if (paidUnits >= payUnits) status = 'finished';
    else if (paidUnits > 0n) status = 'partially_paid';
    else status = clock.now().getTime() >= new Date(view.expires_at).getTime() ? 'expired' : 'waiting';
    return {
      document,
      invoice: view,
      payUnits,
      paidUnits,
      paidAt: last ? new Date(last.received_at) : null,
      status: override?.status ?? status,
    };
  }

  /** A payment as NOWPayments' `GET /payment/{id}` and its IPNs write it, at `status` and `paidUnits`. */
  function paymentBody(state: PaymentState, overrides: { status?: string; paidUnits?: bigint; updatedAt?: Date } = {}) {
    const { document, invoice } = state;
    const decimals = invoice.decimals;
    const paidUnits = overrides.paidUnits ?? state.paidUnits;
    const paid = coinNumber(paidUnits, decimals);
    const priceShare =
      state.payUnits > 0n ? Number((paidUnits * BigInt(Math.round(document.price_amount * 100))) / state.payUnits) / 100 : 0;
    return {
      payment_id: Number(document._id),
      parent_payment_id: document.parent_payment_id === undefined ? null : Number(document.parent_payment_id),
      invoice_id: null,
      payment_status: overrides.status ?? state.status,
      pay_address: invoice.address,
      payin_extra_id: null,
      price_amount: document.price_amount,
      price_currency: document.price_currency,
      pay_amount: coinNumber(state.payUnits, decimals),
      actually_paid: paid,
      actually_paid_at_fiat: priceShare,
      pay_currency: document.pay_currency.toLowerCase(),
      order_id: document.order_id,
      order_description: document.order_description,
      purchase_id: document.purchase_id,
      outcome_amount: paid,
      outcome_currency: document.pay_currency.toLowerCase(),
      payment_extra_ids: null,
      // NOWPayments nests its fees; a verifier must sort these keys too.
      fee: { currency: document.pay_currency.toLowerCase(), depositFee: 0, withdrawalFee: 0, serviceFee: 0 },
      created_at: document.created_at.toISOString(),
      updated_at: (overrides.updatedAt ?? state.paidAt ?? document.created_at).toISOString(),
    };
  }

  return {
    async ensureCollections(): Promise<void> {
      for (const name of [payments.collectionName, statuses.collectionName])
        await dependencies.database.createCollection(name).catch((error: { code?: number }) => {
          if (error?.code !== 48) throw error; // 48: NamespaceExists
        });
    },

    /** `POST /payment`: a fixed-rate payment of `price_amount` EUR in `pay_currency`, on an invoice of its own. */
    async create(input: {
      price_amount: number;
      price_currency: string;
      pay_currency: string;
      ipn_callback_url?: string;
      order_id?: string;
      order_description?: string;
    }) {
      const currency = fakeCurrency(input.pay_currency);
      if (!currency?.listed || !currency.merchantEnabled || currency.extraIdExists)
        throw new AppError('invalid_request', `pay_currency ${input.pay_currency} is not available in this fake`);
      if (input.price_currency.toLowerCase() !== 'eur') throw new AppError('invalid_request', 'this fake prices payments in eur only');
      const eurCents = Math.round(input.price_amount * 100);
      if (!Number.isSafeInteger(eurCents) || eurCents <= 0) throw new AppError('invalid_request', 'price_amount must be positive');
      const now = clock.now();
      const units = unitsForEurCents(currency.listed, eurCents, now, dependencies.rateStepMs);
      const paymentId = newNumericId();
      const invoice = await invoices.create({
        id: paymentId,
        personality: 'nowpayments',
        asset_code: currency.listed.coin.code,
        blockchain_code: currency.listed.chain.code,
        amount: units.toString(),
        amount_eur_cents: eurCents,
        order_id: input.order_id ?? paymentId,
        expires_at: new Date(now.getTime() + dependencies.quoteMs).toISOString(),
        ...(input.ipn_callback_url ? { callback_url: input.ipn_callback_url } : {}),
      });
      const document: NowPaymentDocument = {
        _id: paymentId,
        invoice_id: invoice.id,
        pay_currency: currency.code,
        price_amount: input.price_amount,
        price_currency: input.price_currency.toLowerCase(),
        order_id: input.order_id ?? '',
        order_description: input.order_description ?? null,
        ipn_callback_url: input.ipn_callback_url ?? null,
        purchase_id: newNumericId(),
        created_at: now,
      };
      await payments.insertOne(document);
      return {
        payment_id: paymentId,
        payment_status: 'waiting',
        pay_address: invoice.address,
        price_amount: document.price_amount,
        price_currency: document.price_currency,
        pay_amount: coinNumber(units, currency.listed.decimals),
        amount_received: coinNumber(units, currency.listed.decimals),
        pay_currency: currency.code.toLowerCase(),
        order_id: document.order_id,
        order_description: document.order_description,
        ipn_callback_url: document.ipn_callback_url,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
        purchase_id: document.purchase_id,
        smart_contract: null,
        network: currency.network,
        network_precision: precisionOf(currency.listed),
        time_limit: null,
        burning_percent: null,
        expiration_estimate_date: invoice.expires_at,
        payin_extra_id: null,
        is_fixed_rate: true,
        is_fee_paid_by_user: false,
        type: 'crypto2crypto',
        product: 'api',
      };
    },

    async find(paymentId: string): Promise<NowPaymentDocument | null> {
      return /^[0-9]{1,20}$/.test(paymentId) ? payments.findOne({ _id: paymentId }) : null;
    },

    async get(paymentId: string) {
      const document = await this.find(paymentId);
      if (!document) throw new AppError('not_found', `payment ${paymentId} not found`);
      return paymentBody(await stateOf(document));
    },

    /**
     * The payment a deposit (invoice transaction `n`) belongs to, with the running totals before and after it:
     * the original while it is open, else a new repeat payment recorded here.
     */
    async paymentOfDeposit(invoiceId: string, n: number): Promise<{ state: PaymentState; previousUnits: bigint }> {
      const original = await payments.findOne({ _id: invoiceId });
      if (!original) throw new AppError('internal', `invoice ${invoiceId} has no NOWPayments payment`);
      const invoice = await invoices.get(invoiceId);
      const taken = originalTakes(invoice);
      if (taken.includes(n)) {
        const upTo = taken.filter((number) => number <= n);
        const sum = (numbers: number[]) => numbers.reduce((total, number) => total + BigInt(invoice.transactions[number - 1]!.amount), 0n);
        const state = await stateOf(original, invoice);
        const paidUnits = sum(upTo);
        return {
          state: { ...state, paidUnits, paidAt: new Date(invoice.transactions[n - 1]!.received_at) },
          previousUnits: sum(upTo.slice(0, -1)),
        };
      }
      const repeat: NowPaymentDocument = {
        ...original,
        _id: newNumericId(),
        parent_payment_id: original._id,
        transaction_n: n,
        purchase_id: newNumericId(),
        created_at: clock.now(),
      };
      await payments.insertOne(repeat);
      return { state: await stateOf(repeat, invoice), previousUnits: 0n };
    },

    /** Sets a payment's status from outside (a refund, a failure NOWPayments decided); the next reads show it. */
    async setStatus(paymentId: string, status: string): Promise<PaymentState> {
      const document = await this.find(paymentId);
      if (!document) throw new AppError('not_found', `payment ${paymentId} not found`);
      await statuses.updateOne({ _id: paymentId }, { $set: { status, at: clock.now() } }, { upsert: true });
      return stateOf(document);
    },

    paymentBody,
  };
}
