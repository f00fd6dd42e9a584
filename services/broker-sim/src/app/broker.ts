import { AccountBook, accountKey, type AccountInput } from './account-book';
import type { BrokerOptions, BrokerStats, TradeCall } from './broker-types';
import { MarketView } from './market-view';
import { SessionTable } from './session-table';
import { findServer, findSymbol, servers, type ServerDefinition, type SymbolSpec } from '../domain/catalog';
import {
  type AccountState,
  closePosition,
  deleteOrder,
  nextMarketEvent,
  openOrder,
  type Effect,
  type EngineContext,
  type OpenRequest,
  type OperationResult,
  type PendingOrder,
  type Position,
  type RequestAction,
  type RequestRecord,
  type TradeError,
  type TradeOutcome,
} from '../domain/engine';
import { BrokerError } from '../domain/errors';
import { FaultBook, holdAnswer, type FaultSettings } from '../domain/faults';
import { PriceFeed } from '../domain/prices';
import { seedOrderEffects, seedPositionEffects, type SeedOrderInput, type SeedPositionInput } from '../domain/seeding';

export type { FaultSettings } from '../domain/faults';
export { BrokerError } from '../domain/errors';
export type { BrokerOptions, BrokerStats, TradeCall } from './broker-types';

const sleep = (durationMs: number) => new Promise<void>((resolve) => setTimeout(resolve, durationMs));

/**
 * The simulated brokers: accounts (created on first login with the password seen, or through the control
 * API), sessions, faults, the price feed, and the trade pipeline every request goes through: session →
 * dedup by client id → deadline → latency → faults → engine → journal → (hang) → answer.
 */
export class Broker {
  readonly prices: PriceFeed;
  /** The accounts at current prices, as terminals read them. */
  readonly market: MarketView;
  private readonly accounts: AccountBook;
  private readonly sessions: SessionTable;
  private readonly faults = new FaultBook();
  private readonly inflight = new Map<string, Promise<TradeOutcome>>();
  private readonly receivedByAccount = new Map<string, number>();
  private nextTicket = 10_000_001;
  private received = 0;
  private executed = 0;

  constructor(private readonly options: BrokerOptions) {
    this.prices = options.prices ?? new PriceFeed();
    this.market = new MarketView(this.prices, options.clock);
    this.accounts = new AccountBook(options.journal, options.clock);
    this.sessions = new SessionTable(options.sessionIdleMs ?? 3_600_000);
  }

  /** Rebuilds every account from the journal, and continues tickets after the highest one it holds. */
  load(): void {
    const events = this.accounts.load((effect) => this.noteTickets(effect));
    this.options.logger.info(
      { accounts: this.accounts.size, events, next_ticket: this.nextTicket, journal: this.options.journal.file },
      'broker state loaded',
    );
  }

  /** Creates an account (control API); one that exists already is a conflict. */
  createAccount(input: AccountInput): Promise<AccountState> {
    return this.accounts.create(this.serverInfo(input.server), input);
  }

  private now(): number {
    return this.options.clock.now().getTime();
  }

  private context(): EngineContext {
    return { prices: this.prices, tickets: { next: () => this.nextTicket++ }, nowMs: this.now() };
  }

  private noteTickets(effect: Effect): void {
    const seen: number[] = [];
    if (effect.t === 'position_set') seen.push(effect.position.ticket);
    else if (effect.t === 'order_set') seen.push(effect.order.ticket);
    else if (effect.t === 'deal') seen.push(effect.deal.ticket, effect.deal.order);
    else if (effect.t === 'request' && effect.record.outcome)
      seen.push(effect.record.outcome.order, effect.record.outcome.deal, effect.record.outcome.newTicket ?? 0);
    for (const ticket of seen) if (ticket >= this.nextTicket) this.nextTicket = ticket + 1;
  }

  serverInfo(name: string): ServerDefinition {
    const definition = findServer(name);
    if (!definition) throw new BrokerError('not_found', `no trade server named ${name}`);
    return definition;
  }

  listServers(): ServerDefinition[] {
    return servers;
  }

  async login(serverName: string, login: string, password: string): Promise<{ sessionId: string; account: AccountState }> {
    const definition = this.serverInfo(serverName);
    if (this.faults.get(accountKey(definition.name, login))?.disconnect)
      throw new BrokerError('unavailable', `no connection to ${definition.name}`);
    const account = await this.accounts.forLogin(definition, login, password);
    return { sessionId: this.sessions.open(account.record.key, this.now()), account };
  }

  /** Ends a session; false when it was already gone. */
  logout(sessionId: string): boolean {
    return this.sessions.logout(sessionId);
  }

  /** The account behind a session; a dropped session is UNAUTHENTICATED (the call was not read). */
  accountOf(sessionId: string): AccountState {
    const session = this.sessions.use(sessionId, this.now());
    if ('ended' in session)
      throw new BrokerError(
        'unauthenticated',
        session.ended === 'idle' ? 'session ended after being idle; log in again' : 'session expired; log in again',
      );
    const account = this.accounts.get(session.accountKey);
    if (!account) throw new BrokerError('unauthenticated', 'session expired; log in again');
    if (this.faults.get(account.record.key)?.disconnect) {
      this.sessions.end(sessionId);
      throw new BrokerError('unauthenticated', 'connection to the trade server was lost; log in again');
    }
    return account;
  }

  /** Whether the server accepts trades on the account now (a market_closed fault refuses them). */
  tradeAllowed(account: AccountState): boolean {
    return !this.faults.get(account.record.key)?.market_closed;
  }

  symbol(account: AccountState, name: string): { spec: SymbolSpec; bid: number; ask: number; tradeAllowed: boolean } {
    const spec = findSymbol(account.server, name);
    if (!spec) throw new BrokerError('not_found', `symbol ${name} does not exist on ${account.server.name}`);
    const quote = this.prices.quote(spec);
    return { spec, ...quote, tradeAllowed: this.tradeAllowed(account) };
  }

  /** Runs a trade request through the pipeline; `operate` is the engine call, run once after latency and faults. */
  async trade(
    call: TradeCall,
    action: RequestAction,
    describe: (account: AccountState) => Pick<RequestRecord, 'symbol' | 'ticket' | 'type' | 'volume' | 'kind'>,
    operate: (account: AccountState, context: EngineContext) => OperationResult,
  ): Promise<{ account: AccountState; record: RequestRecord }> {
    const account = this.accountOf(call.sessionId);
    const key = account.record.key;
    this.received += 1;
    this.receivedByAccount.set(key, (this.receivedByAccount.get(key) ?? 0) + 1);
    if (!call.clientId) throw new BrokerError('invalid', 'client_id is required');

    const existing = account.requests.get(call.clientId);
    if (existing?.state === 'done') return { account, record: existing };
    const inflightKey = `${key}|${call.clientId}`;
    const running = this.inflight.get(inflightKey);
    if (running) {
      await running;
      const settled = account.requests.get(call.clientId);
      if (!settled) throw new BrokerError('unavailable', 'the first request with this client id failed; it was not executed');
      return { account, record: settled };
    }

    const description = describe(account);
    const processing: RequestRecord = { clientId: call.clientId, state: 'processing', action, ...description, receivedAtMs: this.now() };
    let finish!: (outcome: TradeOutcome) => void;
    const promise = new Promise<TradeOutcome>((resolve) => (finish = resolve));
    this.inflight.set(inflightKey, promise);
    account.requests.set(call.clientId, processing);
    try {
      const outcome = await this.execute(call, account, processing, operate);
      finish(outcome);
      return { account, record: account.requests.get(call.clientId)! };
    } catch (error) {
      // Nothing was executed (the engine is synchronous and throws before any effect): forget the request.
      if (account.requests.get(call.clientId)?.state === 'processing') account.requests.delete(call.clientId);
      finish(this.refusal('rejected', 'internal error'));
      throw error;
    } finally {
      this.inflight.delete(inflightKey);
    }
  }

  private async execute(
    call: TradeCall,
    account: AccountState,
    processing: RequestRecord,
    operate: (account: AccountState, context: EngineContext) => OperationResult,
  ): Promise<TradeOutcome> {
    const key = account.record.key;
    // The deadline is judged on arrival: a request that reaches the server late is refused, so after the
    // deadline "not found" proves "never executed".
    if (call.deadlineUnixMs > 0 && processing.receivedAtMs > call.deadlineUnixMs) {
      return this.finish(
        account,
        processing,
        [],
        this.refusal('timeout', 'request reached the trade server after its deadline; not executed'),
      );
    }
    const fault = this.faults.take(key);
    const delayMs = fault?.delay_ms ?? this.options.latencyMs;
    if (delayMs > 0) await sleep(delayMs);

    let outcome: TradeOutcome;
    let effects: Effect[] = [];
    if (fault?.reject_code !== undefined) {
      outcome = { ...this.refusal('rejected', fault.reject_message ?? 'request rejected by the broker'), nativeCode: fault.reject_code };
    } else if (fault?.requote) {
      outcome = this.refusal('requote', 'requote: prices changed');
    } else if (fault?.market_closed) {
      outcome = this.refusal('market_closed', 'market is closed');
    } else {
      const operation = operate(account, this.context());
      outcome = operation.outcome;
      effects = operation.effects;
    }
    const done = await this.finish(account, processing, effects, outcome);
    if (fault?.hang_ms && fault.hang_ms > 0) await holdAnswer(fault.hang_ms, call.cancelled);
    return done;
  }

  private refusal(error: TradeError, message: string): TradeOutcome {
    return { ok: false, error, message, order: 0, deal: 0, position: 0, price: 0, bid: 0, ask: 0, volume: 0 };
  }

  /** Applies the effects and the request's final record in memory and waits until they are journaled. */
  private async finish(account: AccountState, processing: RequestRecord, effects: Effect[], outcome: TradeOutcome): Promise<TradeOutcome> {
    const record: RequestRecord = { ...processing, state: 'done', outcome };
    if (outcome.ok && processing.action === 'open')
      record.kind = effects.some((effect) => effect.t === 'order_set') ? 'pending' : 'position';
    const all: Effect[] = [...effects, { t: 'request', record }];
    await this.commit(account, all);
    if (outcome.ok) this.executed += 1;
    return outcome;
  }

  private async commit(account: AccountState, effects: Effect[]): Promise<void> {
    for (const effect of effects) account.apply(effect);
    const seq = account.nextSequence++;
    await this.options.journal.append({
      _id: `${account.record.key}:${seq}`,
      account: account.record.key,
      seq,
      at: this.options.clock.now(),
      effects,
    });
  }

  openOrder(call: TradeCall, request: OpenRequest) {
    return this.trade(
      call,
      'open',
      () => ({ symbol: request.symbol, ticket: 0, type: request.type, volume: request.volume, kind: '' }),
      (account, context) => openOrder(account, request, context),
    );
  }

  closePosition(call: TradeCall, ticket: number, volume: number, price: number, deviationPoints: number | undefined) {
    return this.trade(
      call,
      'close',
      (account) => {
        const position = account.positions.get(ticket);
        return {
          symbol: position?.symbol ?? '',
          ticket,
          type: position?.type ?? 0,
          volume: volume > 0 ? volume : (position?.volume ?? 0),
          kind: 'position',
        };
      },
      (account, context) => closePosition(account, { clientId: call.clientId, ticket, volume, price, deviationPoints }, context),
    );
  }

  deleteOrder(call: TradeCall, ticket: number) {
    return this.trade(
      call,
      'delete',
      (account) => {
        const order = account.orders.get(ticket);
        return { symbol: order?.symbol ?? '', ticket, type: order?.type ?? 0, volume: order?.volume ?? 0, kind: 'pending' };
      },
      (account, context) => deleteOrder(account, ticket, context),
    );
  }

  lookup(sessionId: string, clientIds: string[], prefix: string): RequestRecord[] {
    const account = this.accountOf(sessionId);
    const records: RequestRecord[] = [];
    for (const clientId of clientIds) {
      const record = account.requests.get(clientId);
      if (record) records.push(record);
    }
    if (prefix)
      for (const record of account.requests.values())
        if (record.clientId.startsWith(prefix) && !clientIds.includes(record.clientId)) records.push(record);
    return records;
  }

  /** Applies market events (triggers, stops, expirations) for every account; called on each price tick. */
  async applyMarket(): Promise<number> {
    let applied = 0;
    const commits: Promise<void>[] = [];
    for (const account of this.accounts.values()) {
      if (account.orders.size === 0 && account.positions.size === 0) continue;
      for (let guard = 0; guard < 100; guard++) {
        const effects = nextMarketEvent(account, this.context());
        if (!effects) break;
        commits.push(this.commit(account, effects));
        applied += 1;
      }
    }
    await Promise.all(commits);
    return applied;
  }

  // Control API -----------------------------------------------------------------------------------------

  private accountByKey(server: string, login: string): AccountState {
    const definition = this.serverInfo(server);
    const account = this.accounts.get(accountKey(definition.name, login));
    if (!account) throw new BrokerError('not_found', `no account ${login} on ${definition.name}`);
    return account;
  }

  setFaults(server: string, login: string, settings: FaultSettings): void {
    const definition = this.serverInfo(server);
    const key = accountKey(definition.name, login);
    this.faults.set(key, settings);
    if (settings.disconnect) this.sessions.endAccount(key);
  }

  getFaults(server: string, login: string): FaultSettings {
    return { ...(this.faults.get(accountKey(this.serverInfo(server).name, login)) ?? {}) };
  }

  async seedPosition(server: string, login: string, input: SeedPositionInput): Promise<Position> {
    const account = this.accountByKey(server, login);
    const { effects, position } = seedPositionEffects(account, input, this.context(), this.prices);
    await this.commit(account, effects);
    return position;
  }

  async seedOrder(server: string, login: string, input: SeedOrderInput): Promise<PendingOrder> {
    const account = this.accountByKey(server, login);
    const { effects, order } = seedOrderEffects(account, input, this.context());
    await this.commit(account, effects);
    return order;
  }

  accountSnapshot(server: string, login: string) {
    const account = this.accountByKey(server, login);
    return {
      server: account.record.server,
      login: account.record.login,
      platform: account.record.platform,
      margin_mode: account.record.marginMode,
      leverage: account.record.leverage,
      ...this.market.figures(account),
      positions: [...account.positions.values()],
      orders: [...account.orders.values()],
      faults: this.faults.get(account.record.key) ?? {},
      trade_requests_received: this.receivedByAccount.get(account.record.key) ?? 0,
    };
  }

  deals(server: string, login: string) {
    return this.accountByKey(server, login).deals;
  }

  requests(server: string, login: string) {
    return [...this.accountByKey(server, login).requests.values()];
  }

  stats(): BrokerStats {
    return {
      trade_requests_received: this.received,
      trade_requests_executed: this.executed,
      accounts: this.accounts.size,
      ...this.sessions.stats(),
    };
  }
}
