import type { Clock } from '@mtx/shared/clock';
import type { Logger } from '@mtx/shared/logger';
import type { PriceFeed } from '../domain/prices';
import type { FileJournal } from '../store/journal';

/** The shapes the broker's callers pass in and read back. */

export interface TradeCall {
  sessionId: string;
  clientId: string;
  deadlineUnixMs: number;
  /** Resolves when the caller has given up (gRPC cancellation), so a hang ends early. */
  cancelled?: Promise<void>;
}

export interface BrokerOptions {
  journal: FileJournal;
  clock: Clock;
  logger: Logger;
  latencyMs: number;
  prices?: PriceFeed;
  /** A session unused this long is ended (its next call is UNAUTHENTICATED); default one hour. */
  sessionIdleMs?: number;
}

export interface BrokerStats {
  trade_requests_received: number;
  trade_requests_executed: number;
  accounts: number;
  sessions_open: number;
  sessions_logged_out: number;
}
