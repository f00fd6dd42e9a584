import type { CustomerEventDraft } from '@mtx/shared/customer-events';
import type { ServerPlans } from '@mtx/shared/server-plans';

/** What billing charges and shows, from its configuration. */
export interface BillingOptions {
  seatPriceEurCents: number;
  serverPlans: ServerPlans;
  walletFeatureEnabled: boolean;
  horizonDays: number;
  pendingPurchaseRecoveryMs: number;
  /** Tells the customer's webhooks (wallet.low_balance); optional. */
  publishEvent?: (event: CustomerEventDraft) => void;
}
