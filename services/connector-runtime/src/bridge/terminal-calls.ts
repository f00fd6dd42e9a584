import { type AnswerError, type AnswerFrame, bridgeBounds, type RequestFrame } from './frames';
import { isCommandName, commands } from './commands';
import { type BatchItemAnswer, maxBatchItems, sendBatchCommand, sendBatchRequest, splitBatchAnswer } from './send-batch';
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
 *
 * Two choices keep a busy terminal's calls cheap. A backlog is sent in bunches: once calls wait, the wire is
 * refilled when half the bound has been answered, not after every answer, so several requests leave in one
 * write (an EA carries them out one by one, so the ones it still holds keep it busy meanwhile). And one timer per
 * table, armed for the earliest deadline, stands for every call's: a busy terminal's calls do not each arm and
 * clear a timer of their own.
 *
 * With an EA that speaks v2, the `send` calls made in one event-loop turn (an account's legs) leave as one
 * `send_batch` request, which holds one in-flight slot and is answered once, and each call is settled with its own
 * item of the answer. A lone `send` still leaves as a `send`.
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
  /** While queued: the instant past which it can no longer be sent (a trade's fence, a read's deadline). */
  sendableUntil: number;
  resolve(answer: TerminalAnswer): void;
  reject(error: TerminalCallError): void;
}

interface Outstanding {
  /** One call, or a `send_batch`'s items in order. */
  calls: Call[];
  batch: boolean;
  /** The earliest deadline of its calls: they share one answer. */
  deadlineAt: number;
  sentAt: number;
  late: boolean;
}

export class CallTable {
  private lastId = 0;
  private readonly outstanding = new Map<number, Outstanding>();
  private queue: Call[] = [];
  private closedReason: string | undefined;
  private refusal: string | undefined;
  private drainWaiters: Array<() => void> = [];
  /** The one deadline timer, and the instant it is armed for. */
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  /** A backlog is sent once the wire holds at most this many unanswered requests. */
  private readonly refillAt: number;
  /** `send` calls of this turn that will leave as one `send_batch` (it holds one in-flight slot meanwhile). */
  private gathering: Call[] | undefined;
  private gatherScheduled = false;
  /** Whether the EA speaks `send_batch` (protocol v2), set once the version is agreed. */
  batchSends = false;

  constructor(
    private readonly settings: CallTableSettings,
    private readonly send: (frame: RequestFrame) => void,
    private readonly onLateAnswer: (late: LateAnswer) => void,
    /** Writes what was sent at once, for a request sent after the turn's other frames have left. */
    private readonly flush: () => void = () => {},
  ) {
    this.refillAt = Math.max(1, Math.floor(settings.maxInFlight / 2));
  }

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
      // A queued trade that reaches its fence can no longer be sent; a read waits until its deadline.
      const sendableUntil = isTrade(command) ? fenceAt : deadlineAt;
      const call: Call = { command, args, deadlineAt, fenceAt, sendableUntil, resolve, reject };
      if (this.queue.length === 0 && this.joinGathering(call)) return;
      if (this.occupied < this.settings.maxInFlight && this.queue.length === 0) return this.dispatch(call);
      if (this.queue.length >= this.settings.maxQueued)
        return reject(new TerminalCallError('unavailable', `${this.queue.length} calls already wait for this terminal`));
      this.queue.push(call);
      this.armFor(sendableUntil);
    });
  }

  /** Settles the call an answer belongs to; an id never sent, or one already answered, is a protocol error. */
  answer(frame: AnswerFrame): void {
    const entry = this.outstanding.get(frame.id);
    if (!entry) {
      if (frame.id <= this.lastId) throw new BridgeProtocolError('duplicate_id', `answer id ${frame.id} was already answered`);
      throw new BridgeProtocolError('unknown_id', `answer id ${frame.id} was never sent`);
    }
    // A malformed batch answer throws here, with its calls still on the wire: the connection's end fails them.
    const items = entry.batch ? splitBatchAnswer(frame, entry.calls.length) : undefined;
    this.outstanding.delete(frame.id);
    if (items) this.settleBatch(entry, frame.id, items);
    else {
      const answer: TerminalAnswer = { id: frame.id, status: frame.status, message: frame.message, fields: frame.fields };
      if (frame.error !== undefined) answer.error = frame.error;
      this.settle(entry, entry.calls[0]!, answer);
    }
    if (this.queue.length > 0 && this.occupied <= this.refillAt) this.pump();
    this.notifyDrained();
  }

  /**
   * Ends the table: calls on the wire fail `unknown` (a trade may have executed), queued ones `unavailable`
   * (never sent), and later calls `unavailable` at once.
   */
  close(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    this.disarm();
    for (const entry of this.outstanding.values()) {
      if (entry.late) continue;
      for (const call of entry.calls) call.reject(new TerminalCallError('unknown', `${reason} with ${call.command} unanswered`));
    }
    this.outstanding.clear();
    const gathered = this.gathering ?? [];
    this.gathering = undefined;
    for (const call of [...gathered, ...this.queue.splice(0)]) call.reject(new TerminalCallError('unavailable', reason));
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
    if (this.drainWaiters.length === 0 || this.queue.length > 0 || this.gathering) return;
    for (const entry of this.outstanding.values()) if (!entry.late) return;
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }

  /** Requests on the wire, and the `send_batch` being gathered: each holds a slot. */
  private get occupied(): number {
    return this.outstanding.size + (this.gathering ? 1 : 0);
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const call = this.queue[0]!;
      if (!this.joinGathering(call)) {
        if (this.occupied >= this.settings.maxInFlight) return;
        this.dispatch(call);
      }
      this.queue.shift();
    }
  }

  /** Adds a `send` to this turn's `send_batch` when one is being gathered and has room. */
  private joinGathering(call: Call): boolean {
    if (!this.gathering || call.command !== 'send' || this.gathering.length >= maxBatchItems) return false;
    this.gathering.push(call);
    return true;
  }

  private dispatch(call: Call): void {
    if (!this.batchSends || call.command !== 'send') {
      this.sendOne(call);
      return;
    }
    // A full batch leaves now, and the next one is gathered in a slot of its own.
    if (this.gathering) this.writeGathered();
    this.gathering = [call];
    if (this.gatherScheduled) return;
    this.gatherScheduled = true;
    setImmediate(() => this.endGathering());
  }

  /** The turn's end: what was gathered leaves, and the wire is filled again from the queue. */
  private endGathering(): void {
    this.gatherScheduled = false;
    this.writeGathered();
    this.flush();
    if (this.queue.length > 0) this.pump();
    this.notifyDrained();
  }

  /** The gathered `send` calls as one `send_batch` (a lone one as a `send`). */
  private writeGathered(): void {
    const gathered = this.gathering;
    this.gathering = undefined;
    if (!gathered || this.closedReason !== undefined) return;
    const now = Date.now();
    let ttlMs: number = bridgeBounds.maxTtlMs;
    let deadlineAt = Number.POSITIVE_INFINITY;
    const calls: Call[] = [];
    for (const call of gathered) {
      const callTtlMs = this.timeLeftMs(call, now);
      if (callTtlMs === undefined) continue;
      calls.push(call);
      ttlMs = Math.min(ttlMs, callTtlMs);
      deadlineAt = Math.min(deadlineAt, call.deadlineAt);
    }
    if (calls.length === 1) this.sendOne(calls[0]!);
    else if (calls.length > 1) {
      const id = ++this.lastId;
      this.put(
        sendBatchRequest(
          id,
          ttlMs,
          calls.map((call) => call.args),
        ),
        calls,
        deadlineAt,
        now,
      );
    }
  }

  private settle(entry: Outstanding, call: Call, answer: TerminalAnswer): void {
    if (entry.late) this.onLateAnswer({ command: call.command, args: call.args, sentAt: entry.sentAt, answer });
    else call.resolve(answer);
  }

  private settleBatch(entry: Outstanding, id: number, items: BatchItemAnswer[]): void {
    for (let index = 0; index < items.length; index += 1) {
      const item = items[index]!;
      const answer: TerminalAnswer = { id, status: item.status, message: item.message, fields: item.fields };
      if (item.error !== undefined) answer.error = item.error;
      this.settle(entry, entry.calls[index]!, answer);
    }
  }

  private sendOne(call: Call): void {
    const now = Date.now();
    const ttlMs = this.timeLeftMs(call, now);
    if (ttlMs === undefined) return;
    const frame: RequestFrame = { type: 'req', id: ++this.lastId, command: call.command, args: call.args };
    if (isTrade(call.command)) frame.ttlMs = ttlMs;
    this.put(frame, [call], call.deadlineAt, now);
  }

  /**
   * The `ttl_ms` a call may still carry (a trade's from its fence, less the latency allowance, at most the bound), or
   * undefined when it has no time left to be sent, the call then failed `unavailable`.
   */
  private timeLeftMs(call: Call, now: number): number | undefined {
    const ttlMs = Math.min(call.fenceAt - now - this.settings.latencyAllowanceMs, bridgeBounds.maxTtlMs);
    if (call.deadlineAt > now && (ttlMs >= 1 || !isTrade(call.command))) return ttlMs;
    call.reject(new TerminalCallError('unavailable', `${call.command} had no time left to be sent`));
    return undefined;
  }

  /** Writes `frame` for `calls` (one, or a `send_batch`'s items) and holds them until its answer or `deadlineAt`. */
  private put(frame: RequestFrame, calls: Call[], deadlineAt: number, now: number): void {
    try {
      this.send(frame);
    } catch (error) {
      // A frame that cannot be written (a bad argument name, past the frame bound) never left: nothing to reconcile.
      for (const call of calls) call.reject(new TerminalCallError('unavailable', `${call.command} not sent: ${(error as Error).message}`));
      return;
    }
    this.outstanding.set(frame.id, {
      calls,
      batch: frame.command === sendBatchCommand,
      deadlineAt,
      sentAt: now,
      late: false,
    });
    this.armFor(deadlineAt);
  }

  /** Arms the table's timer for `at` unless it already fires earlier. */
  private armFor(at: number): void {
    if (at >= this.timerAt || this.closedReason !== undefined) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.sweep(), Math.max(0, at - Date.now()));
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  /** Fails what has reached its deadline (on the wire) or can no longer be sent (queued); re-arms for the next. */
  private sweep(): void {
    this.disarm();
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    let expired = false;
    for (const [id, entry] of this.outstanding) {
      if (entry.late) continue;
      if (entry.deadlineAt > now) {
        next = Math.min(next, entry.deadlineAt);
        continue;
      }
      // Still held by the EA: it keeps its slot until answered, and its answer goes to reconciliation.
      entry.late = true;
      expired = true;
      for (const call of entry.calls)
        call.reject(new TerminalCallError('deadline', `${call.command} (id ${id}) not answered within its deadline`));
    }
    if (this.queue.some((call) => call.sendableUntil <= now)) {
      const waiting: Call[] = [];
      for (const call of this.queue) {
        if (call.sendableUntil > now) waiting.push(call);
        else call.reject(new TerminalCallError('unavailable', `not sent in time: the terminal had ${this.inFlight} requests in flight`));
      }
      this.queue = waiting;
      expired = true;
    }
    for (const call of this.queue) next = Math.min(next, call.sendableUntil);
    if (next !== Number.POSITIVE_INFINITY) this.armFor(next);
    if (expired) this.notifyDrained();
  }
}

function isTrade(command: string): boolean {
  return isCommandName(command) && commands[command].trade;
}
