import type { Logger } from '@mtx/shared/logger';
import type { Broker } from '../app/broker';
import { TerminalAccount, type TerminalLogin } from './terminal-account';
import { TerminalBehaviours } from './terminal-behaviour';
import { TerminalLink } from './terminal-link';
import type { TerminalLinkOptions, TerminalLinkStats } from './terminal-link-options';

/** One emulated terminal to run: the account it is logged in to and its EA's settings. */
export interface TerminalSpec extends TerminalLogin {
  /** What the fleet knows the terminal by; `<server>:<login>` unless given. */
  key?: string;
  addresses: string[];
  token: string;
  /** TLS for this terminal's dials; by default the fleet's. */
  tls?: TerminalLinkOptions['tls'];
}

/**
 * Several emulated terminals, one per account served, each with its own EA and connection; `close` ends them
 * all within one grace period. How each account's terminal answers (terminal-behaviour.ts) is kept here, by
 * account, so that it holds across the EA's reconnections and for a terminal started later.
 */
export class TerminalFleet {
  readonly links = new Map<string, TerminalLink>();
  readonly behaviours = new TerminalBehaviours();

  constructor(
    private readonly broker: Broker,
    private readonly logger: Logger,
    private readonly defaults: Partial<TerminalLinkOptions> = {},
  ) {}

  start(spec: TerminalSpec): TerminalLink {
    const key = spec.key ?? `${spec.server}:${spec.login}`;
    if (this.links.has(key)) throw new Error(`a terminal for ${key} is already running`);
    const link = new TerminalLink({
      ...this.defaults,
      addresses: spec.addresses,
      token: spec.token,
      tls: spec.tls ?? this.defaults.tls,
      terminal: new TerminalAccount(this.broker, { server: spec.server, login: spec.login, password: spec.password }),
      logger: this.logger.child({ terminal: key }),
      behaviour: this.behaviours.behaviourOf(this.serverName(spec.server), spec.login),
    });
    this.links.set(key, link);
    link.start();
    return link;
  }

  /** The connection state of every terminal logged in to this account (one per connected customer account). */
  terminalsOf(server: string, login: string): TerminalLinkStats[] {
    const name = this.serverName(server);
    return [...this.links.values()]
      .filter((link) => this.serverName(link.account.server) === name && link.account.login === login)
      .map((link) => ({ ...link.stats, refusals: [...link.stats.refusals] }));
  }

  /** Ends one terminal (its EA says `bye reason=deinit`); false when none ran under that key. */
  async stop(key: string, graceMs: number): Promise<boolean> {
    const link = this.links.get(key);
    if (!link) return false;
    this.links.delete(key);
    await link.close(graceMs);
    return true;
  }

  async close(graceMs: number): Promise<void> {
    await Promise.all([...this.links.values()].map((link) => link.close(graceMs)));
    this.links.clear();
  }

  /** A trade server's own name (the one accounts are kept under), or the name as given when no server has it. */
  private serverName(server: string): string {
    try {
      return this.broker.serverInfo(server).name;
    } catch {
      return server;
    }
  }
}
