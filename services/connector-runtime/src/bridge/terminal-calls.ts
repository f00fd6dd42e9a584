import { type AnswerError, type AnswerFrame, bridgeBounds, type RequestFrame } from './frames';
import { isCommandName, commands } from './commands';
import { BridgeProtocolError } from './wire';

/**
 * The requests of one terminal connection (docs/terminal-bridge.md, "Requests and answers" and "Bounds"): ids
 * rising from 1, at most `maxInFlight` unanswered requests on the wire, each call with its deadline, answers
 * settled by id in any order.
 *
 * Beyond the in-flight bound a call waits in a bounded queue rather than being refused: an account's request
 * may carry more legs than the bound, and each would be sent a moment later when an answer frees a slot. A
 * queued call that reaches its deadline, or finds the queue full, fails `unavailable`: it was never sent, so
 * the caller may treat it as not carried out. A request whose deadline passes on the wire still counts toward
 * the bound until the EA answers it (the EA still holds it), and that late answer goes to `onLateAnswer` for
 * reconciliation.
 */

/** `unavailable`: never sent. `deadline`: sent, no answer in time. `unknown`: sent, its connection ended. */
export type TerminalCallFailure = 'unavailable' | 'deadline' | 'unknown';

export class TerminalCallError extends Error {
  constructor(
    readonly code: TerminalCallFailure,
    message: string,
  ) {
    super(message);
    this.name = 'TerminalCallError';
  }

  /** Whether the request reached the wire: then a trade may have executed and only reconciliation can tell. */
  get sent(): boolean {
    return this.code !== 'unavailable';
  }
}

/** An EA's answer. `status=error` is a definite outcome: the command did not run. */
export interface TerminalAnswer {
  id: number;
  status: 'ok' | 'error';
  error?: AnswerError;
  message: string;
  fields: Map<string, string>;
}

/** An answer that came after its call's deadline: the request's real outcome, for reconciliation. */
export interface LateAnswer {
  command: string;
  args: Map<string, string>;
  sentAt: number;
  answer: TerminalAnswer;
}

export interface CallTableSettings {
  maxInFlight: number;
  maxQueued: number;
  /** Subtracted from the time left when a trade request's `ttl_ms` is set: the frame's one-way trip. */
  latencyAllowanceMs: number;
}

interface Call {
  command: string;
  args: Map<string, string>;
  deadlineAt: number;
  /** A trade is not started past this instant (its `ttl_ms`); the answer may still be awaited until `deadlineAt`. */
  fenceAt: number;
  resolve(answer: TerminalAnswer): void;
  reject(error: TerminalCallError): void;
  timer?: NodeJS.Timeout;
}

interface Outstanding {
  call: Call;
  sentAt: number;
  late: boolean;
}

export class CallTable {
  private lastId = 0;
  private readonly outstanding = new Map<number, Outstanding>();
  private readonly queue: Call[] = [];
  private closedReason: string | undefined;
  private refusal: string | undefined;
  private drainWaiters: Array<() => void> = [];

  constructor(
    private readonly settings: CallTableSettings,
    private readonly send: (frame: RequestFrame) => void,
    private readonly onLateAnswer: (late: LateAnswer) => void,
  ) {}

  /** Requests on the wire not yet answered, late ones included. */
  get inFlight(): number {
    return this.outstanding.size;
  }

  get queued(): number {
    return this.queue.length;
  }

  /**
   * `deadlineMs`: how long the answer is awaited. `fenceUnixMs` (trades): the instant after which the trade must
   * not start, sent as its `ttl_ms`; by default the deadline. A trade's fence is the requester's deadline while its
   * answer may be awaited longer, so an answer that comes after the requester gave up still reaches it (late).
   */
  call(command: string, args: Map<string, string>, deadlineMs: number, fenceUnixMs?: number): Promise<TerminalAnswer> {
    return new Promise<TerminalAnswer>((resolve, reject) => {
      const refusal = this.closedReason ?? this.refusal;
      if (refusal !== undefined) return reject(new TerminalCallError('unavailable', refusal));
      const deadlineAt = Date.now() + deadlineMs;
      const fenceAt = fenceUnixMs !== undefined && fenceUnixMs > 0 ? Math.min(fenceUnixMs, deadlineAt) : deadlineAt;
      const call: Call = { command, args, deadlineAt, fenceAt, resolve, reject };
      if (this.outstanding.size < this.settings.maxInFlight && this.queue.length === 0) return this.dispatch(call);
      if (this.queue.length >= this.settings.maxQueued)
        return reject(new TerminalCallError('unavailable', `${this.queue.length} calls already wait for this terminal`));
      // A queued trade that reaches its fence can no longer be sent; a read waits until its deadline.
      const sendableUntil = isCommandName(command) && commands[command].trade ? call.fenceAt : deadlineAt;
      call.timer = setTimeout(
        () => {
          this.queue.splice(this.queue.indexOf(call), 1);
          reject(new TerminalCallError('unavailable', `not sent in time: the terminal had ${this.inFlight} requests in flight`));
        },
        Math.max(0, sendableUntil - Date.now()),
      );
      this.queue.push(call);
    });
  }

  /** Settles the call an answer belongs to; an id never sent, or one already answered, is a protocol error. */
  answer(frame: AnswerFrame): void {
    const entry = this.outstanding.get(frame.id);
    if (!entry) {
      if (frame.id <= this.lastId) throw new BridgeProtocolError('duplicate_id', `answer id ${frame.id} was already answered`);
      throw new BridgeProtocolError('unknown_id', `answer id ${frame.id} was never sent`);
    }
    this.outstanding.delete(frame.id);
    const answer: TerminalAnswer = { id: frame.id, status: frame.status, message: frame.message, fields: frame.fields };
    if (frame.error !== undefined) answer.error = frame.error;
    if (entry.late) this.onLateAnswer({ command: entry.call.command, args: entry.call.args, sentAt: entry.sentAt, answer });
    else {
      clearTimeout(entry.call.timer);
      entry.call.resolve(answer);
    }
    this.pump();
    this.notifyDrained();
  }

  /**
   * Ends the table: calls on the wire fail `unknown` (a trade may have executed), queued ones `unavailable`
   * (never sent), and later calls `unavailable` at once.
   */
  close(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const entry of this.outstanding.values()) {
      if (entry.late) continue;
      clearTimeout(entry.call.timer);
      entry.call.reject(new TerminalCallError('unknown', `${reason} with ${entry.call.command} unanswered`));
    }
    this.outstanding.clear();
    for (const call of this.queue.splice(0)) {
      clearTimeout(call.timer);
      call.reject(new TerminalCallError('unavailable', reason));
    }
    this.notifyDrained();
  }

  /** Refuses new calls and resolves once every call already made has settled (answered, failed or past its deadline). */
  drain(reason: string): Promise<void> {
    // New calls are refused; the ones in hand keep their slots.
    this.refusal ??= reason;
    return new Promise<void>((resolve) => {
      this.drainWaiters.push(resolve);
      this.notifyDrained();
    });
  }

  private notifyDrained(): void {
    const waiting = this.queue.length > 0 || [...this.outstanding.values()].some((entry) => !entry.late);
    if (waiting) return;
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }

  private pump(): void {
    while (this.queue.length > 0 && this.outstanding.size < this.settings.maxInFlight) {
      const call = this.queue.shift()!;
      clearTimeout(call.timer);
      this.dispatch(call);
    }
  }

  private dispatch(call: Call): void {
    const leftMs = call.deadlineAt - Date.now();
    const trade = isCommandName(call.command) && commands[call.command].trade;
    const ttlMs = Math.min(call.fenceAt - Date.now() - this.settings.latencyAllowanceMs, bridgeBounds.maxTtlMs);
    if (leftMs <= 0 || (trade && ttlMs < 1)) {
      call.reject(new TerminalCallError('unavailable', `${call.command} had no time left to be sent`));
      return;
    }
    const id = ++this.lastId;
    const frame: RequestFrame = { type: 'req', id, command: call.command, args: call.args };
    if (trade) frame.ttlMs = ttlMs;
    try {
      this.send(frame);
    } catch (error) {
      // A frame that cannot be written (a bad argument name, past the frame bound) never left: nothing to reconcile.
      call.reject(new TerminalCallError('unavailable', `${call.command} not sent: ${(error as Error).message}`));
      return;
    }
    const entry: Outstanding = { call, sentAt: Date.now(), late: false };
    call.timer = setTimeout(() => {
      entry.late = true;
      call.reject(new TerminalCallError('deadline', `${call.command} (id ${id}) not answered within its deadline`));
      this.notifyDrained();
    }, leftMs);
    this.outstanding.set(id, entry);
  }
}
