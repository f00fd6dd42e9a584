import type { Duplex } from 'node:stream';
import type { Logger } from '@mtx/shared/logger';
import { TurnTextWriter } from '@mtx/shared/socket-turn-writes';
import { FrameReader } from './frame-reader';
import { type BridgeFrame, type DecodedFrame, decodeFrame, encodeFrameText, type HelloFrame, type Platform } from './frames';
import { admit, connectorVersions, type TerminalDirectory, type TerminalRegistration } from './terminal-admission';
import { CallTable, type LateAnswer, type TerminalAnswer } from './terminal-calls';
import { BridgeProtocolError, type ProtocolErrorCode } from './wire';

/**
 * One terminal's connection, from the TCP accept to the close (docs/terminal-bridge.md, "Sequence"): the EA's
 * `hello` within the hello deadline, its admission, then requests and answers, heartbeats both ways and the idle
 * bound. Any protocol violation closes this connection only, after the `error` frame that names it; requests
 * on the wire when it ends fail `unknown`, because a trade among them may have executed.
 */

export interface TerminalSessionSettings {
  helloDeadlineMs: number;
  heartbeatMs: number;
  idleMs: number;
  maxInFlight: number;
  maxQueued: number;
  maxFrameBytes: number;
  lookupDeadlineMs: number;
  latencyAllowanceMs: number;
  /** How long a closing side waits for the peer to close after its last frame before destroying the socket. */
  closeWaitMs: number;
}

export interface TerminalSessionHooks {
  directory: TerminalDirectory;
  logger: Logger;
  /**
   * Called once the hello is accepted; `welcome` is sent when it settles (the server replaces an older
   * connection and the caller readies the account's routing here). A failure refuses the terminal `unavailable`.
   */
  admitted(session: TerminalSession): Promise<void>;
  /** `welcome` was sent: calls reach the terminal from now on. */
  welcomed(session: TerminalSession): void;
  closed(session: TerminalSession): void;
  lateAnswer(session: TerminalSession, late: LateAnswer): void;
}

type SessionState = 'hello' | 'admitting' | 'open' | 'closing' | 'closed';

/** The trade server's offset from UTC is whole quarter hours; the terminal's clock is trusted to a few minutes. */
const offsetStepSeconds = 900;

export class TerminalSession {
  private state: SessionState = 'hello';
  private readonly reader: FrameReader;
  private readonly calls: CallTable;
  private registration: TerminalRegistration | undefined;
  private agreedVersion = 0;
  private platform: Platform | undefined;
  private lastServerTime: number | undefined;
  private offsetSeconds: number | undefined;
  private lastSentAt = Date.now();
  private lastReceivedAt = Date.now();
  private helloTimer: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private destroyTimer: NodeJS.Timeout | undefined;
  private readonly output: TurnTextWriter;
  private resolveClosed!: () => void;
  /** Settles when the socket has closed and every call has been failed. */
  readonly closed = new Promise<void>((resolve) => {
    this.resolveClosed = resolve;
  });

  constructor(
    private readonly socket: Duplex,
    readonly connection: string,
    private readonly settings: TerminalSessionSettings,
    private readonly hooks: TerminalSessionHooks,
  ) {
    this.reader = new FrameReader(settings.maxFrameBytes);
    this.output = new TurnTextWriter(socket);
    this.calls = new CallTable(
      settings,
      (frame) => this.send(frame),
      (late) => hooks.lateAnswer(this, late),
      () => this.output.flush(),
    );
    // The deadline runs from the accept, so a TLS handshake that never ends is bounded by it too.
    this.helloTimer = setTimeout(() => {
      this.hooks.logger.info({ connection }, 'terminal sent no hello in time: closing');
      this.socket.destroy();
    }, settings.helloDeadlineMs);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error: Error) => {
      this.hooks.logger.info({ connection, err: error.message }, 'terminal connection failed');
      this.socket.destroy();
    });
    socket.on('end', () => {
      this.output.flush();
      this.socket.end();
    });
    socket.on('close', () => this.finish());
  }

  /** The account this connection trades for, once admitted. */
  get accountId(): string | undefined {
    return this.registration?.accountId;
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  /**
   * The trade server's offset from UTC in seconds (`server_time − gmt_time` to the nearest 15 minutes), from the
   * hello and the EA's heartbeats; server time minus this is UTC.
   */
  get serverOffsetSeconds(): number | undefined {
    return this.offsetSeconds;
  }

  get inFlight(): number {
    return this.calls.inFlight;
  }

  /** The protocol version agreed in `welcome` (0 before it). */
  get version(): number {
    return this.agreedVersion;
  }

  call(command: string, args: Map<string, string>, deadlineMs: number, fenceUnixMs?: number): Promise<TerminalAnswer> {
    return this.calls.call(command, args, deadlineMs, fenceUnixMs);
  }

  /** Ends this connection with `bye`: calls on the wire fail `unknown`. */
  bye(reason: 'shutdown' | 'replaced' | 'idle', message: string): void {
    this.closeWith({ type: 'bye', reason, message });
  }

  /**
   * An orderly stop: no new calls, those in hand get until `graceMs` to settle, then `bye reason=shutdown`, and
   * the socket is destroyed if the EA has not closed by the end of the grace.
   */
  async drain(graceMs: number): Promise<void> {
    const endAt = Date.now() + graceMs;
    if (this.state === 'open') {
      await Promise.race([this.calls.drain('the connector is stopping'), this.closed, delay(graceMs)]);
      this.bye('shutdown', 'connector stopping');
    } else if (this.state !== 'closed') this.socket.destroy();
    await Promise.race([this.closed, delay(Math.max(0, endAt - Date.now()))]);
    this.socket.destroy();
    await this.closed;
  }

  private receive(chunk: Buffer): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    let frames: DecodedFrame[];
    try {
      frames = this.reader.push(chunk).map(decodeFrame);
    } catch (error) {
      this.violation(error);
      return;
    }
    // Frames count for the idle bound, not bytes: a line trickled in without its LF keeps nothing alive.
    if (frames.length > 0) this.lastReceivedAt = Date.now();
    for (const frame of frames) {
      if ((this.state as SessionState) === 'closing') return;
      try {
        this.handle(frame);
      } catch (error) {
        this.violation(error);
        return;
      }
    }
  }

  private handle(frame: DecodedFrame): void {
    if (frame.type === 'unknown') {
      this.hooks.logger.info({ connection: this.connection, frame: frame.name }, 'terminal sent an unknown frame type: ignored');
      return;
    }
    if (this.state === 'hello' && frame.type === 'hello') return void this.onHello(frame).catch((error: unknown) => this.violation(error));
    if (this.state === 'open') {
      if (frame.type === 'res') {
        this.calls.answer(frame);
        return;
      }
      if (frame.type === 'hb') {
        this.noteClock(frame.serverTime, frame.gmtTime);
        return;
      }
    }
    if (frame.type === 'bye' || frame.type === 'error') {
      const detail = frame.type === 'bye' ? { reason: frame.reason } : { code: frame.code };
      this.hooks.logger.info(
        { connection: this.connection, accountId: this.accountId, ...detail, message: frame.message },
        `terminal sent ${frame.type}`,
      );
      this.closeWith(undefined);
      return;
    }
    throw new BridgeProtocolError(
      'unexpected_frame',
      `${frame.type} is not expected ${this.state === 'open' ? 'after welcome' : 'before welcome'}`,
    );
  }

  private async onHello(hello: HelloFrame): Promise<void> {
    clearTimeout(this.helloTimer);
    this.state = 'admitting';
    // Logged without its token, in any form (docs/terminal-bridge.md, "Security").
    const identity = {
      connection: this.connection,
      platform: hello.platform,
      login: hello.login,
      server: hello.server,
      ea: hello.eaVersion,
      build: hello.terminalBuild,
      versions: hello.versions,
    };
    this.hooks.logger.info(identity, 'terminal hello');
    const admission = await admit(hello, this.hooks.directory, this.settings.lookupDeadlineMs);
    if (this.state !== 'admitting') return;
    if (!admission.admitted) {
      this.hooks.logger.info({ ...identity, reason: admission.reason }, 'terminal refused');
      return this.closeWith({ type: 'refuse', reason: admission.reason, message: admission.message, versions: [...connectorVersions] });
    }
    this.registration = admission.registration;
    this.platform = hello.platform;
    this.noteClock(hello.serverTime, hello.gmtTime);
    try {
      await this.hooks.admitted(this);
    } catch (error) {
      this.hooks.logger.error({ ...identity, err: (error as Error).message }, 'terminal admitted but not made reachable: refusing');
      if (this.state !== 'admitting') return;
      return this.closeWith({
        type: 'refuse',
        reason: 'unavailable',
        message: 'the connector cannot serve this account now',
        versions: [...connectorVersions],
      });
    }
    // The connection may have ended while the account was made reachable.
    if (this.state !== 'admitting') return;
    this.state = 'open';
    this.agreedVersion = admission.version;
    this.calls.batchSends = admission.version >= 2;
    this.send({
      type: 'welcome',
      version: admission.version,
      connection: this.connection,
      maxInFlight: this.settings.maxInFlight,
      heartbeatMs: this.settings.heartbeatMs,
      idleMs: this.settings.idleMs,
    });
    this.hooks.logger.info({ ...identity, accountId: this.accountId, version: admission.version }, 'terminal welcomed');
    this.hooks.welcomed(this);
    const tickMs = Math.max(10, Math.floor(Math.min(this.settings.heartbeatMs, this.settings.idleMs) / 10));
    this.ticker = setInterval(() => this.tick(), tickMs);
    this.ticker.unref();
  }

  private tick(): void {
    const now = Date.now();
    if (now - this.lastReceivedAt >= this.settings.idleMs) {
      this.hooks.logger.info({ connection: this.connection, accountId: this.accountId }, 'terminal silent past the idle bound: closing');
      this.bye('idle', `nothing received for ${this.settings.idleMs} ms`);
      return;
    }
    if (now - this.lastSentAt >= this.settings.heartbeatMs) this.send({ type: 'hb', utcMs: now });
  }

  private noteClock(serverTime: number | undefined, gmtTime: number | undefined): void {
    if (serverTime === undefined || gmtTime === undefined) return;
    // MT4 reports the time of the last quote, which stands still while no quote comes (a weekend): an offset is
    // taken from it only while it moves, so the one taken while quotes flowed is kept.
    const stale = this.platform === 'mt4' && this.lastServerTime !== undefined && serverTime <= this.lastServerTime;
    this.lastServerTime = serverTime;
    if (stale) return;
    this.offsetSeconds = Math.round((serverTime - gmtTime) / offsetStepSeconds) * offsetStepSeconds;
  }

  private violation(error: unknown): void {
    const protocolError = error instanceof BridgeProtocolError ? error : new BridgeProtocolError('malformed', String(error));
    const code: ProtocolErrorCode = protocolError.code;
    this.hooks.logger.warn(
      { connection: this.connection, accountId: this.accountId, code, message: protocolError.message },
      'terminal protocol violation: closing',
    );
    this.closeWith({ type: 'error', code, message: protocolError.message });
  }

  /**
   * Frames leave once per event-loop turn, as one string in one write: the requests taken from one NATS read,
   * or sent as answers free slots, would otherwise each be a system call (and, on loopback, the receiver's TCP
   * path run in ours).
   */
  private send(frame: BridgeFrame): void {
    if (this.state === 'closed' || this.socket.destroyed) return;
    this.output.add(encodeFrameText(frame));
    this.lastSentAt = Date.now();
  }

  /** Sends the last frame (if any), fails the calls, ends the socket and destroys it if the peer lingers. */
  private closeWith(frame: BridgeFrame | undefined): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    if (frame) this.send(frame);
    this.output.flush();
    this.state = 'closing';
    this.stopTimers();
    this.calls.close('the terminal connection closed');
    this.socket.end();
    this.destroyTimer = setTimeout(() => this.socket.destroy(), this.settings.closeWaitMs);
    this.destroyTimer.unref();
  }

  private stopTimers(): void {
    clearTimeout(this.helloTimer);
    clearInterval(this.ticker);
  }

  private finish(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.stopTimers();
    clearTimeout(this.destroyTimer);
    this.calls.close('the terminal connection closed');
    this.hooks.closed(this);
    this.resolveClosed();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
