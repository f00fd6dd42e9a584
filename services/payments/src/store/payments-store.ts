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

/**
 * Exclusive claim of a top-up id (`_id` its decimal string), taken before the provider invoice so the invoice can
 * carry it. Ids are random (app/topup-ids.ts says why), so a collision draws another.
 */
export interface TopupIdClaimDocument {
  _id: string;
  claimed_at: Date;
}

/**
 * The private creation sequence the sweeps walk: `_id` is `"<n>"`, n gapless from 1 in the order top-ups are
 * created, pointing at the public id claimed for it. Never shown outside the service.
 */
export interface TopupSequenceDocument {
  _id: string;
  topup_id: number;
  claimed_at: Date;
}

/**
 * Every collection is insert-only and read by `_id`: FerretDB 1.x scans the whole collection for any other
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
  /** For a running total (NOWPayments' actually_paid): the provider payment it totals, and the total itself. */
  cumulative_of?: string;
  cumulative_units?: string;
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

export interface PaymentsStore {
  database: Db;
  topups: Collection<TopupDocument>;
  topupIdClaims: Collection<TopupIdClaimDocument>;
  topupSequence: Collection<TopupSequenceDocument>;
  events: Collection<TopupEventDocument>;
  cancelledInvoices: Collection<CancelledInvoiceDocument>;
  providerInvoices: Collection<ProviderInvoiceDocument>;
  customerTopups: Collection<CustomerTopupDocument>;
}

export function createPaymentsStore(database: Db): PaymentsStore {
  return {
    database,
    topups: database.collection<TopupDocument>('topups'),
    topupIdClaims: database.collection<TopupIdClaimDocument>('topup_id_claims'),
    topupSequence: database.collection<TopupSequenceDocument>('topup_sequence'),
    events: database.collection<TopupEventDocument>('topup_events'),
    cancelledInvoices: database.collection<CancelledInvoiceDocument>('cancelled_invoices'),
    providerInvoices: database.collection<ProviderInvoiceDocument>('provider_invoices'),
    customerTopups: database.collection<CustomerTopupDocument>('customer_topups'),
  };
}

export async function ensurePaymentsIndexes(store: PaymentsStore): Promise<void> {
  for (const collection of [
    store.topups,
    store.topupIdClaims,
    store.topupSequence,
    store.events,
    store.cancelledInvoices,
    store.providerInvoices,
    store.customerTopups,
  ]) {
    await store.database.createCollection(collection.collectionName).catch((error: { code?: number }) => {
      if (error?.code !== 48) throw error; // 48: NamespaceExists
    });
  }
  // Uniqueness only: each provider transaction (and each expiry) is recorded once.
  await store.events.createIndex({ key: 1 }, { unique: true, name: 'key_unique' });
  // The sweeps walk top-ups by id; an expiry index (made by earlier versions) only costs every insert.
  await store.topups.dropIndex('expires_at').catch((error: { code?: number }) => {
    if (error?.code !== 27) throw error; // 27: IndexNotFound
  });
}
