import type { Collection, Db } from '@mtx/shared/mongo';

/** What BTCPay keeps of an invoice beyond the shared invoice book: its store, method, rate and checkout terms. */
export interface BtcpayInvoiceDocument {
  /** The shared invoice book's id. */
  _id: string;
  store_id: string;
  payment_method_id: string;
  crypto_code: string;
  /** EUR per coin when the invoice was created (8 decimals): the invoice's own rate. */
  rate: string;
  /** The invoice amount in EUR as the merchant gave it (`"12.34"`). */
  amount: string;
  currency: string;
  metadata: Record<string, unknown>;
  expiration_minutes: number;
  created_at: Date;
  expires_at: Date;
  /** Whether `InvoiceExpired` was sent (or the invoice was paid in full before its time passed). */
  expiry_handled: boolean;
}

export function btcpayInvoices(database: Db): Collection<BtcpayInvoiceDocument> {
  return database.collection<BtcpayInvoiceDocument>('btcpay_invoices');
}

export async function ensureBtcpayCollections(database: Db): Promise<void> {
  await database.createCollection('btcpay_invoices').catch((error: { code?: number }) => {
    if (error?.code !== 48) throw error; // 48: NamespaceExists
  });
}
