/**
 * Request and response types of each route, looked up in the types generated from the OpenAPI document
 * (src/generated/schema.ts, `npm run client:generate`). A route that leaves the document, or changes its
 * path, stops this file from compiling, so the client cannot silently fall out of step with the API.
 */
import type { components, paths } from './generated/schema';

export type HttpMethodName = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** Path templates of the document that have an operation for this method. */
export type PathWith<M extends HttpMethodName> = {
  [P in keyof paths]: paths[P] extends Record<M, infer Operation> ? ([Operation] extends [undefined | never] ? never : P) : never;
}[keyof paths];

/** The generated operation object of a route. */
export type OperationAt<P extends PathWith<M>, M extends HttpMethodName> = Exclude<paths[P][M], undefined>;

type JsonContent<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : undefined;

type SuccessStatus = 200 | 201 | 202 | 204;

type SuccessBody<Operation> = Operation extends { responses: infer Responses }
  ? { [Status in keyof Responses]: Status extends SuccessStatus ? JsonContent<Responses[Status]> : never }[keyof Responses]
  : never;

type RequestBody<Operation> = Operation extends { requestBody?: { content: { 'application/json': infer Body } } } ? Body : never;

type QueryParameters<Operation> = Operation extends { parameters: { query?: infer Query } } ? Exclude<Query, undefined> : never;

/** The JSON body of a route's successful (2xx) response. */
export type ResponseOf<P extends PathWith<M>, M extends HttpMethodName> = SuccessBody<OperationAt<P, M>>;

/** The JSON request body a route accepts. */
export type BodyOf<P extends PathWith<M>, M extends HttpMethodName> = RequestBody<OperationAt<P, M>>;

/** The query parameters a route accepts. */
export type QueryOf<P extends PathWith<M>, M extends HttpMethodName> = QueryParameters<OperationAt<P, M>>;

/** The error body of every non-2xx response. */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];

export type Wallet = ResponseOf<'/v1/wallet', 'get'>;
export type AssetList = ResponseOf<'/v1/wallet/assets', 'get'>;
export type AssetQuery = QueryOf<'/v1/wallet/assets', 'get'>;
export type TopupRequest = BodyOf<'/v1/wallet/topup', 'post'>;
export type Topup = ResponseOf<'/v1/wallet/topup', 'post'>;
export type TopupState = ResponseOf<'/v1/wallet/topup/{id}', 'get'>;
export type Subscription = ResponseOf<'/v1/subscription', 'get'>;
export type SubscriptionUpdate = BodyOf<'/v1/subscription', 'patch'>;
export type UpdatedSubscription = ResponseOf<'/v1/subscription', 'patch'>;
export type ServerPlans = ResponseOf<'/v1/servers/plans', 'get'>;
export type ServerList = ResponseOf<'/v1/servers', 'get'>;
export type ServerRequest = BodyOf<'/v1/servers', 'post'>;
export type Server = ResponseOf<'/v1/servers', 'post'>;
export type DeletedServer = ResponseOf<'/v1/servers/{id}', 'delete'>;
export type AccountList = ResponseOf<'/v1/accounts', 'get'>;
export type AccountRequest = BodyOf<'/v1/accounts', 'post'>;
export type Account = ResponseOf<'/v1/accounts', 'post'>;
export type DeletedAccount = ResponseOf<'/v1/accounts/{account_id}', 'delete'>;
export type OrderBatchRequest = BodyOf<'/v1/orders', 'post'>;
export type OrderBatch = ResponseOf<'/v1/orders', 'post'>;
export type CloseRequest = BodyOf<'/v1/orders/close', 'post'>;
export type CloseBatch = ResponseOf<'/v1/orders/close', 'post'>;
export type ModifyRequest = BodyOf<'/v1/orders/modify', 'post'>;
export type ModifyBatch = ResponseOf<'/v1/orders/modify', 'post'>;
export type DealsPage = ResponseOf<'/v1/history/deals', 'get'>;
export type OrdersPage = ResponseOf<'/v1/history/orders', 'get'>;
export type HistoryQuery = QueryOf<'/v1/history/deals', 'get'>;
export type HistoryDeal = DealsPage['data'][number];
export type HistoryOrder = OrdersPage['data'][number];
export type StoredBatch = ResponseOf<'/v1/orders/batches/{batch_id}', 'get'>;
export type BatchList = ResponseOf<'/v1/orders/batches', 'get'>;
export type BatchListQuery = QueryOf<'/v1/orders/batches', 'get'>;
export type BatchSummary = BatchList['data'][number];
export type Positions = ResponseOf<'/v1/positions', 'get'>;
export type PositionsQuery = QueryOf<'/v1/positions', 'get'>;
export type AccountState = ResponseOf<'/v1/accounts/{account_id}/state', 'get'>;
export type AccountSettings = ResponseOf<'/v1/accounts/{account_id}/settings', 'get'>;
export type AccountSettingsUpdate = BodyOf<'/v1/accounts/{account_id}/settings', 'patch'>;
export type WebhookEndpointRequest = BodyOf<'/v1/webhook_endpoints', 'post'>;
export type CreatedWebhookEndpoint = ResponseOf<'/v1/webhook_endpoints', 'post'>;
export type WebhookEndpointList = ResponseOf<'/v1/webhook_endpoints', 'get'>;
export type DeletedWebhookEndpoint = ResponseOf<'/v1/webhook_endpoints/{id}', 'delete'>;
export type WebhookTestSend = ResponseOf<'/v1/webhook_endpoints/{id}/test', 'post'>;
export type EventList = ResponseOf<'/v1/events', 'get'>;
export type EventListQuery = QueryOf<'/v1/events', 'get'>;
/** One event, as GET /v1/events lists it and a webhook delivers it. */
export type WebhookEvent = EventList['data'][number];
