import type { Clock } from '@mtx/shared/clock';
import type { ServerEntryMessage } from '@mtx/shared/connector/terminal-host';
import { AppError } from '@mtx/shared/errors';
import type { BillingServiceDefinition } from '@mtx/shared/generated/proto/mtx/billing/v1/BillingService';
import type { ServiceClient } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import { FreshCache } from '@mtx/shared/fresh-cache';
import { insertIfAbsent } from '@mtx/shared/mongo';
import type { AccountDocument, BillingStatus, ExecutionStore, Platform } from '../store/execution-store';
import { randomBase62, type SecretBox } from '../domain/secrets';
import type { AccountTerminals, StartedTerminal } from './account-terminals';

export interface AccountView {
  id: string;
  customer_id: string;
  platform: Platform;
  server: string;
  login: string;
  label: string;
  status: BillingStatus;
  created_at: string;
  symbol_suffix: string;
  margin_mode: string;
  bonus_seat: boolean;
}

/**
 * An account as the hot path needs it. The password stays sealed in the document: the connectors hold none (the
 * terminal is logged in by its host), and only connecting hands it, sealed for the hosts, to a terminal host.
 */
export interface ResolvedAccount {
  document: AccountDocument;
}

export function accountView(document: AccountDocument): AccountView {
  return {
    id: document._id,
    customer_id: document.customer_id,
    platform: document.platform,
    server: document.server,
    login: document.login,
    label: document.label,
    status: document.billing_status,
    created_at: document.created_at.toISOString(),
    symbol_suffix: document.symbol_suffix,
    margin_mode: document.margin_mode,
    bonus_seat: document.bonus_seat,
  };
}

const platforms: readonly Platform[] = ['mt4', 'mt5'];
const billingStatuses: readonly BillingStatus[] = ['active', 'past_due', 'suspended'];
const slotReadChunk = 16;
const slotsMax = 10_000;
/** Accounts a replica keeps resolved; the oldest entry makes room. */
const cachedAccountsMax = 100_000;

export interface AccountRegistryOptions {
  store: ExecutionStore;
  clock: Clock;
  logger: Logger;
  secrets: SecretBox;
  terminals: AccountTerminals;
  billing: ServiceClient<BillingServiceDefinition> | undefined;
  seatsRequired: boolean;
  /** How long a resolved account is trusted; changes are announced to every replica, so this bounds a missed one. */
  cacheMs: number;
  /** Tells the other replicas an account changed (their caches drop it). */
  announceChange?: (accountId: string) => void;
  billingDeadlineMs: number;
}

/**
 * The trading-account registry. Listing walks per-customer slot documents (`<customer>:<n>`) by `_id`;
 * the hot path reads accounts by `_id` through a cache kept under the shared freshness rule (every change is
 * announced to every replica, and a read that raced a change is not kept); passwords are stored sealed
 * (AES-256-GCM) and only ever opened to seal them again for a terminal host.
 */
export class AccountRegistry {
  /** Accounts by id (null: none), in the shared FreshCache; suspended while announcements may be missed. */
  readonly cache: FreshCache<ResolvedAccount | null>;
  private readonly nextSlotHints = new Map<string, number>();

  constructor(private readonly options: AccountRegistryOptions) {
    this.cache = new FreshCache({ freshMs: options.cacheMs, entriesMax: cachedAccountsMax, now: () => options.clock.now().getTime() });
  }

  /** This replica changed the account: drop it here and tell the others. */
  private changed(accountId: string): void {
    this.observeChange(accountId);
    this.options.announceChange?.(accountId);
  }

  /** Another use case of this replica changed the account's document (its settings): drop it here and tell the others. */
  noteChanged(accountId: string): void {
    this.changed(accountId);
  }

  /** The account changed (here or, by announcement, on another replica): what was read before is not trusted. */
  observeChange(accountId: string): void {
    this.cache.invalidate(accountId);
  }

  /** The accounts by id, through the cache; missing or deleted ids map to undefined. */
  async resolve(accountIds: string[]): Promise<Map<string, ResolvedAccount | undefined>> {
    const result = new Map<string, ResolvedAccount | undefined>();
    await Promise.all(
      accountIds.map(async (id) => {
        const entry = await this.cache.read(id, async () => {
          const document = /^acc_[0-9A-Za-z]{1,64}$/.test(id) ? await this.options.store.accounts.findOne({ _id: id }) : null;
          return document ? { document } : null;
        });
        result.set(id, entry ?? undefined);
      }),
    );
    return result;
  }

  /** The customer's accounts by id, or 400 unknown_account naming the first that is not theirs (nor anyone's, as far as they can tell). */
  async resolveOwned(customerId: string, ids: Array<{ account_id: string; param: string }>): Promise<Map<string, ResolvedAccount>> {
    const resolved = await this.resolve([...new Set(ids.map((item) => item.account_id))]);
    const owned = new Map<string, ResolvedAccount>();
    for (const item of ids) {
      const account = resolved.get(item.account_id);
      // Another customer's account is reported exactly like one that does not exist.
      if (!account || account.document.customer_id !== customerId) {
        throw new AppError('unknown_account', `no account ${item.account_id} among this customer's accounts (see GET /v1/accounts)`, {
          param: item.param,
        });
      }
      owned.set(item.account_id, account);
    }
    return owned;
  }

  /** The customer's account or 404 (also for another customer's account: its existence is not revealed). */
  async get(customerId: string, accountId: string): Promise<AccountDocument> {
    const document = /^acc_[0-9A-Za-z]{1,64}$/.test(accountId) ? await this.options.store.accounts.findOne({ _id: accountId }) : null;
    if (!document || document.customer_id !== customerId)
      throw new AppError('not_found', `no account ${accountId}`, { param: 'account_id' });
    return document;
  }

  async list(customerId: string): Promise<AccountView[]> {
    const accounts: AccountView[] = [];
    for (let start = 1; start <= slotsMax; start += slotReadChunk) {
      const slots = await Promise.all(
        Array.from({ length: slotReadChunk }, (_, offset) =>
          this.options.store.accountSlots.findOne({ _id: `${customerId}:${start + offset}` }),
        ),
      );
      const documents = await Promise.all(
        slots.map((slot) => (slot ? this.options.store.accounts.findOne({ _id: slot.account_id }) : null)),
      );
      for (const document of documents) if (document && document.customer_id === customerId) accounts.push(accountView(document));
      const firstMissing = slots.indexOf(null);
      if (firstMissing >= 0) {
        this.nextSlotHints.set(customerId, start + firstMissing);
        break;
      }
    }
    return accounts;
  }

  /** Takes the customer's next free slot number; the insert makes it exclusive across replicas. */
  private async takeSlot(customerId: string, accountId: string): Promise<number> {
    let slot = this.nextSlotHints.get(customerId) ?? 1;
    for (let attempt = 0; attempt < slotsMax; attempt++) {
      if (await insertIfAbsent(this.options.store.accountSlots, { _id: `${customerId}:${slot}`, account_id: accountId })) {
        this.nextSlotHints.set(customerId, slot + 1);
        return slot;
      }
      slot += 1;
    }
    throw new AppError('conflict', 'too many accounts for this customer');
  }

  /** The trade servers the terminal hosts reach, asked of each platform's hosts; none answering at all is 503. */
  listServers(): Promise<ServerEntryMessage[]> {
    return this.options.terminals.listServers();
  }

  /**
   * Connects an account: a terminal host starts its terminal, which logs in to the trade server (and tells the
   * server's symbol suffix; see AccountTerminals.start), then a seat is taken, then the account is stored. The `<customer>:<platform>:
   * <server>:<login>` key is claimed first, so the same login cannot be connected twice concurrently.
   */
  async create(input: {
    customer_id: string;
    platform: string;
    server: string;
    login: string;
    password: string;
    label: string;
    bonus_seat: boolean;
  }): Promise<AccountView> {
    if (!input.customer_id) throw new AppError('invalid_request', 'customer_id is required', { param: 'customer_id' });
    if (!platforms.includes(input.platform as Platform))
      throw new AppError('invalid_request', 'platform must be mt4 or mt5', { param: 'platform' });
    const platform = input.platform as Platform;
    const server = (input.server ?? '').trim();
    const login = (input.login ?? '').trim();
    if (!server || server.length > 100) throw new AppError('invalid_request', 'server must be 1 to 100 characters', { param: 'server' });
    if (!/^[0-9A-Za-z_-]{1,32}$/.test(login))
      throw new AppError('invalid_request', 'login must be 1 to 32 letters, digits, _ or -', { param: 'login' });
    if (!input.password || input.password.length > 128)
      throw new AppError('invalid_request', 'password must be 1 to 128 characters', { param: 'password' });
    const label = (input.label ?? '').trim();
    if (label.length > 100) throw new AppError('invalid_request', 'label must be at most 100 characters', { param: 'label' });

    const accountId = `acc_${randomBase62(16)}`;
    const keyId = `${input.customer_id}:${platform}:${server.toLowerCase()}:${login}`;
    if (!(await insertIfAbsent(this.options.store.accountKeys, { _id: keyId, account_id: accountId }))) {
      const existing = await this.options.store.accountKeys.findOne({ _id: keyId });
      throw new AppError('conflict', `login ${login} on ${server} is already connected${existing ? ` as ${existing.account_id}` : ''}`, {
        param: 'login',
      });
    }
    let seatTaken = false;
    let started: StartedTerminal | undefined;
    try {
      started = await this.options.terminals.start({ accountId, platform, server, login, password: input.password });
      if (this.options.seatsRequired) {
        if (!this.options.billing) throw new AppError('unavailable', 'billing is not configured');
        await this.options.billing.call(
          'AssignSeat',
          { customer_id: input.customer_id, account_id: accountId, label: label || `${platform} ${login}`, bonus: input.bonus_seat },
          { deadlineMs: this.options.billingDeadlineMs },
        );
        seatTaken = true;
      }
      const slot = await this.takeSlot(input.customer_id, accountId);
      const document: AccountDocument = {
        _id: accountId,
        customer_id: input.customer_id,
        platform,
        server: started.server,
        login,
        password: this.options.secrets.seal(input.password),
        terminal_token_sha256: started.token_sha256,
        label: label || `${platform.toUpperCase()} ${login}`,
        symbol_suffix: started.symbol_suffix,
        margin_mode: started.margin_mode || 'hedging',
        billing_status: 'active',
        bonus_seat: input.bonus_seat,
        slot,
        created_at: this.options.clock.now(),
      };
      await this.options.store.accounts.insertOne(document);
      this.options.logger.info(
        { account_id: accountId, customer_id: input.customer_id, platform, server: document.server, ea_attached: started.attached },
        'account connected',
      );
      return accountView(document);
    } catch (error) {
      await this.options.store.accountKeys.deleteOne({ _id: keyId }).catch(() => undefined);
      if (started)
        await this.options.terminals.undo({ accountId, platform, server: started.server, login, tokenSha256: started.token_sha256 });
      if (seatTaken) await this.releaseSeat(input.customer_id, accountId);
      throw error;
    }
  }

  private async releaseSeat(customerId: string, accountId: string): Promise<void> {
    if (!this.options.seatsRequired || !this.options.billing) return;
    try {
      await this.options.billing.call(
        'ReleaseSeat',
        { customer_id: customerId, account_id: accountId },
        { deadlineMs: this.options.billingDeadlineMs },
      );
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') return;
      this.options.logger.error({ err: error, account_id: accountId }, 'seat release failed; billing releases empty seats at their date');
    }
  }

  async delete(customerId: string, accountId: string): Promise<AccountView> {
    const document = await this.get(customerId, accountId);
    await this.options.terminals.stop({
      accountId,
      platform: document.platform,
      server: document.server,
      login: document.login,
      tokenSha256: document.terminal_token_sha256,
    });
    await this.options.store.accounts.deleteOne({ _id: accountId });
    await this.options.store.accountKeys
      .deleteOne({ _id: `${customerId}:${document.platform}:${document.server.toLowerCase()}:${document.login}` })
      .catch(() => undefined);
    this.changed(accountId);
    await this.releaseSeat(customerId, accountId);
    this.options.logger.info({ account_id: accountId, customer_id: customerId }, 'account disconnected');
    return accountView(document);
  }

  /** Billing's word on the account's seat; suspended accounts get no new orders. */
  async setBillingStatus(customerId: string, accountId: string, status: string): Promise<AccountView> {
    if (!billingStatuses.includes(status as BillingStatus))
      throw new AppError('invalid_request', 'status must be active, past_due or suspended', { param: 'status' });
    const document = await this.get(customerId, accountId);
    // Billing is the single writer of this field, so an update (not isolated on FerretDB) is safe here.
    await this.options.store.accounts.updateOne({ _id: accountId }, { $set: { billing_status: status as BillingStatus } });
    this.changed(accountId);
    return accountView({ ...document, billing_status: status as BillingStatus });
  }
}
