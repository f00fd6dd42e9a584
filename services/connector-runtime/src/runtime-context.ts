import type { Context } from '@opentelemetry/api';
import type { NatsConnection } from 'nats';
import type { Logger } from '@mtx/shared/logger';
import type { PlatformAdapter } from './adapter';
import type { ClaimStore } from './claims';
import type { ConnectorConfig } from './config';
import type { MessageClaim } from './message-claim';
import type { TerminalAccess } from './terminal-access';

export interface ConnectorRuntimeOptions {
  platform: 'mt4' | 'mt5';
  config: ConnectorConfig;
  nats: NatsConnection;
  logger: Logger;
  adapter: PlatformAdapter;
  /** The terminals attached to this replica (docs/terminal-bridge.md). */
  terminals: TerminalAccess;
  claims: ClaimStore;
  version?: string;
}

/** What the runtime lends its parts: a claim taken once when needed, and logging within a request's trace. */
export interface RuntimeShared {
  claimFor(key: string, deadlineUnixMs: number, traceContext: Context): MessageClaim;
  logWithin(traceContext: Context, write: (logger: Logger) => void): void;
}

/** A duplicate's original is looked for at the terminal this often until the request's deadline. */
export const duplicatePollMs = 250;

export function sleep(durationMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, durationMs));
}
