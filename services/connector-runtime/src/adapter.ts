import type { Context } from '@opentelemetry/api';
import type { BrokerClient, BrokerSession } from './broker-client';
import type { OrderLegMessage } from '@mtx/shared/connector/messages';

/**
 * What a platform (MT4, MT5) must provide to the connector runtime. Results are already expressed as MT5
 * retcodes; the runtime turns them into statuses, applies selectors, caps, claims and deadlines.
 */

/** An open position or pending order, normalised across platforms. */
export interface OpenItem {
  ticket: number;
  symbol: string;
  /** ORDER_TYPE_* number: 0 buy, 1 sell, 2..7 pending types. */
  type: number;
  kind: 'position' | 'pending';
  volume: number;
  magic: number;
  /** Open price of a position; the order price of a pending order. */
  openPrice: number;
  /** The price it would close at now (a position), or the price it triggers on (a pending order). */
  currentPrice: number;
  stopLoss: number;
  takeProfit: number;
  /** Floating profit in the account currency, without swap; 0 for a pending order. */
  profit: number;
  /** Swap accrued since it opened; 0 for a pending order. */
  swap: number;
  comment: string;
  /** When the position opened or the order was placed (unix ms; the terminal reports seconds). */
  openedAtMs: number;
}

export interface TradeOutcome {
  retcode: number;
  order: number;
  deal: number;
  price: number;
  bid: number;
  ask: number;
  volume: number;
  message: string;
}

export interface BrokerRecord {
  clientId: string;
  state: 'processing' | 'done';
  action: 'open' | 'close' | 'delete';
  symbol: string;
  ticket: number;
  type: number;
  volume: number;
  kind: 'position' | 'pending' | '';
  outcome?: TradeOutcome;
}

export interface AccountInfo {
  server: string;
  currency: string;
  leverage: number;
  balance: number;
  equity: number;
  margin: number;
  freeMargin: number;
  marginLevel: number;
  profit: number;
  serverTimeMs: number;
  marginMode: string;
  tradeAllowed: boolean;
}

export interface SymbolDetails {
  name: string;
  volumeMin: number;
  volumeMax: number;
  volumeStep: number;
}

export interface PlatformAdapter {
  readonly platform: 'mt4' | 'mt5';
  /** Sends one order; `clientId` and `deadlineUnixMs` travel with it so the server dedups and fences. */
  place(
    session: BrokerSession,
    leg: OrderLegMessage,
    options: { deadlineUnixMs: number; callDeadlineMs: number; defaultSlippagePoints: number },
  ): Promise<TradeOutcome>;
  listOpen(session: BrokerSession, kind: 'position' | 'pending' | 'any', callDeadlineMs: number): Promise<OpenItem[]>;
  getTicket(session: BrokerSession, ticket: number, callDeadlineMs: number): Promise<OpenItem | undefined>;
  /** Closes a position (volume 0: whole) or deletes a pending order. */
  close(
    session: BrokerSession,
    item: OpenItem,
    options: { clientId: string; volume: number; slippagePoints: number | undefined; deadlineUnixMs: number; callDeadlineMs: number },
  ): Promise<TradeOutcome>;
  lookup(session: BrokerSession, clientIds: string[], prefix: string, callDeadlineMs: number): Promise<BrokerRecord[]>;
  symbol(session: BrokerSession, name: string, callDeadlineMs: number): Promise<SymbolDetails>;
  ping(session: BrokerSession, callDeadlineMs: number): Promise<boolean>;
  /** The account's figures now (AccountInfoDouble / AccountInfoInteger on a terminal). */
  accountInfo(session: BrokerSession, callDeadlineMs: number): Promise<AccountInfo>;
  /** Trade servers of this platform the terminals can reach. */
  servers(
    callDeadlineMs: number,
    traceContext?: Context,
  ): Promise<Array<{ name: string; platform: string; broker: string; symbol_suffix: string; margin_mode: string }>>;
}

export type AdapterFactory = (client: BrokerClient) => PlatformAdapter;

/**
 * What both platforms ask broker-sim the same way (symbol details, the server list, session liveness); each
 * adapter adds only its own order model.
 */
export abstract class BrokerAdapterBase {
  abstract readonly platform: 'mt4' | 'mt5';

  constructor(protected readonly client: BrokerClient) {}

  async symbol(session: BrokerSession, name: string, callDeadlineMs: number): Promise<SymbolDetails> {
    const info = await this.client.call<{ name: string; volume_min: number; volume_max: number; volume_step: number }>(
      'GetSymbol',
      { session_id: session.sessionId, symbol: name },
      callDeadlineMs,
      session.traceContext,
    );
    return { name: info.name, volumeMin: info.volume_min, volumeMax: info.volume_max, volumeStep: info.volume_step };
  }

  async servers(callDeadlineMs: number, traceContext?: Context) {
    const response = await this.client.call<{
      servers: Array<{ name: string; platform: string; broker: string; symbol_suffix: string; margin_mode: string }>;
    }>('ListServers', {}, callDeadlineMs, traceContext);
    return response.servers
      .filter((server) => server.platform === this.platform)
      .map(({ name, platform, broker, symbol_suffix, margin_mode }) => ({ name, platform, broker, symbol_suffix, margin_mode }));
  }

  async accountInfo(session: BrokerSession, callDeadlineMs: number): Promise<AccountInfo> {
    const info = await this.client.call<{
      server: string;
      currency: string;
      leverage: number;
      balance: number;
      equity: number;
      margin: number;
      free_margin: number;
      margin_level: number;
      profit: number;
      server_time_unix_ms: number;
      margin_mode: string;
      trade_allowed: boolean;
    }>('AccountInfo', { session_id: session.sessionId }, callDeadlineMs, session.traceContext);
    return {
      server: info.server,
      currency: info.currency,
      leverage: info.leverage,
      balance: info.balance,
      equity: info.equity,
      margin: info.margin,
      freeMargin: info.free_margin,
      marginLevel: info.margin_level,
      profit: info.profit,
      serverTimeMs: Number(info.server_time_unix_ms),
      marginMode: info.margin_mode,
      tradeAllowed: info.trade_allowed,
    };
  }

  async ping(session: BrokerSession, callDeadlineMs: number): Promise<boolean> {
    const response = await this.client.call<{ connected: boolean }>(
      'Ping',
      { session_id: session.sessionId },
      callDeadlineMs,
      session.traceContext,
    );
    return response.connected;
  }
}
