import type {
  HostSeal,
  ServerEntryMessage,
  StartTerminalReplyMessage,
  StartTerminalRequestMessage,
  StartTerminalStatus,
} from '@mtx/shared/connector/terminal-host';
import type { Logger } from '@mtx/shared/logger';
import { type Broker, BrokerError } from './broker';
import type { ServerDefinition } from '../domain/catalog';
import { type HostedTerminalFile, type HostedTerminalRecord, sealedToText, textToSealed } from '../store/hosted-terminals';
import type { TerminalFleet } from '../terminal/terminal-fleet';

export type Platform = 'mt4' | 'mt5';

export interface TerminalHostOptions {
  broker: Broker;
  fleet: TerminalFleet;
  seal: HostSeal;
  store: HostedTerminalFile;
  /** The connector addresses (`host:port`) the EAs of each platform dial, in turn. */
  connectorAddresses: Record<Platform, string[]>;
  logger: Logger;
}

/** How long before the requester's deadline the answer leaves, so that it arrives in time. */
const answerMarginMs = 100;

function refusal(status: StartTerminalStatus, message: string): StartTerminalReplyMessage {
  return { status, message, server: '', symbol_suffix: '', margin_mode: '' };
}

/**
 * broker-sim as the development terminal host (docs/terminal-bridge.md, "Terminal hosts"): it logs each account's
 * emulated terminal in to its simulated trade server and runs the terminal's EA, which dials the connectors of the
 * platform with the token execution issued. What runs is kept, secrets still sealed, and resumed at start.
 */
export class TerminalHost {
  constructor(private readonly options: TerminalHostOptions) {}

  /** Starts again every terminal kept from before a restart; one whose secrets no longer open is dropped. */
  async resume(): Promise<number> {
    let resumed = 0;
    for (const record of await this.options.store.load()) {
      try {
        const password = this.options.seal.open(textToSealed(record.password));
        const token = this.options.seal.open(textToSealed(record.token));
        this.launch(record, password, token);
        resumed += 1;
      } catch (error) {
        this.options.logger.error(
          { account_id: record.account_id, err: (error as Error).message },
          'hosted terminal not resumed: its secrets do not open under TERMINAL_HOST_SEAL_KEY',
        );
        await this.options.store.delete(record.account_id);
      }
    }
    return resumed;
  }

  /** Answers by the request's deadline; never throws (a failure is `unavailable`, and nothing runs). */
  async start(platform: Platform, request: StartTerminalRequestMessage): Promise<StartTerminalReplyMessage> {
    let password: string;
    let token: string;
    try {
      if (!request.password || !request.token) return refusal('unavailable', 'password and token are required');
      password = this.options.seal.open(request.password);
      token = this.options.seal.open(request.token);
    } catch {
      return refusal('unavailable', 'the secrets do not open: TERMINAL_HOST_SEAL_KEY differs from the requester');
    }
    if (this.options.connectorAddresses[platform].length === 0) return refusal('unavailable', `no ${platform} connector address is set`);
    let definition: ServerDefinition;
    try {
      definition = this.options.broker.serverInfo(request.server);
    } catch {
      return refusal('unknown_server', `no trade server named ${request.server}`);
    }
    if (definition.platform !== platform)
      return refusal('wrong_platform', `${definition.name} is an ${definition.platform.toUpperCase()} server`);
    let marginMode: string;
    try {
      const { sessionId, account } = await this.options.broker.login(definition.name, request.login, password);
      // The terminal opens its own session; this one only checked the login.
      this.options.broker.logout(sessionId);
      marginMode = account.record.marginMode;
    } catch (error) {
      if (!(error instanceof BrokerError)) throw error;
      if (error.kind === 'unauthenticated' || error.kind === 'invalid') return refusal('invalid_credentials', error.message);
      if (error.kind === 'not_found') return refusal('unknown_server', error.message);
      return refusal('unavailable', error.message);
    }
    const record: HostedTerminalRecord = {
      account_id: request.account_id,
      platform,
      server: definition.name,
      login: request.login,
      password: sealedToText(request.password),
      token: sealedToText(request.token),
    };
    // A start for an account already running replaces its terminal (new credentials).
    await this.options.fleet.stop(request.account_id, 0);
    try {
      await this.options.store.put(record);
    } catch (error) {
      return refusal('unavailable', `the host cannot keep the terminal: ${(error as Error).message}`);
    }
    const link = this.launch(record, password, token);
    const waitMs = Math.max(0, Number(request.deadline_unix_ms) - Date.now() - answerMarginMs);
    let timer: NodeJS.Timeout | undefined;
    const attached = await Promise.race([
      link.admitted.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), waitMs);
      }),
    ]);
    clearTimeout(timer);
    this.options.logger.info({ account_id: record.account_id, platform, server: definition.name, attached }, 'terminal started');
    return {
      status: attached ? 'attached' : 'started',
      message: attached ? '' : 'the EA was not admitted by a connector yet; it keeps dialling',
      server: definition.name,
      symbol_suffix: definition.symbolSuffix,
      margin_mode: marginMode,
    };
  }

  /** Stops and forgets the account's terminal; false when this host does not run it. */
  async stop(accountId: string): Promise<boolean> {
    const stopped = await this.options.fleet.stop(accountId, 0);
    const forgotten = await this.options.store.delete(accountId);
    if (stopped || forgotten) this.options.logger.info({ account_id: accountId }, 'terminal stopped');
    return stopped || forgotten;
  }

  servers(platform: Platform): ServerEntryMessage[] {
    return this.options.broker
      .listServers()
      .filter((definition) => definition.platform === platform)
      .map((definition) => ({
        name: definition.name,
        platform: definition.platform,
        broker: definition.broker,
        symbol_suffix: definition.symbolSuffix,
        margin_mode: definition.defaultMarginMode,
      }));
  }

  private launch(record: HostedTerminalRecord, password: string, token: string) {
    return this.options.fleet.start({
      key: record.account_id,
      server: record.server,
      login: record.login,
      password,
      token,
      addresses: this.options.connectorAddresses[record.platform],
    });
  }
}
