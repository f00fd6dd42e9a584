/**
 * What payments needs from a crypto payment processor. Three adapters implement it: the crypto-sandbox
 * (`sandbox.ts`), NOWPayments (`nowpayments.ts`) and BTCPay Server's Greenfield API (`btcpay.ts`); the top-up
 * logic sees only this interface. docs/architecture.md ("Money in") says how each provider's model maps onto it.
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
  /** The smallest top-up this asset takes, in EUR cents (for `listAssets(amount)`: as the provider quotes it now). */
  minimumEurCents: number;
  /** EUR per whole coin, decimal string with at most 8 decimals: the market rate late coin is credited at. */
  rateEur: string;
  /**
   * For `listAssets(amountEurCents)` on a provider that quotes amounts itself (NOWPayments' estimate): what that
   * amount costs, in the asset's smallest unit. Absent, the amount follows from `rateEur`.
   */
  amountUnits?: string;
}

export type ProviderTransactionStatus = 'confirming' | 'confirmed' | 'failed';

export interface ProviderTransaction {
  transactionId: string;
  /**
   * The amount, as exactly one of: smallest units (a decimal integer string), or a decimal string of whole coins
   * (NOWPayments and BTCPay report coins), which payments converts at the top-up's decimals, rounding down.
   */
  amountUnits?: string;
  amountDecimal?: string;
  status: ProviderTransactionStatus;
  /** The provider's own word for the status, for logs and counters (`partially_paid`, `Settled`, …). */
  providerStatus?: string;
  /** When the payment reached the address: decides quoted (inside the window) or market rate. */
  receivedAt: Date;
  /**
   * The provider says whether the coin came after its quote had ended (BTCPay's `afterExpiration`); when set, it
   * decides the rate instead of `receivedAt` against the top-up's `expires_at`.
   */
  afterExpiration?: boolean;
  /**
   * The amount is a running total of one provider payment, not a payment of its own (NOWPayments reports
   * `actually_paid` so far): what is credited is its increase over the highest total recorded for the same
   * payment, so reports that arrive twice or out of order credit the total exactly once.
   */
  cumulativeOf?: string;
}

export interface ProviderInvoice {
  invoiceId: string;
  address: string;
  assetCode: string;
  blockchainCode: string;
  amountUnits: string;
  /** The end of the provider's own quote: a top-up's `expires_at` is never later. */
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
  /** Null for a notice that moves no money (an invoice expired, created, …): acknowledged and ignored. */
  transaction: ProviderTransaction | null;
  /**
   * When the provider signed this delivery, where its signature covers a timestamp; outside the tolerance it is
   * refused as a replay. Absent (NOWPayments signs none), a replayed body is only ever a duplicate.
   */
  sentAt?: Date;
}

export interface PaymentProvider {
  readonly name: string;
  /** Every asset new top-ups can be paid in; given an amount, the provider may quote that amount itself. */
  listAssets(amountEurCents?: number): Promise<ProviderAsset[]>;
  createInvoice(input: CreateInvoiceInput): Promise<ProviderInvoice>;
  getInvoice(invoiceId: string): Promise<ProviderInvoice>;
  /** Idempotent; a paid invoice that can no longer be cancelled resolves too. */
  cancelInvoice(invoiceId: string): Promise<void>;
  /** Constant-time check of the signature over the raw body bytes. */
  verifyPostback(body: Buffer, headers: Record<string, string>): boolean;
  /** Throws AppError('invalid_request') for a body that does not parse. Call only after verifyPostback. */
  parsePostback(body: Buffer): ProviderPostback;
}
