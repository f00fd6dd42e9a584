/**
 * A test client of broker-sim's gRPC surface (unary calls and the multiplexed `Terminal` stream), kept here to
 * test that surface; the connectors reach terminals over the terminal bridge instead (docs/terminal-bridge.md).
 */
import * as grpc from '@grpc/grpc-js';
import { context, propagation, type Context } from '@opentelemetry/api';
import { clientChannelOptions } from '@mtx/shared/grpc';
import { grpcServiceClient } from '@mtx/shared/proto';
import { isTerminalMethod } from '@mtx/shared/connector/terminal-frames';
import { TerminalStream, type TerminalDuplex } from './terminal-stream';
import { grpcServices } from '@mtx/shared/grpc-services';

const metadataSetter = {
  set(metadata: grpc.Metadata, key: string, value: string) {
    metadata.set(key, value);
  },
};

/** A failed call to broker-sim, with the gRPC status so callers can tell "refused unread" from "lost". */
export class BrokerCallError extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
    this.name = 'BrokerCallError';
  }
  /** The server discarded the call unread (its session was gone): safe to log in again and resend. */
  get sessionLost(): boolean {
    return this.code === grpc.status.UNAUTHENTICATED;
  }
}

export interface BrokerClientOptions {
  /** Session calls go as frames over long-lived `Terminal` streams; false: a unary call each. */
  terminalStreams?: boolean;
  /** How many streams the sessions are spread over (a session always uses the same one, so its calls stay in order). */
  terminalStreamCount?: number;
  /** A stream unused this long is closed; the next call opens a new one. */
  terminalIdleMs?: number;
}

/**
 * Spreads sessions over the streams: the same session always lands on the same stream. Session ids are the
 * server's, so they are hashed rather than trusted to be random.
 */
function laneOf(sessionId: string, laneCount: number): number {
  if (laneCount === 1) return 0;
  let hash = 0x811c9dc5;
  for (let index = 0; index < sessionId.length; index += 1) hash = Math.imul(hash ^ sessionId.charCodeAt(index), 0x01000193);
  return (hash >>> 0) % laneCount;
}

/**
 * gRPC client of the trade servers (broker-sim), keeping raw status codes; every call has a deadline.
 *
 * Session calls share a few multiplexed `Terminal` streams per trade server address (as a manager or gateway API
 * carries many accounts over one connection), not a stream per session: a stream per session costs an HTTP/2
 * stream, its flow-control state and grpc-js's call bookkeeping for every account in use, which is what grew with
 * the number of accounts (bench:scale). Every frame carries its session id, so nothing is lost by sharing; a broken
 * stream fails only the calls it had in hand, as a broken connection would fail every per-session stream on it.
 */
export class BrokerClient {
  private readonly raw: grpc.Client;
  private readonly lanes: TerminalStream[] = [];
  private readonly idleSweep: NodeJS.Timeout | undefined;
  private readonly options: Required<BrokerClientOptions>;

  constructor(address: string, options: BrokerClientOptions = {}) {
    const BrokerSimClient = grpcServiceClient(grpcServices.brokerSim.protoFile, grpcServices.brokerSim.serviceName);
    this.raw = new BrokerSimClient(address, grpc.credentials.createInsecure(), clientChannelOptions);
    this.options = {
      terminalStreams: options.terminalStreams ?? true,
      terminalStreamCount: Math.max(1, options.terminalStreamCount ?? 1),
      terminalIdleMs: options.terminalIdleMs ?? 300_000,
    };
    if (this.options.terminalStreams) {
      const open = (this.raw as unknown as { Terminal(): TerminalDuplex }).Terminal.bind(this.raw);
      for (let lane = 0; lane < this.options.terminalStreamCount; lane += 1)
        this.lanes.push(new TerminalStream(open, (code, message) => new BrokerCallError(code, message)));
      this.idleSweep = setInterval(() => this.closeIdleTerminals(), Math.min(this.options.terminalIdleMs, 30_000));
      this.idleSweep.unref();
    }
  }

  /** Terminal streams open now. */
  get terminalCount(): number {
    return this.lanes.filter((lane) => lane.isOpen).length;
  }

  private closeIdleTerminals(): void {
    const idleBeforeMs = Date.now() - this.options.terminalIdleMs;
    for (const lane of this.lanes) if (lane.isOpen && lane.callsInHand === 0 && lane.lastUsedMs <= idleBeforeMs) lane.close();
  }

  /**
   * `traceContext` is the request the call serves (BrokerSession.traceContext). The connectors run a synchronous
   * context manager (instrumentation.ts), so after the first await `context.active()` no longer knows it.
   */
  call<TResponse>(method: string, request: unknown, deadlineMs: number, traceContext: Context = context.active()): Promise<TResponse> {
    const sessionId = (request as { session_id?: unknown } | null)?.session_id;
    if (this.options.terminalStreams && isTerminalMethod(method) && typeof sessionId === 'string' && sessionId.length > 0) {
      return this.lanes[laneOf(sessionId, this.lanes.length)]!.call<TResponse>(method, request, deadlineMs, traceContext);
    }
    const fn = (this.raw as unknown as Record<string, (...parameters: unknown[]) => unknown>)[method];
    if (typeof fn !== 'function') return Promise.reject(new Error(`broker-sim has no method ${method}`));
    const deadline = new Date(Date.now() + Math.max(1, deadlineMs));
    const metadata = new grpc.Metadata();
    // The connectors make no client span per trade server call (see instrumentation.ts): the request's span
    // (connector.place, connector.close, …) travels in the metadata, so broker-sim's server span is its child.
    propagation.inject(traceContext, metadata, metadataSetter);
    return new Promise<TResponse>((resolve, reject) => {
      fn.call(this.raw, request, metadata, { deadline }, (error: grpc.ServiceError | null, response: TResponse) => {
        if (error) reject(new BrokerCallError(error.code, error.details || error.message));
        else resolve(response);
      });
    });
  }

  close(): void {
    clearInterval(this.idleSweep);
    for (const lane of this.lanes) lane.close();
    this.raw.close();
  }
}
