import type { Logger } from '@mtx/shared/logger';
import type { TerminalAccount } from './terminal-account';
import type { TerminalBehaviour } from './terminal-behaviour';

/** The settings of one emulated terminal's EA (terminal-link.ts). */
export interface TerminalLinkOptions {
  /** `host:port`, tried in turn. */
  addresses: string[];
  token: string;
  terminal: TerminalAccount;
  logger: Logger;
  eaVersion?: string;
  /** The protocol versions the EA offers in `hello` (default 2,1; [1] emulates an EA that predates `send_batch`). */
  versions?: number[];
  /** `TerminalInfoInteger(TERMINAL_BUILD)`; by default a current MT5 or MT4 build. */
  build?: number;
  /** TLS for the connection (required for a non-loopback address): the CA to trust and/or the certificate's SHA-256 fingerprint. */
  tls?: { ca?: string | Buffer; fingerprint256?: string };
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  helloWaitMs?: number;
  connectTimeoutMs?: number;
  /** The control API's switch for this account's terminal (terminal-behaviour.ts); `normal` without one. */
  behaviour?: TerminalBehaviour;
}

export interface TerminalLinkStats {
  dials: number;
  welcomes: number;
  refusals: string[];
  connected: boolean;
  /** The connector address of the connection admitted now, if any. */
  connector?: string;
}
