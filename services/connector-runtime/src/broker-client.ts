import crypto from 'node:crypto';
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
  lastUsedMs: number;
}

export interface SessionPoolOptions {
  sessionsMax: number;
  loginDeadlineMs: number;
  /** A session unused this long is logged out by a sweep (default: never). */
  sessionIdleMs?: number;
  /** Deadline of the logout sent for an idle session. */
  readDeadlineMs?: number;
}

/**
 * Sessions to trade servers, one per account, opened lazily; one left idle past the bound is logged out, so a
 * replica holds sessions only for the accounts that trade, and past `sessionsMax` the least recently used go.
 * The cache is keyed by account id and checked against a fingerprint of the credentials, so a changed password
 * opens a new session. Concurrent first uses of an account share one login.
 *
 * A use only stamps its entry. Keeping the map in use order instead (delete and set on every use) costs V8 a
 * rehash of the whole map when the same few accounts cycle through a large one: 10–20 µs a use at 10,000 sessions
 * (Node 20 and 24, measured). The sweeps scan instead, every so often or once per hundredth of the bound.
 */
export class SessionPool {
  private readonly sessions = new Map<string, CachedSession>();
  private readonly fingerprints = new WeakMap<Credentials, string>();
  private readonly idleSweep: NodeJS.Timeout | undefined;
  /** Sessions logged out for idleness since the start (for the connector's stats and tests). */
  loggedOutIdle = 0;

  constructor(
    private readonly client: BrokerClient,
    private readonly platform: 'mt4' | 'mt5',
    private readonly options: SessionPoolOptions,
  ) {
    const idleMs = options.sessionIdleMs;
    if (idleMs !== undefined) {
      this.idleSweep = setInterval(() => this.logOutIdle(idleMs), Math.min(idleMs, 30_000));
      this.idleSweep.unref();
    }
  }

  /** A logout is a courtesy to the server (it frees the seat there); if it fails, the server's own expiry does the same. */
  private logOutIdle(idleMs: number): void {
    const idleBeforeMs = Date.now() - idleMs;
    for (const [accountId, cached] of this.sessions) {
      if (cached.lastUsedMs > idleBeforeMs || !cached.session) continue;
      this.sessions.delete(accountId);
      this.loggedOutIdle += 1;
      this.logOut(cached.session);
    }
  }

  /** Past the bound: the least recently used go, a hundredth of the bound at once so the scan is rare. */
  private evictLeastRecentlyUsed(): void {
    const excess = this.sessions.size - this.options.sessionsMax;
    if (excess <= 0) return;
    const evicted = [...this.sessions]
      .filter(([, cached]) => cached.session)
      .sort(([, left], [, right]) => left.lastUsedMs - right.lastUsedMs)
      .slice(0, excess + Math.floor(this.options.sessionsMax / 100));
    for (const [accountId, cached] of evicted) {
      this.sessions.delete(accountId);
      this.logOut(cached.session!);
    }
  }

  private logOut(session: BrokerSession): void {
    this.client.call('Logout', { session_id: session.sessionId }, this.options.readDeadlineMs ?? 5_000).catch(() => undefined);
  }

  close(): void {
    clearInterval(this.idleSweep);
  }

  /**
   * A digest, so the cache never holds a password. Remembered per credentials object: one account message's
   * legs share it, so a message hashes once, not once per leg.
   */
  private fingerprint(credentials: Credentials): string {
    let fingerprint = this.fingerprints.get(credentials);
    if (fingerprint === undefined) {
      fingerprint = crypto.hash('sha256', `${credentials.server}\n${credentials.login}\n${credentials.password}`, 'base64');
      this.fingerprints.set(credentials, fingerprint);
    }
    return fingerprint;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** `traceContext`: the request that may have to log in, so the login shows in its trace. */
  async get(accountId: string, credentials: Credentials, traceContext?: Context): Promise<BrokerSession> {
    const fingerprint = this.fingerprint(credentials);
    const cached = this.sessions.get(accountId);
    if (cached && cached.fingerprint === fingerprint) {
      cached.lastUsedMs = Date.now();
      if (cached.session) return cached.session;
      if (cached.pending) return cached.pending;
    }
    const entry: CachedSession = { fingerprint, lastUsedMs: Date.now() };
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
    if (cached?.session) this.logOut(cached.session);
    this.sessions.set(accountId, entry);
    this.evictLeastRecentlyUsed();
    return entry.pending;
  }

  invalidate(accountId: string, session?: BrokerSession): void {
    const cached = this.sessions.get(accountId);
    if (cached && (!session || cached.session === session)) this.sessions.delete(accountId);
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
