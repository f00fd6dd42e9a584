import net from 'node:net';
import tls from 'node:tls';
import { TurnTextWriter } from '@mtx/shared/socket-turn-writes';
import type { Answer } from './answer';
import { runCommand, tradeCommands } from './command-table';
import { encodeFrame, type Frame, FrameReader, maxFrameBytes, parseInteger } from './frames';
import { sendBatchCommand, sendBatchCommandRun } from './send-batch-command';
import { malformedLine, type TerminalAnswers } from './terminal-behaviour';
import type { TerminalLinkOptions, TerminalLinkStats } from './terminal-link-options';

const loopbackHosts = new Set(['127.0.0.1', '::1', 'localhost']);
/** Bound checks: the reference EA ticks every 50 ms, but one process hosts every terminal here and bounds are seconds. */
const tickMs = 250;
const maxMessageLength = 1024;

/**
 * An emulated terminal's EA: dials a connector, says `hello`, and carries out its requests one by one, as the
 * reference EAs do (docs/terminal-bridge.md; `services/connector-mt5/terminal/MtxBridge.mq5`): hello waits 10 s for
 * `welcome`, reconnects back off from 1 s doubling (each wait half to all of it), addresses are tried in turn.
 */
export class TerminalLink {
  private connection: Connection | undefined;
  private nextAddress = 0;
  private failures = 0;
  private dialTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private admit: (() => void) | undefined;
  private dialled = '';
  readonly stats: TerminalLinkStats = { dials: 0, welcomes: 0, refusals: [], connected: false };
  /** Settles when a connector first answers `welcome` (the EA was admitted); never rejects. */
  readonly admitted: Promise<void>;

  constructor(private readonly options: TerminalLinkOptions) {
    // As the reference EAs: the first address tried is the login's, so terminals spread over the replicas.
    const login = Number(options.terminal.credentials.login);
    this.nextAddress = Number.isSafeInteger(login) && login > 0 ? login % Math.max(1, options.addresses.length) : 0;
    this.admitted = new Promise((resolve) => {
      this.admit = resolve;
    });
  }

  /** The account the terminal is logged in to. */
  get account(): { server: string; login: string } {
    return this.options.terminal.credentials;
  }

  start(): void {
    this.dial();
  }

  /** Lets the request in hand finish within `graceMs`, says `bye reason=deinit` and stops dialling. */
  async close(graceMs: number): Promise<void> {
    this.stopped = true;
    clearTimeout(this.dialTimer);
    await this.connection?.finish(graceMs);
  }

  /** Drops the connection in hand as a network cut would (no `bye`); the EA dials again after its backoff. */
  cut(): void {
    this.connection?.end('cut');
  }

  private dial(): void {
    if (this.stopped) return;
    const addresses = this.options.addresses;
    const address = addresses[this.nextAddress % addresses.length]!;
    this.nextAddress += 1;
    const colon = address.lastIndexOf(':');
    const host = address.slice(0, colon).replace(/^\[|\]$/g, '');
    const port = Number(address.slice(colon + 1));
    if (!this.options.tls && !loopbackHosts.has(host)) {
      this.options.logger.warn({ address }, 'terminal: TLS is required for a non-loopback connector');
      this.dropped('plain TCP refused');
      return;
    }
    this.stats.dials += 1;
    this.dialled = address;
    this.connection = new Connection(this, this.options, host, port);
  }

  /** Called by a connection when it ends; schedules the next dial with backoff. */
  dropped(reason: string): void {
    this.connection = undefined;
    this.stats.connected = false;
    this.stats.connector = undefined;
    if (this.stopped) return;
    this.failures += 1;
    const initialMs = this.options.backoffInitialMs ?? 1000;
    const cap = Math.min(this.options.backoffMaxMs ?? 60_000, initialMs * 2 ** Math.min(this.failures - 1, 16));
    const waitMs = cap / 2 + Math.random() * (cap / 2);
    this.options.logger.info({ reason, wait_ms: Math.round(waitMs) }, 'terminal: disconnected');
    this.dialTimer = setTimeout(() => this.dial(), waitMs);
  }

  welcomed(): void {
    this.failures = 0;
    this.stats.welcomes += 1;
    this.stats.connected = true;
    this.stats.connector = this.dialled;
    this.admit?.();
  }
}

interface QueuedRequest {
  id: number;
  cmd: string;
  fields: Map<string, string>;
  readAtMs: number;
}

/** One connection: its frames, its queue of requests, its timers. Everything is forgotten when it ends. */
class Connection {
  private readonly socket: net.Socket;
  private readonly reader = new FrameReader();
  private welcomed = false;
  private ended = false;
  private lastId = 0;
  private maxInflight = 8;
  private heartbeatMs = 10_000;
  private idleMs = 30_000;
  private version = 1;
  private lastInMs = Date.now();
  private lastOutMs = Date.now();
  private readonly helloAtMs = Date.now();
  private readonly queue: QueuedRequest[] = [];
  private running: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;
  /** The frames finished in one turn (answers, mostly) leave in one write, at the turn's end. */
  private readonly output: TurnTextWriter;

  constructor(
    private readonly link: TerminalLink,
    private readonly options: TerminalLinkOptions,
    host: string,
    port: number,
  ) {
    const timeoutMs = options.connectTimeoutMs ?? 3000;
    // A fingerprint alone pins a self-signed certificate; with a CA the chain and host name are checked too.
    this.socket = options.tls
      ? tls.connect({
          host,
          port,
          servername: net.isIP(host) ? undefined : host,
          ca: options.tls.ca,
          rejectUnauthorized: options.tls.ca !== undefined || options.tls.fingerprint256 === undefined,
          minVersion: 'TLSv1.2',
        })
      : net.connect({ host, port });
    this.output = new TurnTextWriter(this.socket);
    this.socket.setNoDelay(true); // Nagle's algorithm held each answer for the connector's delayed acknowledgement
    this.socket.setTimeout(timeoutMs, () => this.end(`connect to ${host}:${port} timed out`));
    this.socket.once(options.tls ? 'secureConnect' : 'connect', () => {
      this.socket.setTimeout(0);
      const expected = options.tls?.fingerprint256?.toUpperCase();
      if (expected && (this.socket as tls.TLSSocket).getPeerCertificate().fingerprint256 !== expected) {
        this.end('connector certificate fingerprint does not match');
        return;
      }
      void this.hello();
    });
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (error) => this.end(error.message));
    this.socket.on('close', () => this.end('closed by the connector'));
    this.timer = setInterval(() => this.tick(), tickMs);
  }

  /**
   * The terminal logs in to its trade server first (broker-sim creates the account on a first login); a terminal
   * whose trade server is unreachable still runs its EA, which says hello with the account it is set up for.
   */
  private async hello(): Promise<void> {
    const terminal = this.options.terminal;
    const { server, login } = terminal.credentials;
    let platform: string;
    let serverName: string;
    try {
      const definition = terminal.broker.serverInfo(server);
      platform = definition.platform;
      serverName = definition.name;
    } catch (error) {
      this.end(`no trade server: ${(error as Error).message}`);
      return;
    }
    await terminal
      .state()
      .catch((error: Error) => this.options.logger.warn({ err: error.message }, 'terminal: trade server not reachable'));
    const serverSeconds = Math.floor(terminal.broker.market.serverTimeMs() / 1000);
    this.send('hello', [
      ['v', (this.options.versions ?? [2, 1]).join(',')],
      ['platform', platform],
      ['login', login],
      ['server', serverName],
      ['ea', this.options.eaVersion ?? '1.0.0'],
      ['build', String(this.options.build ?? (platform === 'mt5' ? 4410 : 1420))],
      ['token', this.options.token],
      ['server_time', String(serverSeconds)],
      ['gmt_time', String(Math.floor(Date.now() / 1000))],
    ]);
  }

  private get answers(): TerminalAnswers {
    return this.options.behaviour?.answers() ?? 'normal';
  }

  private send(type: string, fields: Array<[string, string]>): boolean {
    if (this.ended) return false;
    if (this.answers === 'garbage') {
      this.output.flush();
      this.socket.write(malformedLine(type));
      this.options.behaviour?.garbageSent();
      this.lastOutMs = Date.now();
      return true;
    }
    const line = encodeFrame(type, fields);
    if (line.length * 3 > maxFrameBytes && Buffer.byteLength(line) > maxFrameBytes) return false;
    this.output.add(line);
    this.lastOutMs = Date.now();
    return true;
  }

  /** Sends `error` or `bye` and closes. */
  private closeWith(type: 'error' | 'bye', key: 'code' | 'reason', value: string, message: string): void {
    this.send(type, [
      [key, value],
      ['message', message],
    ]);
    this.end(`${type} ${value}`);
  }

  end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.timer);
    this.queue.length = 0;
    this.output.flush();
    this.socket.end();
    this.socket.destroySoon?.();
    this.link.dropped(reason);
  }

  private read(chunk: Buffer): void {
    this.lastInMs = Date.now();
    for (const result of this.reader.push(chunk)) {
      if (this.ended) return;
      if ('tooLarge' in result) {
        this.closeWith('error', 'code', 'frame_too_large', `frame exceeds ${maxFrameBytes} bytes`);
        return;
      }
      if ('malformed' in result) {
        this.closeWith('error', 'code', 'malformed', 'frame cannot be parsed');
        return;
      }
      this.handle(result.frame);
    }
  }

  private handle(frame: Frame): void {
    const field = (key: string) => frame.fields.get(key) ?? '';
    switch (frame.type) {
      case 'welcome': {
        this.version = Number(field('v'));
        if (this.welcomed || !(this.options.versions ?? [2, 1]).includes(this.version)) {
          this.closeWith('error', 'code', 'unexpected_frame', 'welcome not expected');
          return;
        }
        const maxInflight = parseInteger(field('max_inflight'));
        const heartbeatMs = parseInteger(field('hb_ms'));
        const idleMs = parseInteger(field('idle_ms'));
        const inBounds = (value: number | undefined, low: number, high: number) => value !== undefined && value >= low && value <= high;
        if (!inBounds(maxInflight, 1, 64) || !inBounds(heartbeatMs, 1000, 60_000) || !inBounds(idleMs, 3000, 180_000)) {
          this.closeWith('error', 'code', 'malformed', 'welcome bounds');
          return;
        }
        this.welcomed = true;
        this.maxInflight = maxInflight!;
        this.heartbeatMs = heartbeatMs!;
        this.idleMs = idleMs!;
        this.link.welcomed();
        return;
      }
      case 'refuse':
        this.link.stats.refusals.push(field('reason'));
        this.options.logger.warn({ reason: field('reason'), message: field('message') }, 'terminal: refused');
        this.end(`refused ${field('reason')}`);
        return;
      case 'bye':
      case 'error': {
        this.end(`${frame.type} ${field('reason') || field('code')}`);
        return;
      }
      case 'hb':
        return;
      case 'hello':
      case 'res': {
        this.closeWith('error', 'code', 'unexpected_frame', `${frame.type} is sent by the EA`);
        return;
      }
      case 'req': {
        this.request(frame);
        return;
      }
      default:
        this.options.logger.debug({ type: frame.type }, 'terminal: unknown frame type ignored');
    }
  }

  private request(frame: Frame): void {
    if (!this.welcomed) {
      this.closeWith('error', 'code', 'unexpected_frame', 'request before welcome');
      return;
    }
    // A frozen terminal: the request is read off the socket and nothing more happens to it.
    if (this.answers === 'silent') return;
    const id = parseInteger(frame.fields.get('id'));
    const cmd = frame.fields.get('cmd') ?? '';
    if (id === undefined || id < 1 || !/^[a-z_]{1,32}$/.test(cmd)) {
      this.closeWith('error', 'code', 'malformed', 'request without id or cmd');
      return;
    }
    if (id <= this.lastId) {
      this.closeWith('error', 'code', 'duplicate_id', `request id ${id} is not above ${this.lastId}`);
      return;
    }
    this.lastId = id;
    const unanswered = this.queue.length + (this.running ? 1 : 0);
    if (unanswered >= this.maxInflight) {
      this.answer(id, { error: 'busy', message: `${unanswered} requests in flight` });
      return;
    }
    this.queue.push({ id, cmd, fields: frame.fields, readAtMs: Date.now() });
    if (!this.running) this.running = this.work();
  }

  /** Carries out the queued requests one at a time, in the order read, as the reference EAs do. */
  private async work(): Promise<void> {
    for (let next = this.queue.shift(); next && !this.ended; next = this.queue.shift()) {
      // Frozen: what was read before is not carried out either.
      if (this.answers === 'silent') this.queue.length = 0;
      else this.answer(next.id, await this.execute(next));
    }
    this.running = undefined;
  }

  private async execute(request: QueuedRequest): Promise<Answer> {
    const batch = request.cmd === sendBatchCommand && this.version >= 2;
    if (!tradeCommands.has(request.cmd) && !batch) return runCommand(this.options.terminal, request.cmd, request.fields);
    const ttlMs = parseInteger(request.fields.get('ttl_ms'));
    if (ttlMs === undefined || ttlMs < 1 || ttlMs > 600_000) return { error: 'bad_request', message: `${request.cmd} needs ttl_ms` };
    if (Date.now() - request.readAtMs >= ttlMs) return { error: 'expired', message: 'ttl_ms passed before the trade started' };
    const { terminal } = this.options;
    if (!batch) return runCommand(terminal, request.cmd, request.fields);
    return sendBatchCommandRun(terminal, request.fields, request.readAtMs, ttlMs, () => this.ended || this.answers === 'silent');
  }

  private answer(id: number, answer: Answer): void {
    if (this.answers === 'silent') return;
    const head: Array<[string, string]> = [['id', String(id)]];
    if ('ok' in answer) {
      if (this.send('res', [...head, ['status', 'ok'], ...answer.ok])) return;
      if (this.ended) return;
      answer = { error: 'internal', message: 'answer exceeds the frame bound' };
    }
    this.send('res', [...head, ['status', 'error'], ['error', answer.error], ['message', answer.message.slice(0, maxMessageLength)]]);
  }

  private tick(): void {
    const now = Date.now();
    if (!this.welcomed) {
      if (now - this.helloAtMs > (this.options.helloWaitMs ?? 10_000)) this.end('no welcome');
      return;
    }
    // Frozen: no heartbeat goes out, so the connector's idle bound ends the connection.
    if (this.answers === 'silent') return;
    if (now - this.lastInMs > this.idleMs) {
      this.closeWith('bye', 'reason', 'idle', 'nothing received');
      return;
    }
    if (now - this.lastOutMs >= this.heartbeatMs) {
      const serverSeconds = Math.floor(this.options.terminal.broker.market.serverTimeMs() / 1000);
      this.send('hb', [
        ['server_time', String(serverSeconds)],
        ['gmt_time', String(Math.floor(now / 1000))],
      ]);
    }
  }

  /** The orderly end: waits up to `graceMs` for the request in hand, then `bye reason=deinit`. */
  async finish(graceMs: number): Promise<void> {
    if (this.running) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.running, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    }
    if (this.welcomed) this.closeWith('bye', 'reason', 'deinit', 'EA removed');
    else this.end('stopping');
  }
}
