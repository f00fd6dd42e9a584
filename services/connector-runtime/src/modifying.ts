import { context, type Context } from '@opentelemetry/api';
import type {
  ModifyAccountStatus,
  ModifyChangeMessage,
  ModifyReplyMessage,
  ModifyRequestMessage,
  ModifyTicketResultMessage,
  ModifyTicketStatus,
} from '@mtx/shared/connector/desk-messages';
import { orderTypeName, retcode, retcodeDescription } from '@mtx/shared/trading';
import type { ModifyValues, OpenItem, TradeOutcome } from './adapter';
import { claimKeyPattern } from './claims';
import type { MessageClaim } from './message-claim';
import type { ConnectorRuntimeOptions, RuntimeShared } from './runtime-context';
import { lookUpTargets, perAccountCap } from './targets';
import { isNothingSent, isOutcomeUnknown, TerminalAnswerError } from './terminal-access';

const present = (value: number | null | undefined): value is number => value !== undefined && value !== null;

/** What the change sets on this item: stops on anything, price and expiration on pending orders only. */
export function valuesFor(item: OpenItem, change: ModifyChangeMessage): ModifyValues {
  const values: ModifyValues = {};
  if (present(change.stop_loss)) values.stopLoss = change.stop_loss;
  if (present(change.take_profit)) values.takeProfit = change.take_profit;
  if (item.kind === 'pending') {
    if (present(change.price)) values.price = change.price;
    if (present(change.expiration_unix_ms)) values.expirationUnixMs = Number(change.expiration_unix_ms);
  }
  return values;
}

/** Whether the item already holds every value the change sets (a duplicate's original took effect). */
function holds(item: OpenItem, values: ModifyValues): boolean {
  const same = (wanted: number | undefined, current: number) => wanted === undefined || Math.abs(wanted - current) < 1e-9;
  return same(values.stopLoss, item.stopLoss) && same(values.takeProfit, item.takeProfit) && same(values.price, item.openPrice);
}

function ticketOutcome(
  item: OpenItem,
  status: ModifyTicketStatus,
  message: string,
  code: number,
  values: ModifyValues = {},
): ModifyTicketResultMessage {
  const applied = status === 'modified';
  return {
    ticket: item.ticket,
    symbol: item.symbol,
    type: orderTypeName(item.type),
    kind: item.kind,
    status,
    retcode: code,
    retcode_description: code ? retcodeDescription(code) : '',
    stop_loss: applied && values.stopLoss !== undefined ? values.stopLoss : item.stopLoss,
    take_profit: applied && values.takeProfit !== undefined ? values.takeProfit : item.takeProfit,
    price: applied && values.price !== undefined ? values.price : item.openPrice,
    message,
  };
}

/**
 * Modifying by selector or tickets: the close's lookup (targets.ts) and per-account cap, one claim for the
 * message taken before the first modify is sent, each modify sent at once. A modify carries no client id to the
 * trade server (MT sends no comment with it), so a message claimed before sends nothing and answers from the
 * values the lookup found: `modified` when they are the ones asked for, else `unknown`.
 */
export class Modifying {
  constructor(
    private readonly options: ConnectorRuntimeOptions,
    private readonly shared: RuntimeShared,
  ) {}

  async modify(request: ModifyRequestMessage, traceContext: Context = context.active()): Promise<ModifyReplyMessage> {
    const startedMs = Date.now();
    const { config } = this.options;
    const reply = (status: ModifyAccountStatus, message: string, results: ModifyTicketResultMessage[] = []): ModifyReplyMessage => ({
      account_id: request.account_id,
      status,
      matched: results.length,
      modified: results.filter((result) => result.status === 'modified').length,
      message,
      results,
      latency_ms: Date.now() - startedMs,
    });
    const tickets = request.tickets.map(Number);
    if (!claimKeyPattern.test(request.client_id_base))
      return reply('unavailable', `client id base ${JSON.stringify(request.client_id_base)} is malformed; nothing sent`);
    if (request.deadline_unix_ms > 0 && startedMs > request.deadline_unix_ms)
      return reply('unavailable', 'nothing sent: the request reached the terminal after its deadline');
    if (!tickets.length && !request.selector) return reply('unavailable', 'neither a selector nor tickets were given; nothing sent');

    let items: OpenItem[];
    let missing: number[];
    try {
      ({ items, missing } = await lookUpTargets(
        this.options,
        { account_id: request.account_id, tickets, selector: request.selector, symbol_suffix: request.symbol_suffix },
        traceContext,
      ));
    } catch (error) {
      if (isNothingSent(error)) return reply('unavailable', `nothing sent: ${error.message}`);
      if (isOutcomeUnknown(error) || error instanceof TerminalAnswerError)
        return reply('unavailable', `nothing sent: the terminal did not answer the lookup (${error.message})`);
      throw error;
    }

    const cap = perAccountCap(request.modifies_max, config.CONNECTOR_CLOSES_PER_ACCOUNT_MAX);
    const claim = this.shared.claimFor(request.client_id_base, request.deadline_unix_ms, traceContext);
    const change = request.change ?? {};
    const results = await Promise.all(
      items.map((item, index) => {
        if (index >= cap)
          return ticketOutcome(item, 'skipped', `not modified: more than ${cap} orders matched on this account`, retcode.LIMIT_ORDERS);
        return this.modifyItem(request, item, valuesFor(item, change), claim, traceContext);
      }),
    );
    for (const ticket of missing) {
      results.push({
        ticket,
        symbol: '',
        type: '',
        kind: '',
        status: 'rejected',
        retcode: retcode.INVALID,
        retcode_description: retcodeDescription(retcode.INVALID),
        stop_loss: 0,
        take_profit: 0,
        price: 0,
        message: `no open position or pending order with ticket ${ticket}; nothing sent`,
      });
    }
    if (results.length === 0) return reply('nothing_matched', 'no open order matched');
    const unknown = results.some((result) => result.status === 'unknown');
    const skipped = results.filter((result) => result.status === 'skipped').length;
    return reply(
      unknown ? 'unknown' : 'modified',
      skipped > 0 ? `${skipped} matched order(s) over the cap of ${cap} were skipped` : '',
      results,
    );
  }

  private async modifyItem(
    request: ModifyRequestMessage,
    item: OpenItem,
    values: ModifyValues,
    claim: MessageClaim,
    traceContext: Context,
  ): Promise<ModifyTicketResultMessage> {
    if (
      values.stopLoss === undefined &&
      values.takeProfit === undefined &&
      values.price === undefined &&
      values.expirationUnixMs === undefined
    )
      return ticketOutcome(
        item,
        'rejected',
        'not sent: price and expiration apply to pending orders only, and this is a position',
        retcode.INVALID,
      );
    if (request.deadline_unix_ms > 0 && Date.now() > request.deadline_unix_ms)
      return ticketOutcome(item, 'rejected', 'not sent: the request expired before this modify could be sent', retcode.TIMEOUT);
    const claimed = await claim.state();
    if (claimed === 'unavailable')
      return ticketOutcome(
        item,
        'rejected',
        'not sent: the connector could not record the request (claim store unavailable)',
        retcode.CONNECTION,
      );
    if (claimed === 'duplicate') {
      return holds(item, values)
        ? ticketOutcome(item, 'modified', 'duplicate request: the original modify set these values; not sent again', retcode.DONE, values)
        : ticketOutcome(item, 'unknown', 'duplicate request: the original modify has not taken effect (yet); not sent again', 0);
    }
    let outcome: TradeOutcome;
    try {
      outcome = await this.options.terminals.withTerminal(
        request.account_id,
        (terminal) =>
          this.options.adapter.modify(terminal, item, values, {
            callDeadlineMs: this.options.config.BROKER_CALL_DEADLINE_MS,
            fenceUnixMs: Number(request.deadline_unix_ms),
          }),
        traceContext,
      );
    } catch (error) {
      if (isNothingSent(error)) return ticketOutcome(item, 'rejected', `not sent: ${error.message}`, retcode.CONNECTION);
      if (isOutcomeUnknown(error))
        return ticketOutcome(item, 'unknown', `sent, but the terminal did not answer (${error.message}); it may have taken effect`, 0);
      if (error instanceof TerminalAnswerError) {
        const code = error.error === 'not_found' ? retcode.INVALID : error.error === 'expired' ? retcode.TIMEOUT : retcode.CONNECTION;
        return ticketOutcome(item, 'rejected', `not modified: ${error.message}`, code);
      }
      throw error;
    }
    const done = outcome.retcode === retcode.DONE || outcome.retcode === retcode.PLACED;
    return ticketOutcome(item, done ? 'modified' : 'rejected', done ? '' : outcome.message, outcome.retcode, values);
  }
}
