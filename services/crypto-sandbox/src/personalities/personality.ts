import type { DeliveryMode, PostbackJob } from '../delivery';
import type { InvoiceDocument, TransactionDocument } from '../store/sandbox-store';

/**
 * One payment provider the sandbox impersonates: its merchant API (routes of its own) over the shared invoice
 * book and simulated chain, and the postbacks a deposit causes, in its own format and signature. The control
 * endpoint `POST /sandbox/deposits` finds the invoice by address and asks the invoice's personality.
 */
export interface Personality {
  readonly name: string;
  /** The postbacks a deposit to one of this personality's invoices causes, in the mode asked; null sends none. */
  postbacks(invoice: InvoiceDocument, transaction: TransactionDocument, mode: DeliveryMode): Promise<PostbackJob | null>;
}
