import { context, type Context } from '@opentelemetry/api';
import type { CloseAccountStatus, CloseReplyMessage, CloseRequestMessage, TicketResultMessage } from '@mtx/shared/connector/messages';
import { retcode, retcodeDescription, roundVolumeDown } from '@mtx/shared/trading';
import type { OpenItem, SymbolDetails } from './adapter';
import { claimKeyPattern } from './claims';
import type { MessageClaim } from './message-claim';
import { ticketResult } from './results';
import { duplicatePollMs, sleep, type ConnectorRuntimeOptions, type RuntimeShared } from './runtime-context';
import { isNothingSent, isOutcomeUnknown, TerminalAnswerError, type TerminalHandle } from './terminal-access';
import { closeAccountStatus, ticketClosedBy } from './selection';
import { lookUpTargets, perAccountCap } from './targets';

/**
 * Closing by selector or tickets: one lookup of the account's open orders, the matches in ticket order up to the
 * cap, partial volumes rounded to the symbol's step, one claim for the message, each close sent at once; a message
 * claimed before is answered from the trade server's records.
 */
export class Closing {
  private readonly symbolCache = new Map<string, { details: SymbolDetails; expiresAtMs: number }>();

  constructor(
    private readonly options: ConnectorRuntimeOptions,
    private readonly shared: RuntimeShared,
  ) {}

  private async symbolDetails(terminal: TerminalHandle, symbol: string): Promise<SymbolDetails> {
    const key = `${terminal.accountId}|${symbol}`;
    const cached = this.symbolCache.get(key);
    if (cached && cached.expiresAtMs > Date.now()) return cached.details;
    const details = await this.options.adapter.symbol(terminal, symbol, this.options.config.BROKER_READ_DEADLINE_MS);
    if (!details) throw new TerminalAnswerError('symbol', 'bad_request', `the trade server does not list ${symbol}`);
    if (this.symbolCache.size > 10_000) this.symbolCache.clear();
    this.symbolCache.set(key, { details, expiresAtMs: Date.now() + 60_000 });
    return details;
  }

  async close(request: CloseRequestMessage, traceContext: Context = context.active()): Promise<CloseReplyMessage> {
    const startedMs = Date.now();
    const { config } = this.options;
    const reply = (status: CloseAccountStatus, message: string, results: TicketResultMessage[] = []): CloseReplyMessage => ({
      account_id: request.account_id,
      status,
      matched: results.length,
      closed: results.filter((result) => result.status === 'closed').length,
      message,
      results,
      latency_ms: Date.now() - startedMs,
    });
    if (!claimKeyPattern.test(request.client_id_base))
      return reply('failed', `client id base ${JSON.stringify(request.client_id_base)} is malformed; nothing sent`);
    if (request.deadline_unix_ms > 0 && startedMs > request.deadline_unix_ms)
      return reply('failed', 'nothing sent: the request reached the terminal after its deadline');

    if (!request.tickets.length && !request.selector) return reply('failed', 'neither a selector nor tickets were given; nothing sent');
    let items: OpenItem[];
    let missing: number[];
    try {
      ({ items, missing } = await lookUpTargets(this.options, request, traceContext));
    } catch (error) {
      // Nothing was closed yet: whatever failed here was a read.
      if (isNothingSent(error)) return reply('unavailable', `nothing sent: ${error.message}`);
      if (isOutcomeUnknown(error) || error instanceof TerminalAnswerError)
        return reply('unavailable', `nothing sent: the terminal did not answer the lookup (${error.message})`);
      throw error;
    }

    const cap = perAccountCap(request.closes_max, config.CONNECTOR_CLOSES_PER_ACCOUNT_MAX);
    // One claim for the account's closes in this message (its client id base), taken when the first close is sent.
    const claim = this.shared.claimFor(request.client_id_base, request.deadline_unix_ms, traceContext);
    const results: TicketResultMessage[] = new Array(items.length);
    await Promise.all(
      items.map(async (item, index) => {
        const clientId = `${request.client_id_base}-t${item.ticket}`;
        if (index >= cap) {
          // Not sent: the request's own per-account cap, named as the trade server names a limit of orders.
          results[index] = ticketResult(
            item,
            'skipped',
            `not closed: more than ${cap} orders matched on this account`,
            clientId,
            undefined,
            retcode.LIMIT_ORDERS,
            item.volume,
          );
          return;
        }
        results[index] = await this.closeItem(request, item, clientId, claim, traceContext);
      }),
    );
    for (const ticket of missing) {
      results.push({
        ticket,
        symbol: '',
        type: '',
        kind: '',
        volume: 0,
        status: 'failed',
        retcode: retcode.INVALID,
        retcode_description: retcodeDescription(retcode.INVALID),
        message: `no open position or pending order with ticket ${ticket}; nothing sent`,
        client_id: `${request.client_id_base}-t${ticket}`,
      });
    }
    const status = closeAccountStatus(results);
    const skipped = results.filter((result) => result.status === 'skipped').length;
    const message =
      status === 'nothing_matched'
        ? 'no open order matched'
        : skipped > 0
          ? `${skipped} matched order(s) over the cap of ${cap} were skipped`
          : '';
    return reply(status, message, results);
  }

  private async closeItem(
    request: CloseRequestMessage,
    item: OpenItem,
    clientId: string,
    claim: MessageClaim,
    traceContext: Context,
  ): Promise<TicketResultMessage> {
    const { config } = this.options;
    let volume = 0;
    try {
      if (item.kind === 'position' && request.volume !== undefined && request.volume !== null && request.volume > 0) {
        const details = await this.options.terminals.withTerminal(
          request.account_id,
          (terminal) => this.symbolDetails(terminal, item.symbol),
          traceContext,
        );
        const rounded = roundVolumeDown(Math.min(request.volume, item.volume), details.volumeStep);
        if (rounded < details.volumeMin - 1e-9) {
          return ticketResult(
            item,
            'failed',
            `partial volume ${request.volume} rounds down to ${rounded} at step ${details.volumeStep}, below the minimum ${details.volumeMin}; not sent`,
            clientId,
            undefined,
            retcode.INVALID_VOLUME,
            0,
          );
        }
        const remainder = roundVolumeDown(item.volume - rounded, details.volumeStep);
        if (remainder > 1e-9 && remainder < details.volumeMin - 1e-9) {
          return ticketResult(
            item,
            'failed',
            `closing ${rounded} of ${item.volume} would leave ${remainder}, below the minimum ${details.volumeMin}; not sent`,
            clientId,
            undefined,
            retcode.INVALID_VOLUME,
            0,
          );
        }
        volume = rounded >= item.volume - 1e-9 ? 0 : rounded;
      }
    } catch (error) {
      if (isNothingSent(error) || isOutcomeUnknown(error) || error instanceof TerminalAnswerError)
        return ticketResult(
          item,
          'failed',
          `not sent: symbol details unavailable (${error.message})`,
          clientId,
          undefined,
          retcode.CONNECTION,
          0,
        );
      throw error;
    }
    if (request.deadline_unix_ms > 0 && Date.now() > request.deadline_unix_ms) {
      return ticketResult(
        item,
        'failed',
        'not sent: the request expired before this close could be sent',
        clientId,
        undefined,
        retcode.TIMEOUT,
        0,
      );
    }
    const claimed = await claim.state();
    if (claimed === 'unavailable')
      return ticketResult(
        item,
        'failed',
        'not sent: the connector could not record the close id (claim store unavailable)',
        clientId,
        undefined,
        retcode.CONNECTION,
        0,
      );
    if (claimed === 'duplicate') return this.resolveDuplicateClose(request, item, clientId, traceContext);
    try {
      const outcome = await this.options.terminals.withTerminal(
        request.account_id,
        (terminal) =>
          this.options.adapter.close(terminal, item, {
            clientId,
            volume,
            slippagePoints: request.slippage ?? undefined,
            // Not started after the requester's deadline (so "not found" later means "never executed"), but
            // awaited for the configured bound, so an answer that comes late still reaches the requester.
            callDeadlineMs: config.BROKER_CALL_DEADLINE_MS,
            fenceUnixMs: request.deadline_unix_ms,
          }),
        traceContext,
      );
      const closed = ticketClosedBy(outcome.retcode);
      return ticketResult(item, closed ? 'closed' : 'failed', closed ? '' : outcome.message, clientId, outcome);
    } catch (error) {
      if (isNothingSent(error))
        return ticketResult(item, 'failed', `not sent: ${error.message}`, clientId, undefined, retcode.CONNECTION, 0);
      if (isOutcomeUnknown(error))
        return ticketResult(item, 'unknown', `sent, but the terminal did not answer (${error.message}); it may have executed`, clientId);
      // The EA answered status=error: the close did not run.
      if (error instanceof TerminalAnswerError) {
        const code = error.error === 'not_found' ? retcode.INVALID : error.error === 'expired' ? retcode.TIMEOUT : retcode.CONNECTION;
        return ticketResult(item, 'failed', `not closed: ${error.message}`, clientId, undefined, code, 0);
      }
      throw error;
    }
  }

  private async resolveDuplicateClose(
    request: CloseRequestMessage,
    item: OpenItem,
    clientId: string,
    traceContext: Context,
  ): Promise<TicketResultMessage> {
    const waitUntilMs = Math.max(request.deadline_unix_ms, Date.now());
    for (;;) {
      try {
        const records = await this.options.terminals.withTerminal(
          request.account_id,
          (terminal) => this.options.adapter.lookup(terminal, [clientId], this.options.config.BROKER_READ_DEADLINE_MS),
          traceContext,
        );
        const record = records.find((entry) => entry.clientId === clientId);
        if (record?.state === 'done' && record.outcome) {
          const closed = ticketClosedBy(record.outcome.retcode);
          return ticketResult(
            item,
            closed ? 'closed' : 'failed',
            'duplicate request: this is the outcome of the original close, which was not sent again',
            clientId,
            record.outcome,
          );
        }
      } catch (error) {
        if (!isNothingSent(error) && !isOutcomeUnknown(error) && !(error instanceof TerminalAnswerError)) throw error;
      }
      if (Date.now() + duplicatePollMs > waitUntilMs) break;
      await sleep(duplicatePollMs);
    }
    return ticketResult(item, 'unknown', 'duplicate request: the original close is still executing; not sent again', clientId);
  }
}
