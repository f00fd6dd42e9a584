import { AppError } from '@mtx/shared/errors';
import type { HostSeal, ServerEntryMessage, StartTerminalReplyMessage } from '@mtx/shared/connector/terminal-host';
import { tokenSha256Hex, type TerminalRegistryEntry } from '@mtx/shared/connector/terminal-registry';
import type { Logger } from '@mtx/shared/logger';
import type { HostSilence, TerminalHostClient } from '../clients/terminal-hosts';
import { randomBase62 } from '../domain/secrets';
import type { Platform } from '../store/execution-store';

/** The registry bucket as connecting and disconnecting use it (opened when the service starts). */
export interface TerminalRegistryPort {
  put(entry: TerminalRegistryEntry): Promise<void>;
  delete(entry: TerminalRegistryEntry): Promise<void>;
}

export interface AccountTerminalsOptions {
  hosts: TerminalHostClient;
  registry: TerminalRegistryPort;
  seal: HostSeal;
  logger: Logger;
  /** How long a host has to log the terminal in and get its EA admitted (TERMINAL_START_DEADLINE_MS). */
  startDeadlineMs: number;
  /** Deadline of `stop` and `servers` (any host answers those at once). */
  askDeadlineMs: number;
}

/** What the host found out while starting the terminal. */
export interface StartedTerminal {
  server: string;
  symbol_suffix: string;
  margin_mode: string;
  /** The EA was admitted by a connector before the deadline (otherwise it keeps dialling). */
  attached: boolean;
  /** SHA-256 of the EA's token (hex): kept with the account, so disconnecting can delete its registry entry. */
  token_sha256: string;
}

/** An account's terminal as the registry knows it. */
export interface AccountTerminal {
  accountId: string;
  platform: Platform;
  server: string;
  login: string;
  tokenSha256: string;
}

function entryOf(terminal: AccountTerminal): TerminalRegistryEntry {
  return {
    account_id: terminal.accountId,
    platform: terminal.platform,
    server: terminal.server,
    login: terminal.login,
    token_sha256: terminal.tokenSha256,
  };
}

const platforms: readonly Platform[] = ['mt4', 'mt5'];

function silenceError(platform: string, silence: HostSilence, deadlineMs: number): AppError {
  if (silence.kind === 'no_responders')
    return new AppError('unavailable', `no ${platform} terminal host is running; the account cannot be connected now`);
  if (silence.kind === 'timeout') return new AppError('unavailable', `no ${platform} terminal host answered within ${deadlineMs} ms`);
  return new AppError('unavailable', `the ${platform} terminal hosts cannot be asked now: ${silence.message}`);
}

/**
 * An account's terminal, through the terminal hosts (docs/terminal-bridge.md, "Terminal hosts"): connecting
 * issues the EA's token, writes its digest to the terminal registry and then has a host start the terminal;
 * disconnecting forgets the token, then stops the terminal.
 */
export class AccountTerminals {
  constructor(private readonly options: AccountTerminalsOptions) {}

  /**
   * Starts the terminal or throws the API error the host's answer maps to; on any failure the registry entry is
   * deleted again (nothing runs, and no EA can use the token).
   */
  async start(input: { accountId: string; platform: Platform; server: string; login: string; password: string }): Promise<StartedTerminal> {
    const { accountId, platform, server, login } = input;
    const token = randomBase62(43);
    const entry: TerminalRegistryEntry = { account_id: accountId, platform, server, login, token_sha256: tokenSha256Hex(token) };
    try {
      await this.options.registry.put(entry);
    } catch (error) {
      throw new AppError('unavailable', `the terminal registry cannot be written now: ${(error as Error).message}`);
    }
    let written = entry;
    try {
      const deadlineMs = this.options.startDeadlineMs;
      const reply = await this.options.hosts.start(platform, {
        account_id: accountId,
        server,
        login,
        password: this.options.seal.seal(input.password),
        token: this.options.seal.seal(token),
        deadline_unix_ms: Date.now() + deadlineMs,
      });
      if (!('status' in reply)) throw silenceError(platform, reply, deadlineMs);
      this.check(reply, input);
      const named = reply.server || server;
      // The terminal says hello with the server's own name: the entry is keyed by it.
      if (named.toLowerCase() !== server.toLowerCase()) {
        written = { ...entry, server: named };
        await this.options.registry.put(written);
        await this.options.registry.delete(entry);
      }
      return {
        server: named,
        symbol_suffix: reply.symbol_suffix,
        margin_mode: reply.margin_mode,
        attached: reply.status === 'attached',
        token_sha256: entry.token_sha256,
      };
    } catch (error) {
      await this.forget(written);
      throw error;
    }
  }

  private check(reply: StartTerminalReplyMessage, input: { platform: Platform; server: string; login: string }): void {
    const { platform, server, login } = input;
    switch (reply.status) {
      case 'attached':
      case 'started':
        return;
      case 'invalid_credentials':
        throw new AppError('invalid_request', `the trade server refused login ${login}: invalid account or password`, {
          param: 'password',
        });
      case 'unknown_server':
        throw new AppError('invalid_request', `no ${platform} trade server named ${server}`, { param: 'server' });
      case 'wrong_platform':
        throw new AppError('invalid_request', `${server} is not an ${platform} server`, { param: 'platform' });
      default:
        throw new AppError('unavailable', `the ${platform} terminal could not be started now: ${reply.message || reply.status}`);
    }
  }

  /** Deletes a registry entry written by a start that then failed; a failure here is logged (the token was never used). */
  private async forget(entry: TerminalRegistryEntry): Promise<void> {
    await this.options.registry
      .delete(entry)
      .catch((error: Error) =>
        this.options.logger.error({ err: error, account_id: entry.account_id }, 'terminal registry entry of a failed connect not deleted'),
      );
  }

  /** Stops a terminal whose start succeeded but whose account was then not connected (seat or store failure). */
  async undo(input: AccountTerminal): Promise<void> {
    await this.forget(entryOf(input));
    await this.options.hosts.stop(input.platform, input.accountId, this.options.askDeadlineMs);
  }

  /**
   * Disconnects the terminal: the registry entry goes first (a connector refuses the EA from then on), then every
   * host is asked to stop it. A failed registry delete throws 503 before anything changed.
   */
  async stop(input: AccountTerminal): Promise<void> {
    try {
      await this.options.registry.delete(entryOf(input));
    } catch (error) {
      throw new AppError('unavailable', `the terminal registry cannot be written now: ${(error as Error).message}`);
    }
    const stopped = await this.options.hosts.stop(input.platform, input.accountId, this.options.askDeadlineMs);
    if (!stopped) this.options.logger.warn({ account_id: input.accountId }, 'no terminal host said it stopped the terminal');
  }

  /** The trade servers the hosts reach, asked of each platform's hosts; none answering at all is 503. */
  async listServers(): Promise<ServerEntryMessage[]> {
    const answers = await Promise.all(platforms.map((platform) => this.options.hosts.servers(platform, this.options.askDeadlineMs)));
    if (answers.every((answer) => answer === undefined))
      throw new AppError('unavailable', 'no terminal host is running to list the trade servers');
    return answers
      .flatMap((answer) => answer ?? [])
      .map(({ name, platform, broker, symbol_suffix, margin_mode }) => ({ name, platform, broker, symbol_suffix, margin_mode }));
  }
}
