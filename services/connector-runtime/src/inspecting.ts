import { context, type Context } from '@opentelemetry/api';
import type { InspectReply__Output } from '@mtx/shared/generated/proto/mtx/connector/v1/InspectReply';
import type { InspectRequest__Output } from '@mtx/shared/generated/proto/mtx/connector/v1/InspectRequest';
import type { MarginCheck__Output } from '@mtx/shared/generated/proto/mtx/connector/v1/MarginCheck';
import type { MarginResult__Output } from '@mtx/shared/generated/proto/mtx/connector/v1/MarginResult';
import type { SymbolSpecification__Output } from '@mtx/shared/generated/proto/mtx/connector/v1/SymbolSpecification';
import { brokerSymbols, normalizeOperation, orderTypeNumber, retcode, symbolMatches } from '@mtx/shared/trading';
import { decodeList } from './bridge/lists';
import { mt4ErrorToRetcode } from './mt4-errors';
import type { ConnectorRuntimeOptions } from './runtime-context';
import { isNothingSent, isOutcomeUnknown, TerminalAnswerError, type TerminalHandle } from './terminal-access';
import { decimalField, integerField, requestArguments, textField } from './terminal-fields';

/** Names a request may ask about at once: a batch has at most 20 legs, each with one symbol and one margin check. */
const namesMax = 40;

/**
 * The pre-trade reads of a batch (proto/connector/v1/inspect.proto): the account's figures, its open positions,
 * symbol specifications, the broker symbols a `base` name could mean, and the margin orders would need. Reads
 * only; nothing here is claimed or sent as a trade, so a failed read costs nothing but the leg that needed it.
 */
export class Inspecting {
  constructor(private readonly options: ConnectorRuntimeOptions) {}

  private readDeadlineMs(deadlineUnixMs: number): number {
    const configured = this.options.config.BROKER_READ_DEADLINE_MS;
    return deadlineUnixMs > 0 ? Math.max(1, Math.min(configured, deadlineUnixMs - Date.now())) : configured;
  }

  async inspect(request: InspectRequest__Output, traceContext: Context = context.active()): Promise<InspectReply__Output> {
    const startedMs = Date.now();
    const reply: InspectReply__Output = {
      account_id: request.account_id,
      status: 'ok',
      message: '',
      account: null,
      positions: [],
      symbols: [],
      bases: [],
      margins: [],
      latency_ms: 0,
    };
    const unavailable = (message: string) => ({ ...reply, status: 'unavailable', message, latency_ms: Date.now() - startedMs });
    if (request.deadline_unix_ms > 0 && startedMs > request.deadline_unix_ms)
      return unavailable('not read: the request reached the terminal after its deadline');
    if (request.symbols.length + request.bases.length > namesMax || request.margin_checks.length > namesMax)
      return unavailable(`not read: at most ${namesMax} symbols and ${namesMax} margin checks a request`);
    const deadline = () => this.readDeadlineMs(request.deadline_unix_ms);
    try {
      await this.options.terminals.withTerminal(
        request.account_id,
        async (terminal) => {
          if (request.account) {
            const info = await this.options.adapter.accountInfo(terminal, deadline());
            reply.account = {
              currency: info.currency,
              balance: info.balance,
              equity: info.equity,
              free_margin: info.freeMargin,
              margin_mode: info.marginMode,
            };
          }
          if (request.positions) {
            const open = await this.options.adapter.listOpen(terminal, 'position', deadline());
            reply.positions = open.map((item) => ({
              ticket: item.ticket,
              symbol: item.symbol,
              type: item.type === 0 ? 'buy' : 'sell',
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
            }));
          }
          for (const name of new Set(request.symbols)) {
            const specification = await symbolSpecification(terminal, name, deadline());
            if (specification) reply.symbols.push(specification);
          }
          for (const base of new Set(request.bases)) {
            const names = await baseCandidates(terminal, base, request.symbol_suffix, deadline());
            const candidates: SymbolSpecification__Output[] = [];
            for (const name of names) {
              const specification = await symbolSpecification(terminal, name, deadline());
              if (specification) candidates.push(specification);
            }
            reply.bases.push({ base, candidates });
          }
          for (const check of request.margin_checks)
            reply.margins.push(await marginCheck(terminal, this.options.adapter.platform, check, deadline()));
        },
        traceContext,
      );
      return { ...reply, latency_ms: Date.now() - startedMs };
    } catch (error) {
      if (isNothingSent(error)) return unavailable(error.message);
      if (isOutcomeUnknown(error) || error instanceof TerminalAnswerError)
        return unavailable(`the terminal did not answer a pre-trade read (${error.message})`);
      throw error;
    }
  }
}

/** A symbol's specification (`symbol`), or undefined when the trade server does not list it. */
async function symbolSpecification(
  terminal: TerminalHandle,
  name: string,
  deadlineMs: number,
): Promise<SymbolSpecification__Output | undefined> {
  try {
    const fields = await terminal.request('symbol', [['symbol', name]], deadlineMs);
    return {
      name: textField(fields, 'symbol') || name,
      tick_size: decimalField(fields, 'tick_size'),
      tick_value: decimalField(fields, 'tick_value'),
      volume_min: decimalField(fields, 'volume_min'),
      volume_max: decimalField(fields, 'volume_max'),
      volume_step: decimalField(fields, 'volume_step'),
      bid: decimalField(fields, 'bid'),
      ask: decimalField(fields, 'ask'),
    };
  } catch (error) {
    if (error instanceof TerminalAnswerError && error.error === 'bad_request') return undefined;
    throw error;
  }
}

/**
 * Every broker symbol the close selector's `base` rule accepts for `base` (the one rule, `symbolMatches`), from the
 * server's symbol list (`symbols` with the base as prefix). An EA without `symbols` answers `unsupported`; then
 * the candidates are the names `symbol` confirms: the base and the base with the account's suffix.
 */
async function baseCandidates(terminal: TerminalHandle, base: string, suffix: string, deadlineMs: number): Promise<string[]> {
  let names: string[];
  try {
    const fields = await terminal.request('symbols', [['prefix', base]], deadlineMs);
    names = decodeList(fields, 'symbols').map((item) => textField(item, 'name'));
  } catch (error) {
    if (!(error instanceof TerminalAnswerError && error.error === 'unsupported')) throw error;
    const probed = await Promise.all(
      [...new Set([base, `${base}${suffix}`])].map(async (name) => ((await symbolSpecification(terminal, name, deadlineMs)) ? name : '')),
    );
    names = probed.filter((name) => name !== '');
  }
  const broker = brokerSymbols({ symbol_suffix: suffix, symbols: names });
  return names.filter((name) => symbolMatches(name, base, 'base', broker));
}

/** The margin an order needs and the free margin after it (`check`), the platform's answer mapped to a retcode. */
async function marginCheck(
  terminal: TerminalHandle,
  platform: 'mt4' | 'mt5',
  check: MarginCheck__Output,
  deadlineMs: number,
): Promise<MarginResult__Output> {
  const operation = normalizeOperation(check.operation);
  const type = operation ? orderTypeNumber[operation] : 0;
  try {
    if (platform === 'mt4') {
      // MT4's check knows only the side (`op` 0 or 1); a pending order needs the margin of its side.
      const fields = await terminal.request(
        'check',
        requestArguments({ symbol: check.symbol, op: type % 2, volume: check.volume }),
        deadlineMs,
      );
      const error = integerField(fields, 'error');
      return {
        margin: decimalField(fields, 'margin'),
        margin_free: decimalField(fields, 'margin_free'),
        retcode: error === 0 ? 0 : mt4ErrorToRetcode(error),
        message: '',
      };
    }
    const fields = await terminal.request(
      'check',
      requestArguments({ symbol: check.symbol, type, volume: check.volume, price: check.price ?? undefined }),
      deadlineMs,
    );
    return {
      margin: decimalField(fields, 'margin'),
      margin_free: decimalField(fields, 'margin_free'),
      retcode: integerField(fields, 'retcode'),
      message: textField(fields, 'comment'),
    };
  } catch (error) {
    if (error instanceof TerminalAnswerError && error.error === 'bad_request')
      return { margin: 0, margin_free: 0, retcode: retcode.INVALID, message: error.message };
    throw error;
  }
}
