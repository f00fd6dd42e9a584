import type { CustomerEventDraft } from '@mtx/shared/customer-events';
import type { Clock } from '@mtx/shared/clock';
import type { Logger } from '@mtx/shared/logger';
import type { AccountRegistry, ResolvedAccount } from './accounts';
import type { TerminalClient } from '../clients/terminals';
import type { ExecutionStore } from '../store/execution-store';

/** What every part of the batch service is given. */
export interface BatchServiceConfig {
  EXECUTION_DEADLINE_MS: number;
  BATCHES_IN_FLIGHT_MAX: number;
  PING_DEADLINE_MS: number;
  LATE_REPLY_WINDOW_MS: number;
  RECONCILE_SETTLE_AFTER_MS: number;
  RECONCILE_GIVE_UP_AFTER_MS: number;
  RECOVERY_AFTER_MS: number;
}

export interface BatchServiceOptions {
  /** Tells the customer's webhooks (batch.settled); optional. */
  publishEvent?: (event: CustomerEventDraft) => void;
  store: ExecutionStore;
  registry: AccountRegistry;
  terminals: TerminalClient;
  clock: Clock;
  logger: Logger;
  config: BatchServiceConfig;
}

/** The customer's accounts by id, or 400 unknown_account naming the first that is not theirs. */
export type ResolveOwned = (customerId: string, ids: Array<{ account_id: string; param: string }>) => Promise<Map<string, ResolvedAccount>>;
