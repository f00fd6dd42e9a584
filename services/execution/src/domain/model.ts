/** The words every layer of the execution service shares; nothing here reads or writes anything. */

export type Platform = 'mt4' | 'mt5';

export type BillingStatus = 'active' | 'past_due' | 'suspended';

/** One leg of a batch as the journal keeps it: enough to reconcile it with the terminal after a crash. */
export interface StoredLeg {
  account_id: string;
  platform: Platform;
  client_id: string;
  symbol: string;
  operation: string;
  volume: number;
}

/** What one NATS request to a terminal came back with: a reply, or why there was none. */
export type TerminalResponse =
  | { kind: 'reply'; data: Uint8Array }
  | { kind: 'no_responders' }
  | { kind: 'timeout' }
  | { kind: 'service_error'; code: number; message: string };
