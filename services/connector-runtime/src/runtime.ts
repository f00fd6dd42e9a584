import { context, SpanStatusCode, type Context } from '@opentelemetry/api';
import type { Msg } from 'nats';
import type { Logger } from '@mtx/shared/logger';
import {
  connectorCodecs,
  connectorOps,
  type CloseReplyMessage,
  type CloseRequestMessage,
  type ConnectorOp,
  type LookupReplyMessage,
  type LookupRequestMessage,
  type PingReplyMessage,
  type PingRequestMessage,
  type PlaceReplyMessage,
  type PlaceRequestMessage,
  type PositionsReplyMessage,
  type PositionsRequestMessage,
  type StateReplyMessage,
  type StateRequestMessage,
} from '@mtx/shared/connector/messages';
import { deskCodecs } from '@mtx/shared/connector/desk-messages';
import { AccountRouting, respondError } from './account-routing';
import { Closing } from './closing';
import { HistoryReads } from './history';
import { Inspecting } from './inspecting';
import { connectorMetrics } from './metrics';
import { claimRetryUntil, MessageClaim } from './message-claim';
import { Modifying } from './modifying';
import { Placing } from './placing';
import { RequestSpans, type RequestRecord } from './request-spans';
import { Portfolio } from './portfolio';
import { Records } from './records';
import { sleep, type ConnectorRuntimeOptions, type RuntimeShared } from './runtime-context';

export type { ConnectorRuntimeOptions } from './runtime-context';
export { closeAccountStatus, legStatusOf, selectorMatches } from './selection';
export { startHealthServer } from './health';

/**
 * The connector: answers `<root>.<platform>.<account_id>.<op>` in a queue group for the accounts whose terminal
 * is attached to this replica (AccountRouting), stateless apart from those connections. Every order it sends carries a client id it first claimed exclusively, so no client id is
 * ever sent to a trade server twice, whatever the replicas, restarts or redeliveries; a duplicate request
 * is answered from the trade server's record of the original instead.
 */
export class ConnectorRuntime {
  private readonly routing: AccountRouting;
  private serving = false;
  private inflight = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly placing: Placing;
  private readonly closing: Closing;
  private readonly records: Records;
  private readonly portfolio: Portfolio;
  private readonly modifying: Modifying;
  private readonly historyReads: HistoryReads;
  private readonly inspecting: Inspecting;
  private readonly spans = new RequestSpans();

  constructor(private readonly options: ConnectorRuntimeOptions) {
    const shared: RuntimeShared = {
      // A failure of the claim store is logged within the request's trace.
      claimFor: (key, deadlineUnixMs, traceContext) =>
        new MessageClaim(
          options.claims,
          key,
          claimRetryUntil(Date.now(), deadlineUnixMs, options.config.CONNECTOR_CLAIM_WAIT_MS),
          (error) => this.logWithin(traceContext, (logger) => logger.error({ err: error }, 'claim store unavailable')),
        ),
      logWithin: (traceContext, write) => this.logWithin(traceContext, write),
    };
    this.placing = new Placing(options, shared);
    this.closing = new Closing(options, shared);
    this.records = new Records(options);
    this.portfolio = new Portfolio(options);
    this.modifying = new Modifying(options, shared);
    this.historyReads = new HistoryReads(options);
    this.inspecting = new Inspecting(options);
    const { config, platform } = options;
    this.routing = new AccountRouting(options.nats, {
      subjectOf: (accountId) => `${config.TERMINAL_SUBJECT_ROOT}.${platform}.${accountId}.*`,
      queue: config.CONNECTOR_QUEUE_GROUP,
      logger: options.logger,
      handle: (message) => this.dispatch(message),
    });
  }

  get inflightRequests(): number {
    return this.inflight;
  }

  get running(): boolean {
    return this.serving;
  }

  /** Accounts whose requests this replica takes now (their terminals are attached here). */
  get routedAccounts(): number {
    return this.routing.accounts;
  }

  async start(): Promise<void> {
    const { platform, config } = this.options;
    this.serving = true;
    // The series exists from the start, at 0: "a connector with no terminals" is an alert, and an absent series
    // would not fire it.
    connectorMetrics.terminalsAttached.add(0, { 'mtx.platform': platform });
    this.options.logger.info(
      { platform, subjects: `${config.TERMINAL_SUBJECT_ROOT}.${platform}.<account_id>.<op>`, queue: config.CONNECTOR_QUEUE_GROUP },
      'connector serving the accounts whose terminals attach',
    );
  }

  /** Routes the account's requests here; resolves once the subscription is live at the NATS server. */
  async attachAccount(accountId: string): Promise<void> {
    if (!this.serving) throw new Error('the connector is not serving');
    const routedBefore = this.routing.isRouted(accountId);
    await this.routing.attach(accountId);
    if (!routedBefore) connectorMetrics.terminalsAttached.add(1, { 'mtx.platform': this.options.platform });
  }

  detachAccount(accountId: string): void {
    if (this.routing.isRouted(accountId)) connectorMetrics.terminalsAttached.add(-1, { 'mtx.platform': this.options.platform });
    this.routing.detach(accountId);
  }

  /** Stops taking requests (every account unrouted) and waits (up to the grace) for the ones in hand to finish. */
  async stop(graceMs: number): Promise<void> {
    this.serving = false;
    connectorMetrics.terminalsAttached.add(-this.routing.accounts, { 'mtx.platform': this.options.platform });
    this.routing.stop();
    if (this.inflight === 0) return;
    await Promise.race([new Promise<void>((resolve) => this.idleWaiters.push(resolve)), sleep(graceMs)]);
  }

  private dispatch(message: Msg): void {
    const op = message.subject.slice(message.subject.lastIndexOf('.') + 1);
    if (!(connectorOps as readonly string[]).includes(op)) {
      this.send(() => respondError(message, 400, `unknown operation ${op}; nothing was done`));
      return;
    }
    if (this.inflight >= this.options.config.CONNECTOR_CONCURRENCY_MAX) {
      // Nothing was done: the requester may treat the account as unavailable.
      this.send(() => respondError(message, 503, 'connector overloaded; nothing was sent'));
      return;
    }
    this.inflight += 1;
    connectorMetrics.requests.add(1, { 'mtx.platform': this.options.platform, 'mtx.op': op });
    this.handle(op as ConnectorOp, message).finally(() => {
      this.inflight -= 1;
      if (this.inflight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    });
  }

  private async handle(op: ConnectorOp, message: Msg): Promise<void> {
    const tokens = message.subject.split('.');
    const subjectAccount = tokens[tokens.length - 2] ?? '';
    // The account's request is a row of its operation's span, shared with the other accounts of the same
    // fan-out in flight here (request-spans.ts); the span's context is carried by hand to every terminal call and
    // log line of this request: the connectors run a synchronous context manager (instrumentation.ts), which
    // forgets the active span at the first await.
    const request = this.spans.begin(op, message.headers, subjectAccount);
    const requestContext = request.context;
    try {
      let reply: Uint8Array;
      try {
        reply = await this.answer(op, message.data, subjectAccount, request.record, requestContext);
      } catch (error) {
        if (error instanceof MalformedRequestError) {
          request.record.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
          this.send(() => respondError(message, 400, error.message));
          return;
        }
        throw error;
      }
      this.send(() => message.respond(reply));
    } catch (error) {
      // Some orders may have gone out before the failure: "500" tells the requester the outcome is unknown.
      this.logWithin(requestContext, (logger) => logger.error({ err: error, subject: message.subject }, 'connector request failed'));
      request.fail(error as Error);
      this.send(() => respondError(message, 500, 'connector failed while handling the request; outcome unknown'));
    } finally {
      request.end();
    }
  }

  /** Logs with the request's trace_id and span_id (the logger's mixin reads the active span). */
  private logWithin(traceContext: Context, write: (logger: Logger) => void): void {
    context.with(traceContext, () => write(this.options.logger));
  }

  /** Answers the requester; a connection closed meanwhile (shutdown) only loses the answer, which is logged. */
  private send(answer: () => unknown): void {
    try {
      answer();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not answer a request (connection closing); the requester reconciles it');
    }
  }

  private decode<T>(codec: { decode(bytes: Uint8Array): T }, data: Uint8Array, subjectAccount: string): T {
    let decoded: T;
    try {
      decoded = codec.decode(data);
    } catch (error) {
      throw new MalformedRequestError(`request is not a valid protobuf message: ${(error as Error).message}`);
    }
    const accountId = (decoded as { account_id?: string }).account_id;
    if (accountId !== subjectAccount)
      throw new MalformedRequestError(`account_id ${accountId} does not match the subject's ${subjectAccount}`);
    return decoded;
  }

  private async answer(
    op: ConnectorOp,
    data: Uint8Array,
    subjectAccount: string,
    span: RequestRecord,
    traceContext: Context,
  ): Promise<Uint8Array> {
    switch (op) {
      case 'place': {
        const request = this.decode(connectorCodecs.placeRequest, data, subjectAccount);
        span.setSpanAttribute('mtx.batch_id', request.batch_id);
        const reply = await this.place(request, traceContext);
        setLegOutcomes(span, reply.results);
        const troubled = reply.results.find((result) => result.status === 'unknown' || result.status === 'unavailable');
        if (troubled) span.setStatus({ code: SpanStatusCode.ERROR, message: `${troubled.status}: ${troubled.message}` });
        return connectorCodecs.placeReply.encode(reply);
      }
      case 'close': {
        const request = this.decode(connectorCodecs.closeRequest, data, subjectAccount);
        span.setSpanAttribute('mtx.batch_id', request.batch_id);
        const reply = await this.close(request, traceContext);
        span.setAttribute('mtx.status', reply.status);
        span.setAttribute('mtx.matched', reply.matched);
        span.setAttribute('mtx.closed', reply.closed);
        if (reply.status === 'unknown' || reply.status === 'unavailable')
          span.setStatus({ code: SpanStatusCode.ERROR, message: `${reply.status}: ${reply.message}` });
        return connectorCodecs.closeReply.encode(reply);
      }
      case 'modify': {
        const request = this.decode(deskCodecs.modifyRequest, data, subjectAccount);
        span.setSpanAttribute('mtx.batch_id', request.batch_id);
        const reply = await this.modifying.modify(request, traceContext);
        span.setAttribute('mtx.status', reply.status);
        span.setAttribute('mtx.matched', reply.matched);
        span.setAttribute('mtx.modified', reply.modified);
        if (reply.status === 'unknown' || reply.status === 'unavailable')
          span.setStatus({ code: SpanStatusCode.ERROR, message: `${reply.status}: ${reply.message}` });
        return deskCodecs.modifyReply.encode(reply);
      }
      case 'history': {
        const request = this.decode(deskCodecs.historyRequest, data, subjectAccount);
        const reply = await this.historyReads.history(request, traceContext);
        span.setAttribute('mtx.status', reply.status);
        if (reply.status !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: `${reply.status}: ${reply.message}` });
        return deskCodecs.historyReply.encode(reply);
      }
      case 'lookup': {
        const request = this.decode(connectorCodecs.lookupRequest, data, subjectAccount);
        return connectorCodecs.lookupReply.encode(await this.lookup(request, traceContext));
      }
      case 'positions': {
        const request = this.decode(connectorCodecs.positionsRequest, data, subjectAccount);
        const reply = await this.positions(request, traceContext);
        span.setAttribute('mtx.status', reply.status);
        span.setAttribute('mtx.positions', reply.positions.length);
        if (reply.status !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: `${reply.status}: ${reply.message}` });
        return connectorCodecs.positionsReply.encode(reply);
      }
      case 'state': {
        const request = this.decode(connectorCodecs.stateRequest, data, subjectAccount);
        const reply = await this.state(request, traceContext);
        span.setAttribute('mtx.connected', reply.connected);
        return connectorCodecs.stateReply.encode(reply);
      }
      case 'inspect': {
        const request = this.decode(connectorCodecs.inspectRequest, data, subjectAccount);
        const reply = await this.inspecting.inspect(request, traceContext);
        span.setAttribute('mtx.status', reply.status);
        if (reply.status !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: `${reply.status}: ${reply.message}` });
        return connectorCodecs.inspectReply.encode(reply);
      }
      case 'ping': {
        const request = this.decode(connectorCodecs.pingRequest, data, subjectAccount);
        const reply = await this.ping(request, traceContext);
        span.setAttribute('mtx.connected', reply.connected);
        return connectorCodecs.pingReply.encode(reply);
      }
    }
  }

  place(request: PlaceRequestMessage, traceContext: Context = context.active()): Promise<PlaceReplyMessage> {
    return this.placing.place(request, traceContext);
  }

  close(request: CloseRequestMessage, traceContext: Context = context.active()): Promise<CloseReplyMessage> {
    return this.closing.close(request, traceContext);
  }

  lookup(request: LookupRequestMessage, traceContext: Context = context.active()): Promise<LookupReplyMessage> {
    return this.records.lookup(request, traceContext);
  }

  ping(request: PingRequestMessage, traceContext: Context = context.active()): Promise<PingReplyMessage> {
    return this.records.ping(request, traceContext);
  }

  positions(request: PositionsRequestMessage, traceContext: Context = context.active()): Promise<PositionsReplyMessage> {
    return this.portfolio.positions(request, traceContext);
  }

  state(request: StateRequestMessage, traceContext: Context = context.active()): Promise<StateReplyMessage> {
    return this.portfolio.state(request, traceContext);
  }
}

class MalformedRequestError extends Error {}

/** Every leg's index, status and retcode as three parallel lists of the account's (the span's leg columns), in one pass. */
function setLegOutcomes(span: RequestRecord, results: PlaceReplyMessage['results']): void {
  if (!span.isRecording()) return;
  const count = results.length;
  const indexes = new Array<number>(count);
  const statuses = new Array<string>(count);
  const retcodes = new Array<number>(count);
  for (let index = 0; index < count; index++) {
    const result = results[index]!;
    indexes[index] = result.leg_index;
    statuses[index] = result.status;
    retcodes[index] = result.retcode;
  }
  span.setAttribute('mtx.leg_index', indexes);
  span.setAttribute('mtx.status', statuses);
  span.setAttribute('mtx.retcode', retcodes);
}
