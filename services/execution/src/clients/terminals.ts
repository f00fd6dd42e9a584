import { SpanKind, SpanStatusCode, context, trace, type Attributes } from '@opentelemetry/api';
import { createInbox, type Msg, type NatsConnection, type Subscription } from 'nats';
import { terminalSubject, type ConnectorOp } from '@mtx/shared/connector/messages';
import type { Logger } from '@mtx/shared/logger';
import { sharedTraceHeaders } from '@mtx/shared/nats';
import { executionMetrics } from '../app/metrics';
import type { TerminalResponse } from '../domain/model';

export type { TerminalResponse } from '../domain/model';

interface PendingRequest {
  resolve: (response: TerminalResponse) => void;
  timer: NodeJS.Timeout | undefined;
  answered: boolean;
  onLate?: (response: TerminalResponse) => void;
  lateUntilMs: number;
}

const lateEntriesMax = 100_000;
const tracer = trace.getTracer('mtx-execution');

function responseOf(message: Msg): TerminalResponse {
  const headers = message.headers;
  const serviceErrorCode = headers?.get('Nats-Service-Error-Code');
  if (serviceErrorCode) return { kind: 'service_error', code: Number(serviceErrorCode), message: headers?.get('Nats-Service-Error') ?? '' };
  // NATS answers a request nobody listens to with an empty 503 status message at once.
  if (message.data.length === 0 && headers?.code === 503) return { kind: 'no_responders' };
  return { kind: 'reply', data: message.data };
}

/**
 * Requests to the terminals over NATS on one multiplexed inbox subscription. Unlike a plain request, an
 * answer that arrives after the deadline is not dropped: it is handed to `onLate` (within a bounded window),
 * so the stored batch learns what happened to a leg that was reported unknown.
 */
export class TerminalClient {
  private readonly inbox: string;
  private subscription: Subscription | undefined;
  private readonly pending = new Map<string, PendingRequest>();
  private sequence = 0;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly nats: NatsConnection,
    private readonly subjectRoot: string,
    private readonly logger: Logger,
  ) {
    this.inbox = createInbox('_INBOX.execution');
  }

  start(): void {
    this.subscription = this.nats.subscribe(`${this.inbox}.*`, {
      callback: (error, message) => {
        if (error) {
          this.logger.error({ err: error }, 'terminal inbox failed');
          return;
        }
        const token = message.subject.slice(this.inbox.length + 1);
        const entry = this.pending.get(token);
        if (!entry) return;
        const response = responseOf(message);
        if (!entry.answered) {
          entry.answered = true;
          if (entry.timer) clearTimeout(entry.timer);
          this.pending.delete(token);
          entry.resolve(response);
          return;
        }
        this.pending.delete(token);
        if (entry.onLate && Date.now() <= entry.lateUntilMs && response.kind === 'reply') {
          try {
            entry.onLate(response);
          } catch (lateError) {
            this.logger.error({ err: lateError }, 'late reply handler failed');
          }
        }
      },
    });
    this.sweeper = setInterval(() => this.sweep(), 10_000);
    this.sweeper.unref();
  }

  private sweep(): void {
    const nowMs = Date.now();
    for (const [token, entry] of this.pending) if (entry.answered && entry.lateUntilMs < nowMs) this.pending.delete(token);
  }

  /**
   * Sends one request to `<root>.<platform>.<account>.<op>` and waits up to `timeoutMs`. Never rejects:
   * every way it can end is a TerminalResponse.
   */
  request(
    platform: string,
    accountId: string,
    op: ConnectorOp,
    payload: Uint8Array,
    options: { timeoutMs: number; lateWindowMs?: number; onLate?: (response: TerminalResponse) => void },
  ): Promise<TerminalResponse> {
    const token = (++this.sequence).toString(36);
    const subject = terminalSubject(this.subjectRoot, platform, accountId, op);
    const startedMs = performance.now();
    return new Promise<TerminalResponse>((settle) => {
      const resolve = (response: TerminalResponse) => {
        executionMetrics.fanoutDuration.record(performance.now() - startedMs, {
          'mtx.platform': platform,
          'mtx.op': op,
          'mtx.outcome': response.kind,
        });
        if (response.kind === 'no_responders' || response.kind === 'timeout')
          executionMetrics.terminalFailures.add(1, { 'mtx.platform': platform, 'mtx.op': op, 'mtx.reason': response.kind });
        // One series per account that went unreachable (bounded by the accounts there are): the dashboard's
        // per-account view of a connector or terminal gone missing.
        if (response.kind === 'no_responders')
          executionMetrics.accountsUnreachable.add(1, { 'mtx.platform': platform, 'mtx.account_id': accountId });
        settle(response);
      };
      const entry: PendingRequest = { resolve, timer: undefined, answered: false, lateUntilMs: 0 };
      if (options.onLate) entry.onLate = options.onLate;
      entry.timer = setTimeout(
        () => {
          entry.answered = true;
          if (options.onLate && options.lateWindowMs) {
            entry.lateUntilMs = Date.now() + options.lateWindowMs;
            if (this.pending.size > lateEntriesMax) this.pending.delete(token);
          } else {
            this.pending.delete(token);
          }
          resolve({ kind: 'timeout' });
        },
        Math.max(1, options.timeoutMs),
      );
      this.pending.set(token, entry);
      try {
        // The active span (the batch's execution.fanout) travels in the headers, one object for the fan-out's
        // messages: the connector's span is its child. With nothing to carry (tracing off) the message goes
        // without headers: an empty header block is still written, sent and parsed by every hop.
        const headers = sharedTraceHeaders();
        const reply = `${this.inbox}.${token}`;
        this.nats.publish(subject, payload, headers ? { reply, headers } : { reply });
      } catch (error) {
        // The connection is closed or the payload too large: nothing left this process.
        clearTimeout(entry.timer);
        this.pending.delete(token);
        this.logger.error({ err: error, subject }, 'terminal request could not be published');
        resolve({ kind: 'no_responders' });
      }
    });
  }

  /**
   * The span of a terminal request that ended badly (a leg unknown or unavailable), child of the active span
   * (the batch's execution.fanout), made when the outcome is known and dated from `startedAt` (a
   * performance.now() reading taken before the request). A request that went well has no span of its own on
   * this side: the connector's span, child of the fan-out span, carries the same account, legs, statuses and
   * retcodes, and the fan-out duration histogram its latency; one span per account per batch here would only
   * repeat it. A request that went badly may have no connector span at all (no responder, timeout), so this
   * one says which account failed and why.
   */
  traceFailedRequest(
    op: ConnectorOp,
    platform: string,
    accountId: string,
    startedAt: number,
    attributes: Attributes,
    reason: string,
  ): void {
    const span = tracer.startSpan(
      `execution.terminal.${op}`,
      {
        kind: SpanKind.CLIENT,
        startTime: startedAt,
        attributes: {
          'messaging.system': 'nats',
          'messaging.destination.name': terminalSubject(this.subjectRoot, platform, accountId, op),
          'mtx.account_id': accountId,
          'mtx.platform': platform,
          ...attributes,
        },
      },
      context.active(),
    );
    span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
    // On the same clock as the start (without an end time, a span dated by hand ends on Date.now()'s milliseconds).
    span.end(performance.now());
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.subscription?.unsubscribe();
    for (const entry of this.pending.values()) if (entry.timer) clearTimeout(entry.timer);
    this.pending.clear();
  }
}
