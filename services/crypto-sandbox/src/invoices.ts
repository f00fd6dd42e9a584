import crypto from 'node:crypto';
import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import { insertIfAbsent } from '@mtx/shared/mongo';
import { evmPaymentUri, newDepositAddress, newTransactionHash } from './domain/addresses';
import { findAsset, formatUnits, isUnitAmount } from './domain/catalog';
import type { InvoiceDocument, SandboxStore, TransactionDocument } from './store/sandbox-store';

export type InvoiceStatus = 'pending' | 'partial' | 'paid' | 'expired' | 'cancelled';

export interface InvoiceView {
  id: string;
  status: InvoiceStatus;
  order_id: string;
  address: string;
  asset_code: string;
  blockchain_code: string;
  amount: string;
  amount_decimal: string;
  decimals: number;
  amount_eur_cents: number;
  paid_amount: string;
  is_evm: boolean;
  payment_uri?: string;
  expires_at: string;
  created_at: string;
  cancelled_at: string | null;
  transactions: TransactionView[];
}

export interface TransactionView {
  id: string;
  amount: string;
  amount_decimal: string;
  status: 'confirmed';
  confirmations: number;
  received_at: string;
}

export interface CreateInvoiceInput {
  asset_code: string;
  blockchain_code: string;
  amount: string;
  amount_eur_cents: number;
  order_id: string;
  expires_at: string;
  is_evm?: boolean;
  callback_url?: string;
  /** The personality whose API creates it (`sandbox` when absent). */
  personality?: string;
}

// Confirmations the sandbox reports for a confirmed payment; real chains differ, the receiver only reads the status.
const confirmationsReported = 12;
const transactionsPerInvoiceMax = 1_000;

export type Invoices = ReturnType<typeof createInvoices>;

/**
 * The provider's invoice book. Every write is an insert (invoice, its address, each payment, a cancellation),
 * so concurrent deposits and cancels never lose one another on a store without isolated updates; an
 * invoice's state is derived from those records on read.
 */
export function createInvoices({ store, clock }: { store: SandboxStore; clock: Clock }) {
  async function transactionsOf(invoiceId: string): Promise<TransactionDocument[]> {
    const found: TransactionDocument[] = [];
    for (let n = 1; n <= transactionsPerInvoiceMax; n++) {
      const transaction = await store.transactions.findOne({ _id: `${invoiceId}:${n}` });
      if (!transaction) break;
      found.push(transaction);
    }
    return found;
  }

  async function view(invoice: InvoiceDocument): Promise<InvoiceView> {
    const [transactions, cancellation] = await Promise.all([
      transactionsOf(invoice._id),
      store.cancellations.findOne({ _id: invoice._id }),
    ]);
    const paid = transactions.reduce((sum, transaction) => sum + BigInt(transaction.amount), 0n);
    const expected = BigInt(invoice.amount);
    let status: InvoiceStatus;
    if (paid >= expected) status = 'paid';
    else if (cancellation) status = 'cancelled';
    else if (paid > 0n) status = 'partial';
    else if (clock.now().getTime() >= invoice.expires_at.getTime()) status = 'expired';
    else status = 'pending';
    return {
      id: invoice._id,
      status,
      order_id: invoice.order_id,
      address: invoice.address,
      asset_code: invoice.asset_code,
      blockchain_code: invoice.blockchain_code,
      amount: invoice.amount,
      amount_decimal: formatUnits(expected, invoice.decimals),
      decimals: invoice.decimals,
      amount_eur_cents: invoice.amount_eur_cents,
      paid_amount: paid.toString(),
      is_evm: invoice.is_evm,
      ...(invoice.payment_uri ? { payment_uri: invoice.payment_uri } : {}),
      expires_at: invoice.expires_at.toISOString(),
      created_at: invoice.created_at.toISOString(),
      cancelled_at: cancellation ? cancellation.cancelled_at.toISOString() : null,
      transactions: transactions.map((transaction) => ({
        id: transaction.transaction_id,
        amount: transaction.amount,
        amount_decimal: formatUnits(BigInt(transaction.amount), invoice.decimals),
        status: 'confirmed' as const,
        confirmations: confirmationsReported,
        received_at: transaction.received_at.toISOString(),
      })),
    };
  }

  async function load(invoiceId: string): Promise<InvoiceDocument> {
    const invoice = typeof invoiceId === 'string' && invoiceId.length <= 64 ? await store.invoices.findOne({ _id: invoiceId }) : null;
    if (!invoice) throw new AppError('not_found', `no invoice ${invoiceId}`, { param: 'id' });
    return invoice;
  }

  return {
    async create(input: CreateInvoiceInput): Promise<InvoiceView> {
      const asset = findAsset(input.asset_code, input.blockchain_code);
      if (!asset)
        throw new AppError('invalid_request', `${input.asset_code} on ${input.blockchain_code} is not offered`, { param: 'asset_code' });
      if (!isUnitAmount(input.amount))
        throw new AppError('invalid_request', 'amount must be a positive integer string in the smallest unit', { param: 'amount' });
      const expiresAt = new Date(input.expires_at);
      if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= clock.now().getTime()) {
        throw new AppError('invalid_request', 'expires_at must be a future ISO 8601 timestamp', { param: 'expires_at' });
      }
      if (input.is_evm && !asset.chain.isEvm)
        throw new AppError('invalid_request', `${asset.chain.name} is not an EVM chain`, { param: 'is_evm' });
      const invoiceId = `inv_${crypto.randomBytes(12).toString('hex')}`;
      let address = newDepositAddress(asset.chain.addressStyle);
      // The address is claimed first: a deposit is matched to its invoice by address alone.
      while (!(await insertIfAbsent(store.addresses, { _id: address, invoice_id: invoiceId })))
        address = newDepositAddress(asset.chain.addressStyle);
      const paymentUri = input.is_evm ? evmPaymentUri(asset, address, input.amount) : undefined;
      const invoice: InvoiceDocument = {
        _id: invoiceId,
        ...(input.personality ? { personality: input.personality } : {}),
        address,
        asset_code: asset.coin.code,
        blockchain_code: asset.chain.code,
        amount: input.amount,
        decimals: asset.decimals,
        amount_eur_cents: input.amount_eur_cents,
        order_id: input.order_id,
        is_evm: input.is_evm === true,
        ...(paymentUri ? { payment_uri: paymentUri } : {}),
        ...(input.callback_url ? { callback_url: input.callback_url } : {}),
        expires_at: expiresAt,
        created_at: clock.now(),
      };
      await store.invoices.insertOne(invoice);
      return view(invoice);
    },

    async get(invoiceId: string): Promise<InvoiceView> {
      return view(await load(invoiceId));
    },

    async cancel(invoiceId: string): Promise<InvoiceView> {
      const invoice = await load(invoiceId);
      const current = await view(invoice);
      if (current.status === 'paid') throw new AppError('conflict', 'a paid invoice cannot be cancelled');
      await insertIfAbsent(store.cancellations, { _id: invoiceId, cancelled_at: clock.now() });
      return view(invoice);
    },

    /**
     * A simulated on-chain payment to `address`. Coin reaches an address whatever its invoice's state (a chain
     * cannot refuse it), so payments to expired or cancelled invoices are recorded too; the wrong asset or
     * chain is refused, because on a real chain it would never reach this address's ledger.
     */
    async deposit(input: {
      address: string;
      asset_code: string;
      blockchain_code: string;
      amount: string;
    }): Promise<{ invoice: InvoiceDocument; transaction: TransactionDocument }> {
      if (!isUnitAmount(input.amount))
        throw new AppError('invalid_request', 'amount must be a positive integer string in the smallest unit', { param: 'amount' });
      const pointer =
        typeof input.address === 'string' && input.address.length <= 128 ? await store.addresses.findOne({ _id: input.address }) : null;
      if (!pointer) throw new AppError('not_found', `no invoice has the address ${input.address}`, { param: 'address' });
      const invoice = await load(pointer.invoice_id);
      if (invoice.asset_code !== input.asset_code || invoice.blockchain_code !== input.blockchain_code) {
        throw new AppError('invalid_request', `address ${input.address} takes ${invoice.asset_code} on ${invoice.blockchain_code}`, {
          param: 'asset_code',
        });
      }
      const asset = findAsset(invoice.asset_code, invoice.blockchain_code)!;
      for (let n = 1; n <= transactionsPerInvoiceMax; n++) {
        if (await store.transactions.findOne({ _id: `${invoice._id}:${n}` }, { projection: { _id: 1 } })) continue;
        const transaction: TransactionDocument = {
          _id: `${invoice._id}:${n}`,
          transaction_id: newTransactionHash(asset.chain.addressStyle),
          invoice_id: invoice._id,
          n,
          address: invoice.address,
          asset_code: invoice.asset_code,
          blockchain_code: invoice.blockchain_code,
          amount: input.amount,
          received_at: clock.now(),
        };
        // Two deposits racing for one slot: the loser takes the next.
        if (await insertIfAbsent(store.transactions, transaction)) return { invoice, transaction };
      }
      throw new AppError('conflict', `invoice ${invoice._id} has reached ${transactionsPerInvoiceMax} payments`);
    },

    view,
  };
}
