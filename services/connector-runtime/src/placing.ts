import { context, type Context } from '@opentelemetry/api';
import type { LegResultMessage, OrderLegMessage, PlaceReplyMessage, PlaceRequestMessage } from '@mtx/shared/connector/messages';
import { isPendingOperation, isStopLimitOperation, normalizeOperation, retcode } from '@mtx/shared/trading';
import { BrokerCallError, TerminalLoginError } from './broker-client';
import { claimKeyPattern } from './claims';
import { placeMessageClaimKey, type MessageClaim } from './message-claim';
import { legResult, outcomeResult } from './results';
import { duplicatePollMs, sleep, type ConnectorRuntimeOptions, type RuntimeShared } from './runtime-context';

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
    let sessionError: TerminalLoginError | undefined;
    try {
      await this.options.sessions.get(request.account_id, request.credentials, traceContext);
    } catch (error) {
      if (!(error instanceof TerminalLoginError)) throw error;
      sessionError = error;
    }
    const messageKey = placeMessageClaimKey(request);
    const messageClaim = messageKey ? this.shared.claimFor(messageKey, request.deadline_unix_ms, traceContext) : undefined;
    const results = await Promise.all(
      request.legs.map((leg) =>
        this.placeLeg(
          request,
          leg,
          sessionError,
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
    sessionError: TerminalLoginError | undefined,
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
    if (sessionError) return legResult(leg, 'unavailable', startedMs, `not sent: ${sessionError.message}`);

    const claimed = await claim.state();
    // Without a claim there is no guarantee against a second send, so nothing is sent.
    if (claimed === 'unavailable')
      return legResult(leg, 'unavailable', startedMs, 'not sent: the connector could not record the order id (claim store unavailable)');
    if (claimed === 'duplicate') return this.resolveDuplicate(request, leg, startedMs, traceContext);

    try {
      const outcome = await this.options.sessions.withSession(
        request.account_id,
        request.credentials,
        (session) =>
          this.options.adapter.place(session, leg, {
            deadlineUnixMs: request.deadline_unix_ms,
            callDeadlineMs: config.BROKER_CALL_DEADLINE_MS,
            defaultSlippagePoints: config.CONNECTOR_DEFAULT_SLIPPAGE_POINTS,
          }),
        traceContext,
      );
      return outcomeResult(leg, outcome, startedMs);
    } catch (error) {
      if (error instanceof TerminalLoginError) return legResult(leg, 'unavailable', startedMs, `not sent: ${error.message}`);
      if (error instanceof BrokerCallError) {
        return legResult(
          leg,
          'unknown',
          startedMs,
          `sent, but the trade server did not answer (${error.message}); it may have executed and will be reconciled`,
        );
      }
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
        const records = await this.options.sessions.withSession(
          request.account_id,
          request.credentials,
          (session) => this.options.adapter.lookup(session, [leg.client_id], '', this.options.config.BROKER_READ_DEADLINE_MS),
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
        if (!(error instanceof BrokerCallError) && !(error instanceof TerminalLoginError)) throw error;
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
