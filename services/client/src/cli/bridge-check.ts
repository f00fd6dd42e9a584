/**
 * `bridge:check`: the conformance check an operator runs against a real terminal (docs/terminal-bridge.md).
 * It listens as a connector would, admits the one terminal whose token (and login, server, platform when
 * given) it was told, and runs every command against it: the reads, then with --trade a small buy traded
 * through every trade command. Prints one row per step; exit 0 when all passed, 1 on any failure, 2 when no
 * terminal was admitted in time. The token is compared as the connector compares it and never printed.
 */
import fs from 'node:fs';
import { formatDecimal } from '@mtx/connector-runtime/bridge/numbers';
import { tokenDigest, type TerminalDirectory } from '@mtx/connector-runtime/bridge/terminal-admission';
import { isLoopbackHost, TerminalServer, type TerminalServerSettings } from '@mtx/connector-runtime/bridge/terminal-server';
import { createLogger } from '@mtx/shared/logger';
import { renderTable } from '../table';
import { type CliIo, type Flags, numberFlag, UsageError } from './context';
import { runReads, type TerminalIdentity } from './bridge-check-reads';
import { CheckRun, type CheckRow } from './bridge-check-steps';
import { runSendBatch } from './bridge-check-batch';
import { runTrades } from './bridge-check-trades';

export const bridgeCheckDefaults = { listen: '127.0.0.1:7450', waitSeconds: 300, symbol: 'EURUSD' } as const;

const tokenPattern = /^[A-Za-z0-9_-]{32,256}$/;
const readDeadlineMs = 10_000;
/** A real trade server can take seconds to fill; the EA is given this long to start and finish a trade. */
const tradeDeadlineMs = 30_000;
const closeGraceMs = 2_000;

interface CheckOptions {
  host: string;
  port: number;
  token: string;
  login?: number;
  server?: string;
  platform?: 'mt4' | 'mt5';
  tls?: { key: Buffer; cert: Buffer };
  waitMs: number;
  trade: boolean;
  symbol: string;
  volume?: number;
}

function parseListen(text: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || port > 65_535) throw new UsageError('--listen must be host:port, such as 127.0.0.1:7450 or [::1]:7450');
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

function readFile(file: string, flag: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${file}: ${(error as Error).message}`);
  }
}

function checkOptions(flags: Flags, environment: NodeJS.ProcessEnv): CheckOptions {
  const { host, port } = parseListen(flags.listen ?? bridgeCheckDefaults.listen);
  const token = flags.token ?? environment.MTX_BRIDGE_TOKEN;
  if (!token) throw new UsageError('bridge:check needs the token the EA is configured with: --token <t> or MTX_BRIDGE_TOKEN');
  if (!tokenPattern.test(token)) throw new UsageError('the token must be 32–256 characters of A–Z, a–z, 0–9, _ and -');
  const login = numberFlag(flags.login, '--login');
  if (login !== undefined && (!Number.isSafeInteger(login) || login < 1)) throw new UsageError('--login must be an account number');
  const platform = flags.platform;
  if (platform !== undefined && platform !== 'mt4' && platform !== 'mt5') throw new UsageError('--platform must be mt4 or mt5');
  if (Boolean(flags['tls-key']) !== Boolean(flags['tls-cert'])) throw new UsageError('--tls-key and --tls-cert go together');
  const tls =
    flags['tls-key'] && flags['tls-cert']
      ? { key: readFile(flags['tls-key'], '--tls-key'), cert: readFile(flags['tls-cert'], '--tls-cert') }
      : undefined;
  if (!tls && !isLoopbackHost(host))
    throw new UsageError(`listening on ${host} needs TLS: give --tls-key and --tls-cert, or listen on loopback`);
  const trade = Boolean(flags.trade);
  // Trading needs the account named, so a terminal logged in to another account is never traded on.
  if (trade && (login === undefined || !flags.server))
    throw new UsageError('--trade needs --login and --server: the demo account to trade on');
  const volume = numberFlag(flags.volume, '--volume');
  if (volume !== undefined && !(volume > 0)) throw new UsageError('--volume must be a positive number of lots');
  const waitSeconds = numberFlag(flags['wait-seconds'], '--wait-seconds') ?? bridgeCheckDefaults.waitSeconds;
  if (!(waitSeconds > 0)) throw new UsageError('--wait-seconds must be positive');
  const options: CheckOptions = {
    host,
    port,
    token,
    waitMs: waitSeconds * 1000,
    trade,
    symbol: flags.symbol ?? bridgeCheckDefaults.symbol,
  };
  if (login !== undefined) options.login = login;
  if (flags.server) options.server = flags.server;
  if (platform) options.platform = platform;
  if (tls) options.tls = tls;
  if (volume !== undefined) options.volume = volume;
  return options;
}

function accountIdOf(identity: TerminalIdentity): string {
  return `${identity.platform}:${identity.login}@${identity.server}`;
}

/**
 * The directory of the one terminal under check: the token's digest, bound to the first terminal that says
 * hello with the login, server and platform asked for (any, when not given). It remembers who dialled, so a
 * check that admits nobody can say why.
 */
class CheckDirectory implements TerminalDirectory {
  readonly dialled = new Map<string, { identity: TerminalIdentity; matched: boolean }>();
  private readonly digest: Uint8Array;
  private chosen: string | undefined;

  constructor(private readonly options: CheckOptions) {
    this.digest = tokenDigest(options.token);
  }

  async lookup(identity: TerminalIdentity) {
    const { login, server, platform } = this.options;
    const accountId = accountIdOf(identity);
    const matched =
      (login === undefined || login === identity.login) &&
      (server === undefined || server === identity.server) &&
      (platform === undefined || platform === identity.platform) &&
      (this.chosen === undefined || this.chosen === accountId);
    this.dialled.set(accountId, { identity: { ...identity }, matched });
    if (!matched) return null;
    return { accountId, tokenDigest: this.digest, login: String(identity.login), server: identity.server };
  }

  choose(accountId: string): void {
    this.chosen ??= accountId;
  }
}

function serverSettings(options: CheckOptions): TerminalServerSettings {
  const settings: TerminalServerSettings = {
    host: options.host,
    port: options.port,
    maxConnections: 8,
    helloDeadlineMs: 10_000,
    heartbeatMs: 10_000,
    idleMs: 30_000,
    maxInFlight: 8,
    maxQueued: 16,
    maxFrameBytes: 1_048_576,
    lookupDeadlineMs: 1_000,
    latencyAllowanceMs: 250,
    closeWaitMs: 2_000,
  };
  if (options.tls) settings.tls = options.tls;
  return settings;
}

/** Why nobody was admitted, from who dialled: the operator's next move. */
function noTerminalReason(directory: CheckDirectory, waitMs: number): string {
  const seen = [...directory.dialled.values()];
  if (seen.length === 0) return `no terminal dialled within ${waitMs / 1000} s: check the EA's address, port and that it runs`;
  return seen
    .map(({ identity, matched }) =>
      matched
        ? `${identity.platform} login ${identity.login} on ${identity.server} was refused: its token is not the one given (or its protocol version)`
        : `${identity.platform} login ${identity.login} on ${identity.server} dialled but is not the terminal asked for`,
    )
    .join('\n');
}

export async function bridgeCheck(flags: Flags, io: CliIo): Promise<number> {
  const options = checkOptions(flags, io.environment);
  const directory = new CheckDirectory(options);
  let admit: (accountId: string) => void = () => undefined;
  const admitted = new Promise<string>((resolve) => (admit = resolve));
  let version = 1;
  const server = new TerminalServer(serverSettings(options), {
    directory,
    logger: createLogger('bridge-check', { level: 'silent' }),
    events: {
      attached: ({ accountId }) => directory.choose(accountId),
      // Calls reach the terminal once it has its welcome.
      welcomed: (welcomed) => {
        version = welcomed.version;
        admit(welcomed.accountId);
      },
    },
  });
  let port: number;
  try {
    port = await server.start();
  } catch (error) {
    throw new UsageError(`cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
  }
  try {
    const wanted = [options.platform, options.login && `login ${options.login}`, options.server && `on ${options.server}`].filter(Boolean);
    const host = options.host.includes(':') ? `[${options.host}]` : options.host;
    io.stderr.write(
      `bridge:check waiting for a terminal${wanted.length ? ` (${wanted.join(' ')})` : ''} on ${host}:${port}${options.tls ? ' with TLS' : ''}\n`,
    );
    let timer: NodeJS.Timeout | undefined;
    const accountId = await Promise.race([
      admitted,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), options.waitMs))),
    ]);
    clearTimeout(timer);
    if (accountId === undefined) {
      const reason = noTerminalReason(directory, options.waitMs);
      if (flags.json) io.stdout.write(`${JSON.stringify({ attached: false, reason }, null, 2)}\n`);
      else io.stderr.write(`bridge:check: no terminal admitted.\n${reason}\n`);
      return 2;
    }
    const terminal = directory.dialled.get(accountId)!.identity;
    const run = new CheckRun((command, args) =>
      server.call(
        accountId,
        command,
        Object.entries(args).map(([key, value]) => [key, typeof value === 'number' ? formatDecimal(value) : value] as const),
        { deadlineMs: ['send', 'close', 'modify', 'delete'].includes(command) ? tradeDeadlineMs : readDeadlineMs },
      ),
    );
    run.note('hello', 'pass', `${terminal.platform} login ${terminal.login} on ${terminal.server}, token accepted, protocol v${version}`);
    const reads = await runReads(run, terminal, options.symbol);
    if (options.trade) {
      await runTrades(run, terminal, reads, options.volume);
      await runSendBatch(run, terminal, reads, version);
    } else run.note('trade', 'skipped', 'skipped: --trade (on a demo account) sends, modifies and closes a small order');
    printRows(io, flags, terminal, run.rows);
    return run.failed ? 1 : 0;
  } finally {
    await server.close(closeGraceMs);
  }
}

function printRows(io: CliIo, flags: Flags, terminal: TerminalIdentity, rows: CheckRow[]): void {
  const count = (result: string) => rows.filter((row) => row.result === result).length;
  const passed = count('fail') === 0;
  if (flags.json) {
    io.stdout.write(`${JSON.stringify({ attached: true, terminal, passed, rows }, null, 2)}\n`);
    return;
  }
  const table = renderTable<CheckRow>(
    [
      { header: 'COMMAND', value: (row) => row.command },
      { header: 'RESULT', value: (row) => row.result },
      { header: 'DETAIL', value: (row) => row.detail, maxWidth: 110 },
      { header: 'LATENCY', value: (row) => (row.latencyMs === undefined ? '' : `${row.latencyMs} ms`), align: 'right' },
    ],
    rows,
  );
  io.stdout.write(`${table}\n${count('pass')} passed, ${count('fail')} failed, ${count('skipped')} skipped\n`);
}
