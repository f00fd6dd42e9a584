import crypto from 'node:crypto';
import { promisify } from 'node:util';
import type { Clock } from '@mtx/shared/clock';
import type { AccountDocument, FileJournal } from '../store/journal';
import { findServer, type MarginMode, type ServerDefinition } from '../domain/catalog';
import { AccountState, roundMoney, type AccountRecord, type Effect } from '../domain/engine';
import { BrokerError } from '../domain/errors';

const scrypt = promisify(crypto.scrypt) as (password: string, salt: string, length: number) => Promise<Buffer>;

export function accountKey(server: string, login: string): string {
  return `${server}:${login}`;
}

export interface AccountInput {
  server: string;
  login: string;
  password: string;
  balance?: number;
  leverage?: number;
  margin_mode?: MarginMode;
}

/**
 * The simulated brokers' accounts: opened from the journal at start, created on a first login (with the password
 * seen) or through the control API, each journaled before it is used.
 */
export class AccountBook {
  private readonly accounts = new Map<string, AccountState>();
  private readonly creating = new Map<string, Promise<AccountState>>();

  constructor(
    private readonly journal: FileJournal,
    private readonly clock: Clock,
  ) {}

  get size(): number {
    return this.accounts.size;
  }

  get(key: string): AccountState | undefined {
    return this.accounts.get(key);
  }

  values(): IterableIterator<AccountState> {
    return this.accounts.values();
  }

  /**
   * Rebuilds every account from the journal: accounts, then each account's events in order, each once.
   * `onEffect` sees every effect applied (the broker continues tickets after the highest). Returns the events read.
   */
  load(onEffect: (effect: Effect) => void): number {
    const { accounts: documents, events: journaled } = this.journal;
    for (const document of documents) {
      const definition = findServer(document.server);
      if (!definition || this.accounts.has(document._id)) continue;
      this.accounts.set(document._id, new AccountState(this.recordOf(document), definition));
    }
    const events = [...journaled].sort((left, right) =>
      left.account === right.account ? left.seq - right.seq : left.account < right.account ? -1 : 1,
    );
    for (const event of events) {
      const account = this.accounts.get(event.account);
      // A line written twice (a write retried after an unclear failure) is applied once.
      if (!account || event.seq < account.nextSequence) continue;
      for (const effect of event.effects) {
        account.apply(effect);
        onEffect(effect);
      }
      account.nextSequence = event.seq + 1;
    }
    return events.length;
  }

  private recordOf(document: AccountDocument): AccountRecord {
    return {
      key: document._id,
      server: document.server,
      login: document.login,
      platform: document.platform,
      passwordHash: document.password_hash,
      passwordSalt: document.password_salt,
      initialBalance: document.initial_balance,
      leverage: document.leverage,
      marginMode: document.margin_mode,
      createdAtMs: document.created_at.getTime(),
    };
  }

  private async hashPassword(password: string, salt: string): Promise<string> {
    return (await scrypt(password, salt, 32)).toString('base64');
  }

  /** Creates an account; journaled before it is used. An account that exists already is a conflict. */
  async create(definition: ServerDefinition, input: AccountInput): Promise<AccountState> {
    if (!/^[0-9A-Za-z_-]{1,32}$/.test(input.login)) throw new BrokerError('invalid', 'login must be 1 to 32 letters, digits, _ or -');
    if (input.password.length === 0) throw new BrokerError('invalid', 'password must not be empty');
    const marginMode: MarginMode = definition.platform === 'mt4' ? 'hedging' : (input.margin_mode ?? definition.defaultMarginMode);
    const salt = crypto.randomBytes(16).toString('base64');
    const key = accountKey(definition.name, input.login);
    if (this.accounts.has(key)) throw new BrokerError('conflict', `account ${input.login} already exists on ${definition.name}`);
    const document: AccountDocument = {
      _id: key,
      server: definition.name,
      login: input.login,
      platform: definition.platform,
      password_hash: await this.hashPassword(input.password, salt),
      password_salt: salt,
      initial_balance: roundMoney(input.balance ?? definition.defaultBalance),
      leverage: input.leverage ?? definition.defaultLeverage,
      margin_mode: marginMode,
      created_at: this.clock.now(),
    };
    // Checked again after the password hash (an await): a concurrent creation may have won meanwhile.
    if (this.accounts.has(key)) throw new BrokerError('conflict', `account ${input.login} already exists on ${definition.name}`);
    const account = new AccountState(this.recordOf(document), definition);
    this.accounts.set(key, account);
    try {
      await this.journal.appendAccount(document);
    } catch (error) {
      this.accounts.delete(key);
      throw error;
    }
    return account;
  }

  /**
   * The account behind a login, created with the first password seen (as broker-sim opens accounts); the
   * password is checked in constant time. Concurrent first logins share one creation.
   */
  async forLogin(server: ServerDefinition, login: string, password: string): Promise<AccountState> {
    const key = accountKey(server.name, login);
    let account = this.accounts.get(key);
    if (!account) {
      let creating = this.creating.get(key);
      if (!creating) {
        creating = this.create(server, { server: server.name, login, password })
          .catch((error) => {
            // Made meanwhile (the control API, or a login that was not first): use it.
            const existing = error instanceof BrokerError && error.kind === 'conflict' ? this.accounts.get(key) : undefined;
            if (existing) return existing;
            throw error;
          })
          .finally(() => this.creating.delete(key));
        this.creating.set(key, creating);
      }
      account = await creating;
    }
    const hash = await this.hashPassword(password, account.record.passwordSalt);
    if (!crypto.timingSafeEqual(Buffer.from(hash), Buffer.from(account.record.passwordHash)))
      throw new BrokerError('unauthenticated', 'invalid account or password');
    return account;
  }
}
