import crypto from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { context, propagation, type Context } from '@opentelemetry/api';
import { grpcServiceClient } from '@mtx/shared/proto';
import { isTerminalMethod, type TerminalAnswerFrame, type TerminalCallFrame } from '@mtx/shared/connector/terminal-frames';
import { TerminalStream } from './terminal-stream';
import { grpcServices } from '@mtx/shared/grpc-services';

const metadataSetter = {
  set(metadata: grpc.Metadata, key: string, value: string) {
    metadata.set(key, value);
  },
};

/** A failed call to the trade server, with the gRPC status so callers can tell "refused unread" from "lost". */
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
  /** Session calls go over one long-lived stream per session (a terminal's connection); false: a unary call each. */
  terminalStreams?: boolean;
  /** A session's stream unused this long is closed; the next call opens a new one. */
  terminalIdleMs?: number;
  /** Streams kept open at most; the least recently used idle one is closed past it. */
  terminalsMax?: number;
}

/** gRPC client of the trade servers (broker-sim), keeping raw status codes; every call has a deadline. */
export class BrokerClient {
  private readonly raw: grpc.Client;
  private readonly terminals = new Map<string, TerminalStream>();
  private readonly idleSweep: NodeJS.Timeout | undefined;
  private readonly options: Required<BrokerClientOptions>;

  constructor(address: string, options: BrokerClientOptions = {}) {
    const BrokerSimClient = grpcServiceClient(grpcServices.brokerSim.protoFile, grpcServices.brokerSim.serviceName);
    this.raw = new BrokerSimClient(address, grpc.credentials.createInsecure(), {
      'grpc.keepalive_time_ms': 30_000,
      'grpc.enable_retries': 0,
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 2_000,
    });
    this.options = {
      terminalStreams: options.terminalStreams ?? true,
      terminalIdleMs: options.terminalIdleMs ?? 300_000,
      terminalsMax: options.terminalsMax ?? 10_000,
    };
    if (this.options.terminalStreams) {
      this.idleSweep = setInterval(() => this.closeIdleTerminals(), Math.min(this.options.terminalIdleMs, 30_000));
      this.idleSweep.unref();
    }
  }

  /** Open terminal streams (one per session in use). */
  get terminalCount(): number {
    return this.terminals.size;
  }

  private terminalFor(sessionId: string): TerminalStream {
    let terminal = this.terminals.get(sessionId);
    if (terminal) {
      this.terminals.delete(sessionId);
      this.terminals.set(sessionId, terminal);
      return terminal;
    }
    const open = (this.raw as unknown as { Terminal(): grpc.ClientDuplexStream<TerminalCallFrame, TerminalAnswerFrame> }).Terminal.bind(
      this.raw,
    );
    terminal = new TerminalStream(open, (code, message) => new BrokerCallError(code, message));
    this.terminals.set(sessionId, terminal);
    for (const [oldestId, oldest] of this.terminals) {
      if (this.terminals.size <= this.options.terminalsMax) break;
      if (oldest.callsInHand > 0) continue;
      oldest.close();
      this.terminals.delete(oldestId);
    }
    return terminal;
  }

  private closeIdleTerminals(): void {
    const idleBeforeMs = Date.now() - this.options.terminalIdleMs;
    for (const [sessionId, terminal] of this.terminals) {
      if (terminal.callsInHand > 0 || terminal.lastUsedMs > idleBeforeMs) continue;
      terminal.close();
      this.terminals.delete(sessionId);
    }
  }

  /** The session is gone (logged out, replaced): its stream is closed. */
  closeTerminal(sessionId: string): void {
    this.terminals.get(sessionId)?.close();
    this.terminals.delete(sessionId);
  }

  /**
   * `traceContext` is the request the call serves (BrokerSession.traceContext). The connectors run a synchronous
   * context manager (instrumentation.ts), so after the first await `context.active()` no longer knows it.
   */
  call<TResponse>(method: string, request: unknown, deadlineMs: number, traceContext: Context = context.active()): Promise<TResponse> {
    const sessionId = (request as { session_id?: unknown } | null)?.session_id;
    if (this.options.terminalStreams && isTerminalMethod(method) && typeof sessionId === 'string' && sessionId.length > 0) {
      return this.terminalFor(sessionId).call<TResponse>(method, request, deadlineMs, traceContext);
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
    for (const terminal of this.terminals.values()) terminal.close();
    this.terminals.clear();
    this.raw.close();
  }
}

export interface Credentials {
  server: string;
  login: string;
  password: string;
}

export interface ServerInfo {
  name: string;
  platform: string;
  broker: string;
  symbol_suffix: string;
  margin_mode: string;
  symbols: string[];
}

export interface BrokerSession {
  sessionId: string;
  server: ServerInfo;
  marginMode: string;
  /** The trace of the request this handle was given to (withSession): every call made with it belongs there. */
  traceContext?: Context;
}

/** Why a terminal could not log in; the runtime reports such accounts as unavailable, nothing sent. */
export class TerminalLoginError extends Error {
  constructor(
    readonly reason: 'invalid_credentials' | 'unknown_server' | 'no_connection' | 'wrong_platform',
    message: string,
  ) {
    super(message);
    this.name = 'TerminalLoginError';
  }
}

interface CachedSession {
  fingerprint: string;
  session?: BrokerSession;
  pending?: Promise<BrokerSession>;
}

/**
 * Sessions to trade servers, one per account, opened lazily and kept in a bounded LRU. The cache is keyed by
 * account id and checked against a fingerprint of the credentials, so a changed password opens a new session.
 * Concurrent first uses of an account share one login.
 */
export class SessionPool {
  private readonly sessions = new Map<string, CachedSession>();

  constructor(
    private readonly client: BrokerClient,
    private readonly platform: 'mt4' | 'mt5',
    private readonly options: { sessionsMax: number; loginDeadlineMs: number },
  ) {}

  private fingerprint(credentials: Credentials): string {
    return crypto.createHash('sha256').update(`${credentials.server}\n${credentials.login}\n${credentials.password}`).digest('base64');
  }

  get size(): number {
    return this.sessions.size;
  }

  /** `traceContext`: the request that may have to log in, so the login shows in its trace. */
  async get(accountId: string, credentials: Credentials, traceContext?: Context): Promise<BrokerSession> {
    const fingerprint = this.fingerprint(credentials);
    const cached = this.sessions.get(accountId);
    if (cached && cached.fingerprint === fingerprint) {
      // Refresh the LRU position.
      this.sessions.delete(accountId);
      this.sessions.set(accountId, cached);
      if (cached.session) return cached.session;
      if (cached.pending) return cached.pending;
    }
    const entry: CachedSession = { fingerprint };
    entry.pending = this.login(credentials, traceContext).then(
      (session) => {
        entry.session = session;
        entry.pending = undefined;
        return session;
      },
      (error: unknown) => {
        if (this.sessions.get(accountId) === entry) this.sessions.delete(accountId);
        throw error;
      },
    );
    this.sessions.delete(accountId);
    this.sessions.set(accountId, entry);
    while (this.sessions.size > this.options.sessionsMax) {
      const oldest = this.sessions.keys().next().value;
      if (oldest === undefined) break;
      this.sessions.delete(oldest);
    }
    return entry.pending;
  }

  invalidate(accountId: string, session?: BrokerSession): void {
    const cached = this.sessions.get(accountId);
    if (cached && (!session || cached.session === session)) {
      this.sessions.delete(accountId);
      if (cached.session) this.client.closeTerminal(cached.session.sessionId);
    }
  }

  private async login(credentials: Credentials, traceContext: Context | undefined): Promise<BrokerSession> {
    let response: { session_id: string; server: ServerInfo; margin_mode: string };
    try {
      response = await this.client.call('Login', credentials, this.options.loginDeadlineMs, traceContext);
    } catch (error) {
      if (error instanceof BrokerCallError) {
        if (error.code === grpc.status.UNAUTHENTICATED)
          throw new TerminalLoginError(
            'invalid_credentials',
            `login ${credentials.login} on ${credentials.server} was refused: invalid account or password`,
          );
        if (error.code === grpc.status.NOT_FOUND)
          throw new TerminalLoginError('unknown_server', `no trade server named ${credentials.server}`);
        throw new TerminalLoginError('no_connection', `no connection to trade server ${credentials.server}: ${error.message}`);
      }
      throw error;
    }
    if (response.server.platform !== this.platform) {
      throw new TerminalLoginError(
        'wrong_platform',
        `${credentials.server} is an ${response.server.platform.toUpperCase()} server, not ${this.platform.toUpperCase()}`,
      );
    }
    return { sessionId: response.session_id, server: response.server, marginMode: response.margin_mode };
  }

  /**
   * Runs `work` with the account's session. A call the server refused as "session lost" was discarded
   * unread, so it is run once more on a fresh login; any other failure is the caller's to judge. `work` gets
   * a handle of its own carrying `traceContext`, so the calls it makes join the request's trace.
   */
  async withSession<T>(
    accountId: string,
    credentials: Credentials,
    work: (session: BrokerSession) => Promise<T>,
    traceContext?: Context,
  ): Promise<T> {
    const session = await this.get(accountId, credentials, traceContext);
    try {
      return await work({ ...session, traceContext });
    } catch (error) {
      if (!(error instanceof BrokerCallError) || !error.sessionLost) throw error;
      this.invalidate(accountId, session);
      return work({ ...(await this.get(accountId, credentials, traceContext)), traceContext });
    }
  }
}
