import type { CustomerEventDraft } from '@mtx/shared/customer-events';
import type { Clock } from '@mtx/shared/clock';
import type { Logger } from '@mtx/shared/logger';
import type { TopupStatus } from '../domain/topup-state';
import type { PaymentProvider } from '../providers/provider';
import type { PaymentsStore } from '../store/payments-store';

import type { PostbackInbox } from '../clients/inbox';
import type { WalletPort } from '../clients/wallet';

export interface AssetRow {
  asset_code: string;
  asset_name: string;
  blockchain_code: string;
  blockchain_name: string;
  is_evm: boolean;
  is_stable: boolean;
  amount: string;
  decimals: number;
  display_decimals: number;
  /** The smallest top-up this pair takes now, in EUR cents: at least the product's minimum top-up. */
  min_amount_eur_cents: number;
}

export interface TopupView {
  id: number;
  customer_id: string;
  status: TopupStatus;
  amount_eur_cents: number;
  credited_eur_cents: number;
  deposit_address: string;
  deposit_amount: string;
  deposit_amount_decimal: string;
  asset_code: string;
  blockchain_code: string;
  expires_at: string;
  created_at: string;
  is_evm: boolean;
  payment_uri?: string;
  decimals: number;
}

export interface PostbackOutcome {
  /**
   * `recorded`: stored in the inbox now, the credit follows; `duplicate`: this transaction was recorded before
   * (waiting in the inbox or already credited); `ignored`: a delivery that moves no money.
   */
  outcome: 'recorded' | 'duplicate' | 'ignored';
  topup_id?: number;
  /** 0: the acknowledgement comes before the credit, whose amount the worker decides. */
  credited_eur_cents: number;
  /** Whose top-up it was, so the caller can refresh that customer's views before acknowledging. */
  customer_id?: string;
  /** The provider reported the payment failed, expired or refunded (its own word): counted for the operator. */
  provider_failure?: string;
}

export interface CreditingWorkerOptions {
  /** Records credited together: one CreditMany and shared store commands. */
  batchMax: number;
  /** Batches in flight at once; a record arriving meanwhile joins the next one. */
  inFlightMax: number;
  /** Least time between the starts of two batches unless the second is full (0: a batch goes as soon as it can). */
  lingerMs?: number;
  /** An unsettled record older than this is logged when the age is checked (the inbox redelivers it). */
  staleAfterMs: number;
  /** A record whose credit failed is delivered again after 100 ms, then twice as long each time, up to this. */
  retryAfterMs: number;
}

export interface TopupsOptions {
  store: PaymentsStore;
  clock: Clock;
  logger: Logger;
  providers: ReadonlyMap<string, PaymentProvider>;
  /** Provider new top-ups are opened with. */
  defaultProvider: string;
  wallet: WalletPort;
  /** Where a postback is recorded before it is acknowledged, and whence the crediting worker takes it. */
  inbox: PostbackInbox;
  /** A postback signed longer ago (or further ahead) than this is refused as a replay. */
  postbackToleranceMs: number;
  /** How long a provider's asset list and rates are reused. */
  assetsCacheMs: number;
  reconcileLookbackMs: number;
  /**
   * How long a customer's computed pending top-ups answer GET /v1/wallet without store reads when another
   * replica changed them and its broadcast was lost; changes made by this replica are seen at once. 0: always read.
   */
  pendingFreshMs?: number;
  /** Tells the other replicas a customer's top-ups changed (NATS broadcast); optional. */
  publishChanged?: (customerId: string) => void;
  /** Tells the customer's webhooks (topup.credited, topup.expired); optional. */
  publishEvent?: (event: CustomerEventDraft) => void;
  /** The inbox worker's bounds; defaults suit one replica under a 1,000 postbacks/s load. */
  crediting?: Partial<CreditingWorkerOptions>;
  /** Fault injection: a newly recorded payment whose wallet entry id starts with this kills the process before the credit. */
  crashBeforeCreditPrefix?: string;
  exit?: (code: number) => never;
}
