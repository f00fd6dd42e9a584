import type { Collection, Db } from '@mtx/shared/mongo';

export interface InvoiceDocument {
  _id: string;
  /** The provider personality whose API created it (`sandbox` when absent): it decides the postbacks' format. */
  personality?: string;
  address: string;
  asset_code: string;
  blockchain_code: string;
  /** Expected amount in the asset's smallest unit (a decimal integer string; 18-decimal tokens exceed 2^53). */
  amount: string;
  decimals: number;
  amount_eur_cents: number;
  order_id: string;
  is_evm: boolean;
  payment_uri?: string;
  callback_url?: string;
  expires_at: Date;
  created_at: Date;
}

export interface AddressDocument {
  _id: string;
  invoice_id: string;
}

/** One on-chain payment to an invoice's address; `_id` is `<invoice_id>:<n>` (n contiguous from 1). */
export interface TransactionDocument {
  _id: string;
  transaction_id: string;
  invoice_id: string;
  n: number;
  address: string;
  asset_code: string;
  blockchain_code: string;
  amount: string;
  received_at: Date;
}

export interface CancellationDocument {
  _id: string;
  cancelled_at: Date;
}

export interface SandboxStore {
  database: Db;
  invoices: Collection<InvoiceDocument>;
  addresses: Collection<AddressDocument>;
  transactions: Collection<TransactionDocument>;
  cancellations: Collection<CancellationDocument>;
}

export function createSandboxStore(database: Db): SandboxStore {
  return {
    database,
    invoices: database.collection<InvoiceDocument>('invoices'),
    addresses: database.collection<AddressDocument>('addresses'),
    transactions: database.collection<TransactionDocument>('transactions'),
    cancellations: database.collection<CancellationDocument>('cancellations'),
  };
}

export async function ensureSandboxCollections(store: SandboxStore): Promise<void> {
  for (const collection of [store.invoices, store.addresses, store.transactions, store.cancellations]) {
    await store.database.createCollection(collection.collectionName).catch((error: { code?: number }) => {
      if (error?.code !== 48) throw error; // 48: NamespaceExists
    });
  }
}
