import { type Broker, BrokerError } from '../app/broker';
import type { TradeCall } from '../app/broker-types';
import type { AccountState } from '../domain/engine';
import { randomUUID } from 'node:crypto';

/** The account a terminal is logged in to: its server, login and password on broker-sim. */
export interface TerminalLogin {
  server: string;
  login: string;
  password: string;
}

/**
 * A terminal's session with its trade server. A terminal stays logged in: when the server has dropped the
 * session (idle, or a disconnect fault) the next call logs in again once, as a terminal reconnects by itself.
 */
export class TerminalAccount {
  private sessionId: string | undefined;
  private requestNumber = 0;

  constructor(
    readonly broker: Broker,
    readonly credentials: TerminalLogin,
  ) {}

  async state(): Promise<AccountState> {
    if (this.sessionId) {
      try {
        return this.broker.accountOf(this.sessionId);
      } catch (error) {
        if (!(error instanceof BrokerError) || error.kind !== 'unauthenticated') throw error;
      }
    }
    const { sessionId, account } = await this.broker.login(this.credentials.server, this.credentials.login, this.credentials.password);
    this.sessionId = sessionId;
    return account;
  }

  /**
   * A trade call for one trade function. The terminal has no client id of its own: each call gets a fresh
   * one, which also carries the magic and comment sent, so that history deals can show them (`sentWith`).
   */
  async tradeCall(comment: string, magic = 0): Promise<TradeCall> {
    await this.state();
    return { sessionId: this.sessionId!, clientId: `ea:${randomUUID()}:${magic}:${comment}`, deadlineUnixMs: 0 };
  }

  /** MqlTradeResult.request_id: the terminal numbers its trade requests. */
  nextRequestId(): number {
    this.requestNumber += 1;
    return this.requestNumber;
  }
}

/** The magic and comment a trade call sent, from the client id `tradeCall` gave it; 0 and empty for any other. */
export function sentWith(clientId: string): { magic: number; comment: string } {
  const match = /^ea:[0-9a-f-]{36}:(\d+):/.exec(clientId);
  if (!match) return { magic: 0, comment: '' };
  return { magic: Number(match[1]), comment: clientId.slice(match[0].length) };
}
