import type { Collection, Db } from '@mtx/shared/mongo';

/**
 * A top-up as quoted: written once, never updated. `_id` is the decimal string of the integer id (FerretDB
 * answers a string `_id` from its index; every other filter, and every update, scans the collection).
 */
export interface TopupDocument {
  _id: string;
  id: number;
  customer_id: string;
  provider: string;
  invoice_id: string;
  amount_eur_cents: number;
  asset_code: string;
  blockchain_code: string;
  decimals: number;
  is_evm: boolean;
  deposit_address: string;
  deposit_amount: string;
  payment_uri?: string;
  created_at: Date;
  expires_at: Date;
}

/** Exclusive claim of a top-up id (`_id` its decimal string), taken before the provider invoice so the invoice can carry it. Ids are claimed without gaps. */
export interface TopupIdClaimDocument {
  _id: string;
  claimed_at: Date;
}

/**
 * Every collection but the inbox is insert-only and read by `_id`: FerretDB 1.x scans the whole collection for any other
 * filter and for every update or delete, so hot paths never update. Decisions are inserts that collide.
 */

/**
 * What happened to a top-up, one insert per fact: a confirmed provider transaction (with the cents it is worth,
 * decided once) or the quote's expiry. `_id` is `<topup_id>:<seq>` with seq contiguous from 1 and `key` unique,
 * so each provider transaction is recorded at most once and every record carries running totals; the head
 * record alone gives the top-up's state.
 */
export interface TopupEventDocument {
  _id: string;
  topup_id: number;
  seq: number;
  /** `tx:<provider>:<provider_transaction_id>` or `expired:<topup_id>`. */
  key: string;
  kind: 'payment' | 'expired';
  provider_transaction_id?: string;
  amount_units?: string;
  received_at?: Date;
  rate?: 'quoted' | 'market';
  market_rate_eur?: string;
  eur_cents: number;
  credited_after_eur_cents: number;
  /** Units and cents credited at the quoted rate so far: the quote's rounding is applied to the running total. */
  quoted_units_after: string;
  quoted_eur_cents_after: number;
  expired_after: boolean;
  created_at: Date;
}

/** Marks a payment record's wallet credit as done (`_id` is the record's key), so re-deliveries and polls skip the wallet. */
export interface AppliedCreditDocument {
  _id: string;
  applied_at: Date;
}

/** Marks an expired top-up's invoice as cancelled at the provider (`_id` is the top-up id). */
export interface CancelledInvoiceDocument {
  _id: string;
  cancelled_at: Date;
}

/** Finds the top-up of a provider invoice by `_id` (`<provider>:<invoice_id>`). */
export interface ProviderInvoiceDocument {
  _id: string;
  topup_id: number;
}

/** A customer's top-ups in creation order: `_id` is `<customer_id>:<n>`, n contiguous from 1. */
export interface CustomerTopupDocument {
  _id: string;
  topup_id: number;
  created_at: Date;
}

/**
 * The postback inbox: a verified, confirmed provider transaction recorded before the postback is acknowledged,
 * and deleted once its wallet credit is done (`_id` `<provider>:<provider_transaction_id>`, deleted by `_id`, an
 * index lookup). It holds only what is in flight, so the sweep's whole-collection read stays small; what stays
 * is the transaction's receipt and, once credited, its topup_events record.
 */
export interface InboxRecordDocument {
  _id: string;
  provider: string;
  topup_id: number;
  customer_id: string;
  transaction_id: string;
  amount_units: string;
  received_at: Date;
  recorded_at: Date;
  /** The postback's trace (W3C `traceparent`), so the credit's span joins it even after a crash and a sweep. */
  trace_context?: Record<string, string>;
}

/**
 * A postback's receipt: one per provider transaction ever recorded (`_id` `<provider>:<provider_transaction_id>`),
 * insert-only and never read on the hot path. Its insert colliding is what makes a delivery a `duplicate`,
 * whether the first is still in the inbox or long credited.
 */
export interface PostbackReceiptDocument {
  _id: string;
  topup_id: number;
  recorded_at: Date;
}

export interface PaymentsStore {
  database: Db;
  topups: Collection<TopupDocument>;
  topupIdClaims: Collection<TopupIdClaimDocument>;
  events: Collection<TopupEventDocument>;
  appliedCredits: Collection<AppliedCreditDocument>;
  cancelledInvoices: Collection<CancelledInvoiceDocument>;
  providerInvoices: Collection<ProviderInvoiceDocument>;
  customerTopups: Collection<CustomerTopupDocument>;
  inbox: Collection<InboxRecordDocument>;
  receipts: Collection<PostbackReceiptDocument>;
}

export function createPaymentsStore(database: Db): PaymentsStore {
  return {
    database,
    topups: database.collection<TopupDocument>('topups'),
    topupIdClaims: database.collection<TopupIdClaimDocument>('topup_id_claims'),
    events: database.collection<TopupEventDocument>('topup_events'),
    appliedCredits: database.collection<AppliedCreditDocument>('applied_credits'),
    cancelledInvoices: database.collection<CancelledInvoiceDocument>('cancelled_invoices'),
    providerInvoices: database.collection<ProviderInvoiceDocument>('provider_invoices'),
    customerTopups: database.collection<CustomerTopupDocument>('customer_topups'),
    inbox: database.collection<InboxRecordDocument>('postback_inbox'),
    receipts: database.collection<PostbackReceiptDocument>('postback_receipts'),
  };
}

export async function ensurePaymentsIndexes(store: PaymentsStore): Promise<void> {
  for (const collection of [
    store.topups,
    store.topupIdClaims,
    store.events,
    store.appliedCredits,
    store.cancelledInvoices,
    store.providerInvoices,
    store.customerTopups,
    store.inbox,
    store.receipts,
  ]) {
    await store.database.createCollection(collection.collectionName).catch((error: { code?: number }) => {
      if (error?.code !== 48) throw error; // 48: NamespaceExists
    });
  }
  // Uniqueness only: each provider transaction (and each expiry) is recorded once.
  await store.events.createIndex({ key: 1 }, { unique: true, name: 'key_unique' });
  // For the sweeps' range scans on MongoDB; FerretDB ignores it for queries and scans anyway.
  await store.topups.createIndex({ expires_at: 1, _id: 1 }, { name: 'expires_at' });
}
