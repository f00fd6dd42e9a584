import type { Context } from '@opentelemetry/api';
import type { AnswerError } from './bridge/frames';
import { type TerminalAnswer, TerminalCallError } from './bridge/terminal-calls';

/**
 * How the connector's use cases reach an account's terminal (docs/terminal-bridge.md): through the terminal
 * that dialled this replica, never by logging in anywhere. The failures a use case sorts:
 * - TerminalCallError `unavailable`: nothing was sent (no terminal here, its queue full, no time left);
 * - TerminalCallError `deadline` / `unknown`: sent, outcome unknown (reconciliation finds it by client id);
 * - TerminalAnswerError: the EA answered `status=error`, a definite outcome: the command did not run.
 */

/** What a terminal call needs of the listener: a request to the account's terminal, and its server clock. */
export interface TerminalPort {
  call(
    accountId: string,
    command: string,
    args: Iterable<readonly [string, string]>,
    options: { deadlineMs: number; fenceUnixMs?: number },
  ): Promise<TerminalAnswer>;
  isAttached(accountId: string): boolean;
  serverOffsetSeconds(accountId: string): number | undefined;
}

/** The EA answered `status=error`: the command did not run (for a trade command, no trade function was called). */
export class TerminalAnswerError extends Error {
  constructor(
    readonly command: string,
    readonly error: AnswerError | 'internal',
    message: string,
  ) {
    super(`the terminal answered ${command} with error=${error}${message ? `: ${message}` : ''}`);
    this.name = 'TerminalAnswerError';
  }
}

/** One account's terminal, lent to a use case for the length of a request. */
export interface TerminalHandle {
  readonly accountId: string;
  readonly traceContext: Context;
  /**
   * The answer's fields when `status=ok`; TerminalAnswerError when `status=error`. `fenceUnixMs` (trades): not
   * started past it, though the answer is awaited for `deadlineMs`.
   */
  request(
    command: string,
    args: Iterable<readonly [string, string]>,
    deadlineMs: number,
    fenceUnixMs?: number,
  ): Promise<Map<string, string>>;
  /** The trade server's clock now, in server-time seconds (the unit of `from`, `to` and every reported time). */
  serverTimeSeconds(): number;
  /** Server-time seconds → unix milliseconds. */
  utcMsOf(serverSeconds: number): number;
  /** Unix milliseconds → server-time seconds (an expiration as the terminal reads it). */
  serverSecondsOf(unixMs: number): number;
}

export function isNothingSent(error: unknown): error is TerminalCallError {
  return error instanceof TerminalCallError && error.code === 'unavailable';
}

export function isOutcomeUnknown(error: unknown): error is TerminalCallError {
  return error instanceof TerminalCallError && error.code !== 'unavailable';
}

export class TerminalAccess {
  constructor(private readonly terminals: TerminalPort) {}

  isAttached(accountId: string): boolean {
    return this.terminals.isAttached(accountId);
  }

  /**
   * Runs `work` with the account's terminal. Without one on this replica it fails at once with a
   * TerminalCallError `unavailable`: nothing is sent (the request was routed here while the terminal left).
   */
  async withTerminal<T>(accountId: string, work: (terminal: TerminalHandle) => Promise<T>, traceContext: Context): Promise<T> {
    if (!this.terminals.isAttached(accountId))
      throw new TerminalCallError('unavailable', `no terminal of account ${accountId} is attached to this connector; nothing sent`);
    const { terminals } = this;
    const offsetSeconds = () => terminals.serverOffsetSeconds(accountId) ?? 0;
    return work({
      accountId,
      traceContext,
      async request(command, args, deadlineMs, fenceUnixMs) {
        const answer = await terminals.call(accountId, command, args, { deadlineMs, ...(fenceUnixMs ? { fenceUnixMs } : {}) });
        if (answer.status === 'error') throw new TerminalAnswerError(command, answer.error ?? 'internal', answer.message);
        return answer.fields;
      },
      serverTimeSeconds: () => Math.floor(Date.now() / 1000) + offsetSeconds(),
      utcMsOf: (serverSeconds) => (serverSeconds - offsetSeconds()) * 1000,
      serverSecondsOf: (unixMs) => Math.floor(unixMs / 1000) + offsetSeconds(),
    });
  }
}
