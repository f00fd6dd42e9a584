import type { Logger } from '@mtx/shared/logger';
import type { Broker } from '../app/broker';
import { TerminalAccount, type TerminalLogin } from './terminal-account';
import { TerminalLink, type TerminalLinkOptions } from './terminal-link';

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
 * all within one grace period.
 */
export class TerminalFleet {
  readonly links = new Map<string, TerminalLink>();

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
    });
    this.links.set(key, link);
    link.start();
    return link;
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
}
