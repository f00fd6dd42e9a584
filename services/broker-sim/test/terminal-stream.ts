import * as grpc from '@grpc/grpc-js';
import { propagation, type Context } from '@opentelemetry/api';
import {
  terminalCallFields,
  type TerminalAnswerFrame,
  type TerminalCallFrame,
  type TerminalMethod,
} from '@mtx/shared/connector/terminal-frames';
import { TurnBatcher } from '@mtx/shared/turn-batcher';

/** The `Terminal` stream as this side sees it: frames travel in messages of many. */
export type TerminalDuplex = grpc.ClientDuplexStream<{ calls: TerminalCallFrame[] }, { answers: TerminalAnswerFrame[] }>;

/** Calls made in one turn share a message (a connector sends the legs of many accounts from one read). */
const callsPerMessageMax = 256;

interface PendingCall {
  field: string;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

/** What a failed terminal call is turned into (the broker client's error type, so callers see no difference). */
export type CallErrorFactory = (code: grpc.status, message: string) => Error;

/**
 * A long-lived `Terminal` stream to a trade server on which every session call is a frame, answered by call id
 * (the frame's request names its session, so one stream carries many). A unary call per trade costs an HTTP/2 stream with its headers and trailers each
 * way; a frame costs one message. Every call keeps its own deadline (a timer here, a cancel frame to the server),
 * and a stream that breaks fails the calls in hand with UNAVAILABLE: sent, outcome unknown, as a unary call cut
 * off mid-way. The next call opens a new stream. The calls made in one event-loop turn leave in one message.
 */
export class TerminalStream {
  /** The open stream and the batcher of the calls it is to carry. */
  private current: { stream: TerminalDuplex; outgoing: TurnBatcher<TerminalCallFrame> } | undefined;
  private readonly pending = new Map<number, PendingCall>();
  private nextCallId = 1;
  lastUsedMs = Date.now();

  constructor(
    private readonly open: () => TerminalDuplex,
    private readonly callError: CallErrorFactory,
  ) {}

  get callsInHand(): number {
    return this.pending.size;
  }

  get isOpen(): boolean {
    return this.current !== undefined;
  }

  call<TResponse>(method: TerminalMethod, request: unknown, deadlineMs: number, traceContext: Context): Promise<TResponse> {
    this.lastUsedMs = Date.now();
    const current = this.connected();
    const callId = this.nextCallId++;
    const field = terminalCallFields[method];
    const carrier: { traceparent?: string; tracestate?: string } = {};
    propagation.inject(traceContext, carrier);
    const deadlineUnixMs = Date.now() + Math.max(1, deadlineMs);
    return new Promise<TResponse>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          if (!this.pending.delete(callId)) return;
          reject(this.callError(grpc.status.DEADLINE_EXCEEDED, `no answer from the trade server within ${deadlineMs} ms`));
          if (this.current === current)
            current.outgoing.push({ call_id: callId, deadline_unix_ms: 0, traceparent: '', tracestate: '', cancel: true });
        },
        Math.max(1, deadlineMs),
      );
      this.pending.set(callId, { field, resolve: resolve as (value: unknown) => void, reject, timer });
      current.outgoing.push({
        call_id: callId,
        deadline_unix_ms: deadlineUnixMs,
        traceparent: carrier.traceparent ?? '',
        tracestate: carrier.tracestate ?? '',
        cancel: false,
        [field]: request,
      });
    });
  }

  /** The open stream, opening one first when there is none. */
  private connected(): NonNullable<TerminalStream['current']> {
    if (this.current) return this.current;
    const stream = this.open();
    const current = {
      stream,
      outgoing: new TurnBatcher<TerminalCallFrame>((calls) => {
        if (this.current === current && !stream.writableEnded) stream.write({ calls });
      }, callsPerMessageMax),
    };
    this.current = current;
    stream.on('data', (message: { answers?: TerminalAnswerFrame[] }) => {
      for (const answer of message.answers ?? []) this.settle(answer);
    });
    const broken = (reason: string) => {
      if (this.current !== current) return;
      this.current = undefined;
      current.outgoing.discard();
      for (const [callId, call] of this.pending) {
        this.pending.delete(callId);
        clearTimeout(call.timer);
        call.reject(
          this.callError(grpc.status.UNAVAILABLE, `the connection to the trade server was lost (${reason}); the outcome is unknown`),
        );
      }
    };
    stream.on('error', (error: grpc.ServiceError) => broken(error.details || error.message));
    stream.on('end', () => broken('closed by the trade server'));
    stream.on('close', () => broken('closed'));
    return current;
  }

  private settle(answer: TerminalAnswerFrame): void {
    const callId = Number(answer.call_id);
    const call = this.pending.get(callId);
    if (!call) return;
    this.pending.delete(callId);
    clearTimeout(call.timer);
    if (answer.code === grpc.status.OK) call.resolve(answer[call.field]);
    else call.reject(this.callError(answer.code, answer.message));
  }

  /** Ends the stream; calls in hand fail as lost. The next call opens a new one. */
  close(): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    current.outgoing.discard();
    for (const [callId, call] of this.pending) {
      this.pending.delete(callId);
      clearTimeout(call.timer);
      call.reject(this.callError(grpc.status.UNAVAILABLE, 'the terminal stream was closed; the outcome is unknown'));
    }
    current.stream.end();
    current.stream.cancel();
  }
}
