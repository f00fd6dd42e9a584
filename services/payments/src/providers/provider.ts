/**
 * What payments needs from a crypto payment processor. The sandbox implements it; a real gateway (NOWPayments,
 * BTCPay Server, …) plugs in behind the same interface without touching the top-up logic.
 */
export interface ProviderAsset {
  assetCode: string;
  assetName: string;
  blockchainCode: string;
  blockchainName: string;
  isEvm: boolean;
  isStable: boolean;
  decimals: number;
  displayDecimals: number;
  minimumEurCents: number;
  /** EUR per whole coin, decimal string with at most 8 decimals. */
  rateEur: string;
}

export type ProviderTransactionStatus = 'confirming' | 'confirmed' | 'failed';

export interface ProviderTransaction {
  transactionId: string;
  /** Smallest units, decimal integer string. */
  amountUnits: string;
  status: ProviderTransactionStatus;
  /** When the payment reached the address: decides quoted (inside the window) or market rate. */
  receivedAt: Date;
}

export interface ProviderInvoice {
  invoiceId: string;
  address: string;
  assetCode: string;
  blockchainCode: string;
  amountUnits: string;
  expiresAt: Date;
  paymentUri?: string;
  transactions: ProviderTransaction[];
}

export interface CreateInvoiceInput {
  orderId: string;
  amountEurCents: number;
  assetCode: string;
  blockchainCode: string;
  amountUnits: string;
  expiresAt: Date;
  isEvm: boolean;
}

export interface ProviderPostback {
  invoiceId: string;
  /** The merchant's reference given at invoice creation (our top-up id), when the provider echoes it. */
  orderId?: string;
  assetCode: string;
  blockchainCode: string;
  transaction: ProviderTransaction;
  /** When the provider signed this delivery; outside the tolerance it is refused as a replay. */
  sentAt: Date;
}

export interface PaymentProvider {
  readonly name: string;
  listAssets(): Promise<ProviderAsset[]>;
  createInvoice(input: CreateInvoiceInput): Promise<ProviderInvoice>;
  getInvoice(invoiceId: string): Promise<ProviderInvoice>;
  /** Idempotent; a paid invoice that can no longer be cancelled resolves too. */
  cancelInvoice(invoiceId: string): Promise<void>;
  /** Constant-time check of the signature over the raw body bytes. */
  verifyPostback(body: Buffer, headers: Record<string, string>): boolean;
  /** Throws AppError('invalid_request') for a body that does not parse. Call only after verifyPostback. */
  parsePostback(body: Buffer): ProviderPostback;
}
