import { randomUUID } from 'node:crypto';
import { Transport, type CallOptions, type TransportOptions } from './transport';
import type {
  Account,
  AccountList,
  AccountSettings,
  AccountSettingsUpdate,
  AccountRequest,
  AccountState,
  AssetList,
  AssetQuery,
  BatchList,
  BatchListQuery,
  BatchSummary,
  CloseBatch,
  CloseRequest,
  DealsPage,
  HistoryDeal,
  HistoryOrder,
  HistoryQuery,
  ModifyBatch,
  ModifyRequest,
  OrdersPage,
  CreatedWebhookEndpoint,
  DeletedWebhookEndpoint,
  EventList,
  EventListQuery,
  DeletedAccount,
  DeletedServer,
  OrderBatch,
  OrderBatchRequest,
  Positions,
  PositionsQuery,
  Server,
  ServerList,
  ServerPlans,
  ServerRequest,
  StoredBatch,
  Subscription,
  SubscriptionUpdate,
  Topup,
  TopupRequest,
  TopupState,
  UpdatedSubscription,
  Wallet,
  WebhookEndpointList,
  WebhookEndpointRequest,
  WebhookEvent,
  WebhookTestSend,
} from './types';

/** A list call's answer: a promise of its first page, and an async iterator over every item of every page. */
export type Paged<Page, Item> = Promise<Page> & AsyncIterable<Item>;

export interface ClientOptions extends TransportOptions {
  /** Makes the Idempotency-Key of calls that get one automatically; default a random UUID. */
  generateIdempotencyKey?: () => string;
}

export interface IdempotentCallOptions extends CallOptions {
  /**
   * Idempotency-Key for this logical operation. Omit it to get a fresh one; pass your own (for example one
   * stored with the order in your database) to make a retry after a crash of your process safe too.
   */
  idempotencyKey?: string;
}

export interface PollOptions<T> extends CallOptions {
  /** Give up after this long. Default 120 s. */
  deadlineMs?: number;
  /** Time between polls. Default 1 s. */
  intervalMs?: number;
  /** Called with every state read, for progress displays. */
  onUpdate?: (state: T) => void;
}

/** Thrown by the `waitFor…` helpers when the deadline passes first; `last` is the final state read. */
export class PollTimeoutError<T = unknown> extends Error {
  constructor(
    message: string,
    readonly last: T,
  ) {
    super(message);
    this.name = 'PollTimeoutError';
  }
}

/** Top-up statuses after which nothing more is expected without new coin arriving. */
export const settledTopupStatuses: ReadonlySet<string> = new Set(['paid', 'failed']);

/** A batch has settled once no leg, account or ticket is `unknown` any more (the stored batch says so in `settled`). */
export function batchIsSettled(batch: unknown): boolean {
  const view = batch as { settled?: unknown; results?: Array<{ status?: string; results?: Array<{ status?: string }> }> } | undefined;
  if (typeof view?.settled === 'boolean') return view.settled;
  return !(view?.results ?? []).some(
    (result) => result.status === 'unknown' || (result.results ?? []).some((ticket) => ticket.status === 'unknown'),
  );
}

export { clientOperations } from './operations';

const segment = (value: string | number) => encodeURIComponent(String(value));

/**
 * Typed client of the Wallet, Subscription and Multi-Account Trading API.
 *
 * ```ts
 * const client = new MtxClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.MTX_API_KEY! });
 * const wallet = await client.wallet.get();
 * ```
 *
 * Every call has a deadline and bounded retries (see Transport). POST /v1/orders, /v1/orders/close and
 * /v1/orders/modify always carry an Idempotency-Key, made once per call and reused on its retries, so a retry never sends an
 * order twice. Failures are thrown as `ApiError` (the API answered) or `ApiConnectionError` (it did not).
 */
export class MtxClient {
  readonly transport: Transport;
  private readonly generateIdempotencyKey: () => string;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
    this.generateIdempotencyKey = options.generateIdempotencyKey ?? randomUUID;
  }

  private sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, delayMs);
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** Reads until `settled` holds or the deadline passes. */
  private async poll<T>(read: () => Promise<T>, settled: (state: T) => boolean, what: string, options: PollOptions<T>): Promise<T> {
    const deadlineMs = options.deadlineMs ?? 120_000;
    const intervalMs = options.intervalMs ?? 1_000;
    const until = Date.now() + deadlineMs;
    for (;;) {
      const state = await read();
      options.onUpdate?.(state);
      if (settled(state)) return state;
      if (Date.now() + intervalMs > until) throw new PollTimeoutError(`${what} did not settle within ${deadlineMs} ms`, state);
      await this.sleep(intervalMs, options.signal);
    }
  }

  /**
   * A list call answered as a promise of its first page that is also an async iterator over every item of
   * every page, asking for the next page (`starting_after` the last item) as the loop reaches it.
   */
  private paged<Page extends { data: Item[]; has_more: boolean }, Item>(
    path: string,
    query: object,
    cursorOf: (page: Page, last: Item | undefined) => string | undefined,
    options: CallOptions,
  ): Paged<Page, Item> {
    const page = (startingAfter: string | undefined): Promise<Page> =>
      this.transport.request({
        method: 'GET',
        path,
        query: { ...(query as Record<string, string | number>), ...(startingAfter ? { starting_after: startingAfter } : {}) },
        ...options,
      });
    let first: Promise<Page> | undefined;
    const firstPage = () => {
      first ??= page((query as { starting_after?: string }).starting_after);
      return first;
    };
    return {
      // biome-ignore lint/suspicious/noThenProperty: the answer is a promise of the first page and an iterator over all
      then: (onFulfilled, onRejected) => firstPage().then(onFulfilled, onRejected),
      catch: (onRejected) => firstPage().catch(onRejected),
      finally: (onFinally) => firstPage().finally(onFinally),
      [Symbol.toStringTag]: 'Promise',
      async *[Symbol.asyncIterator]() {
        let current = await firstPage();
        for (;;) {
          yield* current.data;
          const next = cursorOf(current, current.data.at(-1));
          if (!current.has_more || !next) return;
          current = await page(next);
        }
      },
    };
  }

  readonly wallet = {
    /** GET /v1/wallet: balance, pending top-ups and the charges owed over the next 30 days. Any key. */
    get: (options: CallOptions = {}): Promise<Wallet> => this.transport.request({ method: 'GET', path: '/v1/wallet', ...options }),

    /** GET /v1/wallet/assets: the coin-and-chain pairs a top-up of this size can be paid in, with the amount of each. */
    listAssets: (query: AssetQuery, options: CallOptions = {}): Promise<AssetList> =>
      this.transport.request({ method: 'GET', path: '/v1/wallet/assets', query: query as Record<string, number>, ...options }),

    /**
     * POST /v1/wallet/topup: a deposit address and exact amount. Not retried after a lost connection or a
     * 503 (it has no Idempotency-Key); a duplicate pending top-up costs nothing, but check before repeating.
     */
    createTopup: (body: TopupRequest, options: CallOptions = {}): Promise<Topup> =>
      this.transport.request({ method: 'POST', path: '/v1/wallet/topup', body, ...options }),

    /** GET /v1/wallet/topup/{id}: current status and credited amount. */
    getTopup: (id: number, options: CallOptions = {}): Promise<TopupState> =>
      this.transport.request({ method: 'GET', path: `/v1/wallet/topup/${segment(id)}`, ...options }),

    /** Polls a top-up until it is `paid` or `failed` (or `until` holds). */
    waitForTopup: (id: number, options: PollOptions<TopupState> & { until?: (topup: TopupState) => boolean } = {}): Promise<TopupState> =>
      this.poll(
        () => this.wallet.getTopup(id, { signal: options.signal, timeoutMs: options.timeoutMs }),
        options.until ?? ((topup) => settledTopupStatuses.has((topup as { status: string }).status)),
        `top-up ${id}`,
        options,
      ),
  };

  readonly subscription = {
    /** GET /v1/subscription: plan, seats with their own dates, and the wallet summary. */
    get: (options: CallOptions = {}): Promise<Subscription> =>
      this.transport.request({ method: 'GET', path: '/v1/subscription', ...options }),

    /** PATCH /v1/subscription: for example `{cancel_at_period_end: true}`. */
    update: (body: SubscriptionUpdate, options: CallOptions = {}): Promise<UpdatedSubscription> =>
      this.transport.request({ method: 'PATCH', path: '/v1/subscription', body, ...options }),
  };

  readonly servers = {
    /** GET /v1/servers/plans: the private-server plans on offer and their monthly prices. */
    listPlans: (options: CallOptions = {}): Promise<ServerPlans> =>
      this.transport.request({ method: 'GET', path: '/v1/servers/plans', ...options }),
    /** GET /v1/servers: private servers, each renewed monthly on its own date. */
    list: (options: CallOptions = {}): Promise<ServerList> => this.transport.request({ method: 'GET', path: '/v1/servers', ...options }),
    /** POST /v1/servers: a balance-funded private server. */
    create: (body: ServerRequest, options: CallOptions = {}): Promise<Server> =>
      this.transport.request({ method: 'POST', path: '/v1/servers', body, ...options }),
    /** DELETE /v1/servers/{id}. */
    delete: (id: string, options: CallOptions = {}): Promise<DeletedServer> =>
      this.transport.request({ method: 'DELETE', path: `/v1/servers/${segment(id)}`, ...options }),
  };

  readonly accounts = {
    /** GET /v1/accounts: the trading accounts batches may address. */
    list: (options: CallOptions = {}): Promise<AccountList> => this.transport.request({ method: 'GET', path: '/v1/accounts', ...options }),
    /** POST /v1/accounts: connects an account; it takes a free seat or buys one (402 if the balance cannot). */
    create: (body: AccountRequest, options: CallOptions = {}): Promise<Account> =>
      this.transport.request({ method: 'POST', path: '/v1/accounts', body, ...options }),
    /** DELETE /v1/accounts/{account_id}: disconnects the account; its seat stays paid until its date. */
    delete: (id: string, options: CallOptions = {}): Promise<DeletedAccount> =>
      this.transport.request({ method: 'DELETE', path: `/v1/accounts/${segment(id)}`, ...options }),
    /** GET /v1/accounts/{account_id}/state: balance, equity, margin and free margin as the terminal reads them now. Any key. */
    state: (id: string, options: CallOptions = {}): Promise<AccountState> =>
      this.transport.request({ method: 'GET', path: `/v1/accounts/${segment(id)}/state`, ...options }),
    settings: {
      /** GET /v1/accounts/{account_id}/settings: the symbol map and pre-trade limits. Any key. */
      get: (id: string, options: CallOptions = {}): Promise<AccountSettings> =>
        this.transport.request({ method: 'GET', path: `/v1/accounts/${segment(id)}/settings`, ...options }),
      /** PATCH /v1/accounts/{account_id}/settings: changes the fields given (`null` resets one); 400 changes nothing. Full key. */
      update: (id: string, body: AccountSettingsUpdate, options: CallOptions = {}): Promise<AccountSettings> =>
        this.transport.request({ method: 'PATCH', path: `/v1/accounts/${segment(id)}/settings`, body, ...options }),
    },
  };

  readonly positions = {
    /**
     * GET /v1/positions: what a close with this selector would take, per account and in its order, valued at
     * current prices. No `account_id`: every account (at most 20). An account that cannot be read comes back
     * `unavailable` or `unknown` inside the 200 response. Any key.
     */
    list: (query: PositionsQuery = {}, options: CallOptions = {}): Promise<Positions> =>
      this.transport.request({
        method: 'GET',
        path: '/v1/positions',
        query: query as Record<string, string | number | string[]>,
        ...options,
      }),
  };

  readonly orders = {
    /**
     * POST /v1/orders: places up to 20 legs across accounts, each dispatched concurrently. Per-leg failures
     * come back inside the 200 response, not as errors. The call carries an Idempotency-Key (made here
     * unless given) that every retry reuses.
     */
    place: (body: OrderBatchRequest, options: IdempotentCallOptions = {}): Promise<OrderBatch> =>
      this.transport.request({
        method: 'POST',
        path: '/v1/orders',
        body,
        ...options,
        idempotencyKey: options.idempotencyKey ?? this.generateIdempotencyKey(),
      }),

    /** POST /v1/orders/close: closes positions or deletes pending orders by selector or ticket, on up to 20 accounts. Idempotent like `place`. */
    close: (body: CloseRequest, options: IdempotentCallOptions = {}): Promise<CloseBatch> =>
      this.transport.request({
        method: 'POST',
        path: '/v1/orders/close',
        body,
        ...options,
        idempotencyKey: options.idempotencyKey ?? this.generateIdempotencyKey(),
      }),

    /**
     * POST /v1/orders/modify: moves stops (and pending orders' price and expiration) on what a close with the same
     * selector or tickets would take, on up to 20 accounts. Idempotent like `place`: a retry never modifies twice.
     */
    modify: (body: ModifyRequest, options: IdempotentCallOptions = {}): Promise<ModifyBatch> =>
      this.transport.request({
        method: 'POST',
        path: '/v1/orders/modify',
        body,
        ...options,
        idempotencyKey: options.idempotencyKey ?? this.generateIdempotencyKey(),
      }),

    /** GET /v1/orders/batches/{batch_id}: the stored batch with each leg's latest outcome, late replies included. */
    getBatch: (batchId: string, options: CallOptions = {}): Promise<StoredBatch> =>
      this.transport.request({ method: 'GET', path: `/v1/orders/batches/${segment(batchId)}`, ...options }),

    /**
     * GET /v1/orders/batches: one page of the stored batches, newest first, with `has_more`. Any key. The
     * answer is also an async iterator over every matching batch, fetching the next page as the loop reaches it
     * (Stripe's auto-pagination): `for await (const batch of client.orders.listBatches({ kind: 'close' })) …`.
     */
    listBatches: (query: BatchListQuery = {}, options: CallOptions = {}): Paged<BatchList, BatchSummary> =>
      this.paged<BatchList, BatchSummary>('/v1/orders/batches', query, (_page, batch) => batch?.batch_id, options),

    /** Polls a stored batch until no outcome is `unknown` any more (late replies and reconciliation fill them in). */
    waitForBatch: (batchId: string, options: PollOptions<StoredBatch> = {}): Promise<StoredBatch> =>
      this.poll(
        () => this.orders.getBatch(batchId, { signal: options.signal, timeoutMs: options.timeoutMs }),
        batchIsSettled,
        `batch ${batchId}`,
        options,
      ),
  };

  readonly history = {
    /**
     * GET /v1/history/deals: deals of up to 20 accounts merged newest first; awaited, the first page; iterated with
     * `for await`, every deal of every page (each asked with the previous page's `next_cursor`). Any key.
     */
    deals: (query: HistoryQuery = {}, options: CallOptions = {}): Paged<DealsPage, HistoryDeal> =>
      this.paged<DealsPage, HistoryDeal>('/v1/history/deals', query, (page) => page.next_cursor ?? undefined, options),
    /** GET /v1/history/orders: history orders, as `deals`. */
    orders: (query: HistoryQuery = {}, options: CallOptions = {}): Paged<OrdersPage, HistoryOrder> =>
      this.paged<OrdersPage, HistoryOrder>('/v1/history/orders', query, (page) => page.next_cursor ?? undefined, options),
  };

  readonly webhookEndpoints = {
    /**
     * POST /v1/webhook_endpoints: events of the chosen types are POSTed to `url` as they happen, signed with the
     * `secret` of this answer (shown only here; check deliveries with `verifyWebhook`). Full key.
     */
    create: (body: WebhookEndpointRequest, options: CallOptions = {}): Promise<CreatedWebhookEndpoint> =>
      this.transport.request({ method: 'POST', path: '/v1/webhook_endpoints', body, ...options }),
    /** GET /v1/webhook_endpoints: every endpoint not deleted, with its status. Any key. */
    list: (options: CallOptions = {}): Promise<WebhookEndpointList> =>
      this.transport.request({ method: 'GET', path: '/v1/webhook_endpoints', ...options }),
    /** DELETE /v1/webhook_endpoints/{id}: stops its deliveries. Full key. */
    delete: (id: string, options: CallOptions = {}): Promise<DeletedWebhookEndpoint> =>
      this.transport.request({ method: 'DELETE', path: `/v1/webhook_endpoints/${segment(id)}`, ...options }),
    /** POST /v1/webhook_endpoints/{id}/test: a signed `ping` delivered to this endpoint only. Full key. */
    test: (id: string, options: CallOptions = {}): Promise<WebhookTestSend> =>
      this.transport.request({ method: 'POST', path: `/v1/webhook_endpoints/${segment(id)}/test`, ...options }),
  };

  readonly events = {
    /**
     * GET /v1/events: the last 30 days of events, newest first, one page when awaited and every page when
     * iterated with `for await`. Any key.
     */
    list: (query: EventListQuery = {}, options: CallOptions = {}): Paged<EventList, WebhookEvent> =>
      this.paged<EventList, WebhookEvent>('/v1/events', query, (_page, event) => event?.id, options),
  };
}
