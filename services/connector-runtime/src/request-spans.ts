import {
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type AttributeValue,
  type Context,
  type Span,
  type SpanStatus,
} from '@opentelemetry/api';
import type { MsgHdrs } from 'nats';
import { extractTraceContext } from '@mtx/shared/nats';
import { connectorOps, type ConnectorOp } from '@mtx/shared/connector/messages';

const tracer = trace.getTracer('mtx-connector');

/** Every connector span's options, one object. */
const spanOptions = { kind: SpanKind.SERVER };

/** Each operation's span name, built once rather than per request. */
const spanNames = Object.fromEntries(connectorOps.map((op) => [op, `connector.${op}`])) as Record<ConnectorOp, string>;

/** The event that carries one account's request on its operation's span. */
const accountEventName = 'mtx.account';

/** What a request records of itself: the account's attributes and, when it went wrong, a status. */
export interface RequestRecord {
  isRecording(): boolean;
  setAttribute(key: string, value: AttributeValue): void;
  setStatus(status: SpanStatus): void;
}

/** One account's request: where it records, the context its calls and log lines carry, and its end. */
export interface AccountRequest {
  record: RequestRecord;
  /** The operation's span in the caller's trace, for the terminal calls and log lines of this request. */
  context: Context;
  /** An exception that failed the request, on the shared span. */
  fail(error: Error): void;
  /** Records the account's event and ends the span once no other account's request holds it. */
  end(): void;
}

interface SharedSpan {
  span: Span;
  context: Context;
  holders: number;
}

/**
 * The connector's spans: one per operation and caller's span, shared by the account messages of one fan-out that
 * this connector serves at the same time, each account's request an event on it (its account, its legs' indexes,
 * statuses and retcodes, or its status) at the moment it was answered. A fan-out sends one message per account,
 * and a 20-account batch reaches each connector as ten messages within a turn or two: a span per message was ten
 * spans of the same parent, the same name and almost the same interval, and each span is work (ids, the processor,
 * the export) that a trace reader gains nothing from; the events keep each account's outcome and its time. The
 * span ends when its last account's request does; a failed account's status marks it failed (the event names
 * which). A message with no trace context is a root of its own, not shared.
 */
export class RequestSpans {
  private readonly open = new Map<string, SharedSpan>();

  begin(op: ConnectorOp, headers: MsgHdrs | undefined, accountId: string): AccountRequest {
    const traceparent = headers?.get('traceparent') ?? '';
    const key = traceparent ? `${op} ${traceparent}` : '';
    let shared = key ? this.open.get(key) : undefined;
    if (!shared) {
      const parent = extractTraceContext(headers);
      const span = tracer.startSpan(spanNames[op], spanOptions, parent);
      shared = { span, context: trace.setSpan(parent, span), holders: 0 };
      if (key) this.open.set(key, shared);
    }
    shared.holders += 1;
    const holder = shared;
    const attributes: Attributes = { 'mtx.account_id': accountId };
    let failure: SpanStatus | undefined;
    const recording = holder.span.isRecording();
    const record: RequestRecord = {
      isRecording: () => recording,
      setAttribute: (name, value) => {
        if (recording) attributes[name] = value;
      },
      setStatus: (status) => {
        failure = status;
      },
    };
    return {
      record,
      context: holder.context,
      fail: (error) => {
        holder.span.recordException(error);
        failure = { code: SpanStatusCode.ERROR, message: 'internal error' };
      },
      end: () => {
        if (recording) holder.span.addEvent(accountEventName, attributes);
        if (failure) holder.span.setStatus(failure);
        holder.holders -= 1;
        if (holder.holders > 0) return;
        if (key && this.open.get(key) === holder) this.open.delete(key);
        holder.span.end();
      },
    };
  }

  /** Spans open now (each held by at least one account's request). */
  get openSpans(): number {
    return this.open.size;
  }
}
