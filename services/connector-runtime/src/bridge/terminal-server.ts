import net from 'node:net';
import tls from 'node:tls';
import type { Logger } from '@mtx/shared/logger';
import type { LateAnswer, TerminalAnswer } from './terminal-calls';
import { TerminalCallError } from './terminal-calls';
import type { TerminalDirectory } from './terminal-admission';
import { TerminalSession, type TerminalSessionSettings } from './terminal-session';

/**
 * The connector's listener for MetaTrader terminals (docs/terminal-bridge.md): EAs dial in, each is admitted by
 * its token and login, and the caller reaches an account's terminal by account id. TLS is required on any
 * address other than loopback; one connection per account, a newer one replacing the older.
 */

export interface TerminalServerSettings extends TerminalSessionSettings {
  host: string;
  port: number;
  /** PEM key and certificate; required unless `host` is a loopback address. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  maxConnections: number;
}

export interface TerminalServerEvents {
  /**
   * A terminal of the account was admitted (replacing the older connection when there was one). The terminal is
   * sent `welcome` only once this settles, so whatever must be ready before it trades (the account's request
   * routing) is set up here; a failure refuses the terminal `unavailable`.
   */
  attached?(event: { accountId: string; connection: string; replaced: boolean }): void | Promise<void>;
  /** The account's terminal was sent `welcome` in protocol `version`: calls reach it from now on. */
  welcomed?(event: { accountId: string; connection: string; version: number }): void;
  /** The account has no terminal connected any more. */
  detached?(event: { accountId: string; connection: string }): void;
  /** An answer after its call's deadline: the request's real outcome, for reconciliation. */
  lateAnswer?(event: LateAnswer & { accountId: string; connection: string }): void;
}

export interface TerminalServerDependencies {
  directory: TerminalDirectory;
  logger: Logger;
  events?: TerminalServerEvents;
}

const loopbackHosts = new Set(['127.0.0.1', '::1', 'localhost']);

export function isLoopbackHost(host: string): boolean {
  return loopbackHosts.has(host);
}

export class TerminalServer {
  private readonly listener: net.Server;
  private readonly secureContext: tls.SecureContext | undefined;
  private readonly sessions = new Set<TerminalSession>();
  private readonly byAccount = new Map<string, TerminalSession>();
  private connectionCount = 0;
  private stopping = false;

  constructor(
    private readonly settings: TerminalServerSettings,
    private readonly dependencies: TerminalServerDependencies,
  ) {
    if (!settings.tls && !isLoopbackHost(settings.host))
      throw new Error(`the terminal listener on ${settings.host} needs TLS: set a key and a certificate, or listen on loopback`);
    this.secureContext = settings.tls ? tls.createSecureContext({ ...settings.tls, minVersion: 'TLSv1.2' }) : undefined;
    this.listener = net.createServer((socket) => this.accept(socket));
    this.listener.maxConnections = settings.maxConnections;
  }

  /** Listens; resolves with the bound port (the settings' port, or the one the system chose for 0). */
  start(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.listener.once('error', reject);
      this.listener.listen(this.settings.port, this.settings.host, () => {
        this.listener.off('error', reject);
        const address = this.listener.address() as net.AddressInfo;
        this.dependencies.logger.info(
          { host: this.settings.host, port: address.port, tls: Boolean(this.secureContext) },
          'terminal listener started',
        );
        resolve(address.port);
      });
    });
  }

  /** Whether a terminal of the account is connected and admitted. */
  isAttached(accountId: string): boolean {
    return this.byAccount.get(accountId)?.isOpen ?? false;
  }

  /** The account's trade-server offset from UTC in seconds, once its terminal has reported its clock. */
  serverOffsetSeconds(accountId: string): number | undefined {
    return this.byAccount.get(accountId)?.serverOffsetSeconds;
  }

  /**
   * Sends one request to the account's terminal and resolves with its answer (`status=error` included: the
   * command did not run). Fails with TerminalCallError: `unavailable` when nothing was sent (no terminal
   * connected, the queue full, the deadline reached while queued), `deadline` or `unknown` when the request was
   * sent and its outcome is not known.
   */
  call(
    accountId: string,
    command: string,
    args: Iterable<readonly [string, string]>,
    options: { deadlineMs: number; fenceUnixMs?: number },
  ): Promise<TerminalAnswer> {
    const session = this.byAccount.get(accountId);
    if (!session?.isOpen || this.stopping)
      return Promise.reject(new TerminalCallError('unavailable', `no terminal of account ${accountId} is connected`));
    return session.call(command, new Map(args), options.deadlineMs, options.fenceUnixMs);
  }

  /**
   * Stops listening, lets the calls in hand settle within the grace, says `bye reason=shutdown` to each terminal
   * and destroys what is still open when the grace ends.
   */
  async close(graceMs: number): Promise<void> {
    this.stopping = true;
    const listenerClosed = new Promise<void>((resolve) => this.listener.close(() => resolve()));
    await Promise.all([...this.sessions].map((session) => session.drain(graceMs)));
    await listenerClosed;
  }

  private accept(socket: net.Socket): void {
    if (this.stopping) return void socket.destroy();
    socket.setNoDelay(true);
    const connection = `c-${(++this.connectionCount).toString(36)}-${process.pid.toString(36)}`;
    let stream: net.Socket | tls.TLSSocket = socket;
    if (this.secureContext) {
      // A plain-TCP client fails the handshake and is closed before any frame.
      stream = new tls.TLSSocket(socket, { isServer: true, secureContext: this.secureContext, requestCert: false });
      socket.on('error', () => socket.destroy());
    }
    const { logger } = this.dependencies;
    const session = new TerminalSession(stream, connection, this.settings, {
      directory: this.dependencies.directory,
      logger,
      admitted: (admitted) => this.attach(admitted),
      welcomed: (welcomed) =>
        this.notify('welcomed', () =>
          this.dependencies.events?.welcomed?.({
            accountId: welcomed.accountId!,
            connection: welcomed.connection,
            version: welcomed.version,
          }),
        ),
      closed: (closed) => this.detach(closed),
      lateAnswer: (from, late) => {
        logger.info(
          { connection: from.connection, accountId: from.accountId, command: late.command, id: late.answer.id },
          'terminal answered after the deadline',
        );
        this.notify('lateAnswer', () =>
          this.dependencies.events?.lateAnswer?.({ ...late, accountId: from.accountId ?? '', connection: from.connection }),
        );
      },
    });
    this.sessions.add(session);
  }

  private async attach(session: TerminalSession): Promise<void> {
    const accountId = session.accountId!;
    const older = this.byAccount.get(accountId);
    this.byAccount.set(accountId, session);
    // The older connection goes first, so a restarted terminal need not wait for its idle bound.
    if (older) older.bye('replaced', `a newer connection of account ${accountId} replaced this one`);
    await this.dependencies.events?.attached?.({ accountId, connection: session.connection, replaced: Boolean(older) });
  }

  private detach(session: TerminalSession): void {
    this.sessions.delete(session);
    const accountId = session.accountId;
    if (accountId === undefined || this.byAccount.get(accountId) !== session) return;
    this.byAccount.delete(accountId);
    this.dependencies.logger.info({ connection: session.connection, accountId }, 'terminal detached');
    this.notify('detached', () => this.dependencies.events?.detached?.({ accountId, connection: session.connection }));
  }

  /** A caller's event handler that throws must not break the connection that raised the event. */
  private notify(event: keyof TerminalServerEvents, handle: () => void): void {
    try {
      handle();
    } catch (error) {
      this.dependencies.logger.error({ event, err: (error as Error).message }, 'terminal event handler failed');
    }
  }
}
