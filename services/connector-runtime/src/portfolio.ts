import { context, type Context } from '@opentelemetry/api';
import type {
  CloseSelectorMessage,
  OpenPositionMessage,
  PositionsReplyMessage,
  PositionsRequestMessage,
  StateReplyMessage,
  StateRequestMessage,
} from '@mtx/shared/connector/messages';
import { orderTypeName } from '@mtx/shared/trading';
import type { OpenItem } from './adapter';
import { brokerSymbolsFor } from './broker-symbols';
import type { ConnectorRuntimeOptions } from './runtime-context';
import { isNothingSent, isOutcomeUnknown, TerminalAnswerError } from './terminal-access';
import { selectMatches, selectorKind } from './selection';

/** A positions read without a selector lists every open position, as a close of `*` would take them. */
const everyPosition: CloseSelectorMessage = { symbol: '*', symbol_match: 'exact', side: 'any', kind: 'position' };

function positionOf(item: OpenItem): OpenPositionMessage {
  return {
    ticket: item.ticket,
    symbol: item.symbol,
    type: orderTypeName(item.type),
    kind: item.kind,
    volume: item.volume,
    open_price: item.openPrice,
    current_price: item.currentPrice,
    stop_loss: item.stopLoss,
    take_profit: item.takeProfit,
    profit: item.profit,
    swap: item.swap,
    magic: item.magic,
    comment: item.comment,
    opened_at_unix_ms: item.openedAtMs,
  };
}

/**
 * What a terminal reads for the portfolio views: the open items a selector matches (through the same selection
 * as a close, so a read lists exactly what the close would take, in its order) and the account's figures. Reads
 * only: nothing here is claimed or sent as a trade.
 */
export class Portfolio {
  constructor(private readonly options: ConnectorRuntimeOptions) {}

  /** A read never waits past the requester's deadline, nor longer than a trade server read may take. */
  private readDeadlineMs(deadlineUnixMs: number): number {
    const configured = this.options.config.BROKER_READ_DEADLINE_MS;
    return deadlineUnixMs > 0 ? Math.max(1, Math.min(configured, deadlineUnixMs - Date.now())) : configured;
  }

  async positions(request: PositionsRequestMessage, traceContext: Context = context.active()): Promise<PositionsReplyMessage> {
    const startedMs = Date.now();
    const reply = (status: PositionsReplyMessage['status'], message: string, positions: OpenPositionMessage[] = []) => ({
      account_id: request.account_id,
      status,
      message,
      positions,
      latency_ms: Date.now() - startedMs,
    });
    if (request.deadline_unix_ms > 0 && startedMs > request.deadline_unix_ms)
      return reply('unavailable', 'not read: the request reached the terminal after its deadline');
    const selector = request.selector ?? everyPosition;
    try {
      const items = await this.options.terminals.withTerminal(
        request.account_id,
        async (terminal) => {
          const open = await this.options.adapter.listOpen(terminal, selectorKind(selector), this.readDeadlineMs(request.deadline_unix_ms));
          const broker = await brokerSymbolsFor(
            this.options.adapter,
            terminal,
            selector,
            open,
            this.readDeadlineMs(request.deadline_unix_ms),
            request.symbol_suffix ?? '',
          );
          return selectMatches(open, selector, broker);
        },
        traceContext,
      );
      return reply('ok', '', items.map(positionOf));
    } catch (error) {
      if (isNothingSent(error)) return reply('unavailable', error.message);
      if (isOutcomeUnknown(error) || error instanceof TerminalAnswerError)
        return reply('unavailable', `the terminal did not answer the read (${error.message})`);
      throw error;
    }
  }

  async state(request: StateRequestMessage, traceContext: Context = context.active()): Promise<StateReplyMessage> {
    const startedMs = Date.now();
    const disconnected = (reason: string, message: string): StateReplyMessage => ({
      account_id: request.account_id,
      connected: false,
      reason,
      message,
      server: '',
      currency: '',
      leverage: 0,
      balance: 0,
      equity: 0,
      margin: 0,
      free_margin: 0,
      margin_level: 0,
      profit: 0,
      server_time_unix_ms: 0,
      margin_mode: '',
      trade_allowed: false,
      latency_ms: Date.now() - startedMs,
    });
    try {
      const info = await this.options.terminals.withTerminal(
        request.account_id,
        (terminal) => this.options.adapter.accountInfo(terminal, this.options.config.BROKER_READ_DEADLINE_MS),
        traceContext,
      );
      return {
        account_id: request.account_id,
        connected: true,
        reason: '',
        message: '',
        server: info.server,
        currency: info.currency,
        leverage: info.leverage,
        balance: info.balance,
        equity: info.equity,
        margin: info.margin,
        free_margin: info.freeMargin,
        margin_level: info.marginLevel,
        profit: info.profit,
        server_time_unix_ms: info.serverTimeMs,
        margin_mode: info.marginMode,
        trade_allowed: info.tradeAllowed,
        latency_ms: Date.now() - startedMs,
      };
    } catch (error) {
      if (isNothingSent(error)) return disconnected('no_connection', error.message);
      if (isOutcomeUnknown(error) || error instanceof TerminalAnswerError)
        return disconnected('no_connection', `the terminal did not answer (${error.message})`);
      throw error;
    }
  }
}
