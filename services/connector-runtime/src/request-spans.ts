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

/** What a request records of itself: the account's attributes, the span's, and, when it went wrong, a status. */
export interface RequestRecord {
  isRecording(): boolean;
  /** One of this account's values: a column of the shared span (see RequestSpans). */
  setAttribute(key: string, value: AttributeValue): void;
  /** A value every account of the span shares (the batch id): set on the span itself, once. */
  setSpanAttribute(key: string, value: AttributeValue): void;
  setStatus(status: SpanStatus): void;
}

/** One account's request: where it records, the context its calls and log lines carry, and its end. */
export interface AccountRequest {
  record: RequestRecord;
  /** The operation's span in the caller's trace, for the terminal calls and log lines of this request. */
  context: Context;
  /** An exception that failed the request, on the shared span. */
  fail(error: Error): void;
  /** Adds the account's values to the span's columns and ends the span once no other account's request holds it. */
  end(): void;
}

type Scalar = string | number | boolean;

interface SharedSpan {
  span: Span;
  context: Context;
  holders: number;
  /** performance.now() when the span started: each account's answer is dated from it. */
  startedMs: number;
  /** The accounts answered so far, in order, each with its own values. */
  accounts: AccountValues[];
}

interface AccountValues {
  accountId: string;
  answeredMs: number;
  attributes: Map<string, AttributeValue>;
}

/**
 * The connector's spans: one per operation and caller's span, shared by the account messages of one fan-out that
 * this connector serves at the same time. A fan-out sends one message per account, and a 20-account batch reaches
 * each connector as ten messages within a turn or two: a span per message was ten spans of the same parent, the
 * same name and almost the same interval, and each span is work (ids, the processor, the export) that a trace
 * reader gains nothing from. The accounts are columns of the shared span, in the order they were answered:
 * - `mtx.account_id` and `mtx.answered_ms` (when its terminal answered, in ms from the span's start), one value
 *   per account;
 * - each value an account recorded as a scalar (a close's `mtx.status`, `mtx.matched`), one value per account; an
 *   account that recorded none (it failed first) has the type's empty value there ('', 0, false);
 * - each value recorded as a list (a placement's legs: `mtx.leg_index`, `mtx.status`, `mtx.retcode`), the lists
 *   one after the other, with `mtx.legs` saying how many each account has.
 * Columns rather than an event per account: an event repeats its timestamp, its attributes' keys and their
 * processing for every account. For a span of ten one-leg accounts the events made it 5.3 KB of OTLP JSON and
 * about 49 µs to record and serialise; as columns it is 2.0 KB and about 21 µs, with the same values. The span
 * ends when its last account's request does; a failed account's status marks it failed (the status message names
 * the account's outcome). A message with no trace context is a root of its own, not shared.
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
      shared = { span, context: trace.setSpan(parent, span), holders: 0, startedMs: performance.now(), accounts: [] };
      if (key) this.open.set(key, shared);
    }
    shared.holders += 1;
    const holder = shared;
    const attributes = new Map<string, AttributeValue>();
    let failure: SpanStatus | undefined;
    const recording = holder.span.isRecording();
    const record: RequestRecord = {
      isRecording: () => recording,
      setAttribute: (name, value) => {
        if (recording) attributes.set(name, value);
      },
      setSpanAttribute: (name, value) => {
        if (recording) holder.span.setAttribute(name, value);
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
        if (recording) holder.accounts.push({ accountId, answeredMs: performance.now() - holder.startedMs, attributes });
        if (failure) holder.span.setStatus(failure);
        holder.holders -= 1;
        if (holder.holders > 0) return;
        if (key && this.open.get(key) === holder) this.open.delete(key);
        if (recording) holder.span.setAttributes(accountColumns(holder.accounts));
        holder.span.end();
      },
    };
  }

  /** Spans open now (each held by at least one account's request). */
  get openSpans(): number {
    return this.open.size;
  }
}

/** The accounts' values as the span's columns (see RequestSpans). */
function accountColumns(accounts: readonly AccountValues[]): Attributes {
  const accountIds = new Array<string>(accounts.length);
  const answeredMs = new Array<number>(accounts.length);
  const keys = new Set<string>();
  accounts.forEach((account, index) => {
    accountIds[index] = account.accountId;
    // Hundredths of a millisecond: the clock's useful precision here, and shorter to export.
    answeredMs[index] = Math.round(account.answeredMs * 100) / 100;
    for (const key of account.attributes.keys()) keys.add(key);
  });
  const columns: Attributes = { 'mtx.account_id': accountIds, 'mtx.answered_ms': answeredMs };
  let legs: number[] | undefined;
  for (const key of keys) {
    const sample = accounts.find((account) => account.attributes.has(key))!.attributes.get(key);
    if (Array.isArray(sample)) {
      const values: Scalar[] = [];
      for (const account of accounts) for (const value of (account.attributes.get(key) as Scalar[] | undefined) ?? []) values.push(value);
      columns[key] = values as AttributeValue;
      legs ??= accounts.map((account) => ((account.attributes.get(key) as Scalar[] | undefined) ?? []).length);
    } else {
      const empty = typeof sample === 'string' ? '' : typeof sample === 'number' ? 0 : false;
      columns[key] = accounts.map((account) => (account.attributes.get(key) as Scalar | undefined) ?? empty) as AttributeValue;
    }
  }
  if (legs) columns['mtx.legs'] = legs;
  return columns;
}
