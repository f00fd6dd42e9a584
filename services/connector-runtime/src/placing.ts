import { context, type Context } from '@opentelemetry/api';
import type { LegResultMessage, OrderLegMessage, PlaceReplyMessage, PlaceRequestMessage } from '@mtx/shared/connector/messages';
import { isPendingOperation, isStopLimitOperation, normalizeOperation, retcode } from '@mtx/shared/trading';
import { claimKeyPattern } from './claims';
import { placeMessageClaimKey, type MessageClaim } from './message-claim';
import { legResult, outcomeResult } from './results';
import { duplicatePollMs, sleep, type ConnectorRuntimeOptions, type RuntimeShared } from './runtime-context';
import { isNothingSent, isOutcomeUnknown, TerminalAnswerError } from './terminal-access';

/**
 * Placing an account's legs: each checked locally, the message claimed once, every leg sent to the trade server
 * at once; a message claimed before is answered from the trade server's record, never sent again.
 */
export class Placing {
  constructor(
    private readonly options: ConnectorRuntimeOptions,
    private readonly shared: RuntimeShared,
  ) {}

  async place(request: PlaceRequestMessage, traceContext: Context = context.active()): Promise<PlaceReplyMessage> {
    const absent = this.options.terminals.isAttached(request.account_id)
      ? undefined
      : `no terminal of account ${request.account_id} is attached to this connector`;
    const messageKey = placeMessageClaimKey(request);
    const messageClaim = messageKey ? this.shared.claimFor(messageKey, request.deadline_unix_ms, traceContext) : undefined;
    const results = await Promise.all(
      request.legs.map((leg) =>
        this.placeLeg(
          request,
          leg,
          absent,
          messageClaim ?? this.shared.claimFor(leg.client_id, request.deadline_unix_ms, traceContext),
          traceContext,
        ),
      ),
    );
    return { account_id: request.account_id, results };
  }

  private async placeLeg(
    request: PlaceRequestMessage,
    leg: OrderLegMessage,
    absent: string | undefined,
    claim: MessageClaim,
    traceContext: Context,
  ): Promise<LegResultMessage> {
    const startedMs = Date.now();
    const { config, platform } = this.options;
    if (!claimKeyPattern.test(leg.client_id))
      return legResult(
        leg,
        'rejected',
        startedMs,
        `client id ${JSON.stringify(leg.client_id)} is malformed; not sent`,
        undefined,
        retcode.INVALID,
      );
    if (request.deadline_unix_ms > 0 && startedMs > request.deadline_unix_ms) {
      return legResult(
        leg,
        'rejected',
        startedMs,
        'not sent: the request reached the terminal after its deadline',
        undefined,
        retcode.TIMEOUT,
      );
    }
    const operation = normalizeOperation(leg.operation);
    if (!operation)
      return legResult(leg, 'rejected', startedMs, `unknown operation ${leg.operation}; not sent`, undefined, retcode.INVALID);
    if (platform === 'mt4' && isStopLimitOperation(operation)) {
      return legResult(
        leg,
        'rejected',
        startedMs,
        'MT4 has no stop-limit orders (buyStopLimit, sellStopLimit); not sent',
        undefined,
        retcode.INVALID_ORDER,
      );
    }
    if (isPendingOperation(operation) && !(leg.price && leg.price > 0))
      return legResult(leg, 'rejected', startedMs, 'a pending order needs a price; not sent', undefined, retcode.INVALID_PRICE);
    if (absent) return legResult(leg, 'unavailable', startedMs, `not sent: ${absent}`);

    const claimed = await claim.state();
    // Without a claim there is no guarantee against a second send, so nothing is sent.
    if (claimed === 'unavailable')
      return legResult(leg, 'unavailable', startedMs, 'not sent: the connector could not record the order id (claim store unavailable)');
    if (claimed === 'duplicate') return this.resolveDuplicate(request, leg, startedMs, traceContext);

    try {
      const outcome = await this.options.terminals.withTerminal(
        request.account_id,
        (terminal) =>
          this.options.adapter.place(terminal, leg, {
            // Not started after the requester's deadline (so "not found" later means "never executed"), but
            // awaited for the configured bound, so an answer that comes late still reaches the requester.
            callDeadlineMs: config.BROKER_CALL_DEADLINE_MS,
            fenceUnixMs: request.deadline_unix_ms,
            defaultSlippagePoints: config.CONNECTOR_DEFAULT_SLIPPAGE_POINTS,
          }),
        traceContext,
      );
      return outcomeResult(leg, outcome, startedMs);
    } catch (error) {
      if (isNothingSent(error)) return legResult(leg, 'unavailable', startedMs, `not sent: ${error.message}`);
      if (isOutcomeUnknown(error)) {
        return legResult(
          leg,
          'unknown',
          startedMs,
          `sent, but the terminal did not answer (${error.message}); it may have executed and will be reconciled`,
        );
      }
      if (error instanceof TerminalAnswerError) return refusedLeg(leg, error, startedMs);
      throw error;
    }
  }

  /** A client id claimed before: never send it again; report what the trade server did with the original. */
  private async resolveDuplicate(
    request: PlaceRequestMessage,
    leg: OrderLegMessage,
    startedMs: number,
    traceContext: Context,
  ): Promise<LegResultMessage> {
    const waitUntilMs = Math.max(request.deadline_unix_ms, Date.now());
    for (;;) {
      try {
        const records = await this.options.terminals.withTerminal(
          request.account_id,
          (terminal) => this.options.adapter.lookup(terminal, [leg.client_id], this.options.config.BROKER_READ_DEADLINE_MS),
          traceContext,
        );
        const record = records.find((item) => item.clientId === leg.client_id);
        if (record?.state === 'done' && record.outcome)
          return outcomeResult(
            leg,
            record.outcome,
            startedMs,
            'duplicate request: this is the outcome of the original, which was not sent again',
          );
      } catch (error) {
        if (!isNothingSent(error) && !isOutcomeUnknown(error) && !(error instanceof TerminalAnswerError)) throw error;
      }
      if (Date.now() + duplicatePollMs > waitUntilMs) break;
      await sleep(duplicatePollMs);
    }
    return legResult(
      leg,
      'unknown',
      startedMs,
      'duplicate request: the original is still executing or its outcome is not known yet; not sent again',
    );
  }
}

/**
 * A trade the EA answered `status=error`: it did not run (no trade function was called). `busy` says the
 * terminal could not take it now (nothing sent, as an unreachable terminal); the rest are definite refusals.
 */
function refusedLeg(leg: OrderLegMessage, error: TerminalAnswerError, startedMs: number): LegResultMessage {
  const message = `not executed: ${error.message}`;
  if (error.error === 'busy') return legResult(leg, 'unavailable', startedMs, message);
  const code = error.error === 'expired' ? retcode.TIMEOUT : error.error === 'internal' ? retcode.ERROR : retcode.INVALID;
  return legResult(leg, 'rejected', startedMs, message, undefined, code);
}
