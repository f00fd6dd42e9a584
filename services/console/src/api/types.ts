import type { paths } from '@mtx/client/src/generated/schema';

/** The JSON a route answers with on success, read from the generated OpenAPI types (never a hand-written mirror). */
type Success<Operation> = Operation extends { responses: infer Responses }
  ? Responses extends { 200: { content: { 'application/json': infer Body } } }
    ? Body
    : Responses extends { 201: { content: { 'application/json': infer Body } } }
      ? Body
      : Responses extends { 202: { content: { 'application/json': infer Body } } }
        ? Body
        : never
  : never;

export type GetBody<Path extends keyof paths> = Success<paths[Path]['get']>;
export type PostBody<Path extends keyof paths> = Success<paths[Path]['post']>;
export type RequestBody<Path extends keyof paths, Method extends 'post' | 'patch'> = paths[Path][Method] extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

export type Wallet = GetBody<'/v1/wallet'>;
export type Asset = GetBody<'/v1/wallet/assets'>[number];
export type Topup = GetBody<'/v1/wallet/topup/{id}'>;
export type Subscription = GetBody<'/v1/subscription'>;
export type Servers = GetBody<'/v1/servers'>;
export type Account = GetBody<'/v1/accounts'>['accounts'][number];
export type AccountState = GetBody<'/v1/accounts/{account_id}/state'>;
export type AccountSettings = GetBody<'/v1/accounts/{account_id}/settings'>;
export type AccountSettingsChange = RequestBody<'/v1/accounts/{account_id}/settings', 'patch'>;
export type Positions = GetBody<'/v1/positions'>;
export type PlaceRequest = RequestBody<'/v1/orders', 'post'>;
export type PlaceResult = PostBody<'/v1/orders'>;
export type CloseRequest = RequestBody<'/v1/orders/close', 'post'>;
export type CloseResult = PostBody<'/v1/orders/close'>;
export type ModifyRequest = RequestBody<'/v1/orders/modify', 'post'>;
export type ModifyResult = PostBody<'/v1/orders/modify'>;
export type BatchPage = GetBody<'/v1/orders/batches'>;
export type BatchDetail = GetBody<'/v1/orders/batches/{batch_id}'>;
export type WebhookEndpoints = GetBody<'/v1/webhook_endpoints'>;
export type CreatedWebhookEndpoint = PostBody<'/v1/webhook_endpoints'>;
export type Events = GetBody<'/v1/events'>;
export type WebhookTestSend = PostBody<'/v1/webhook_endpoints/{id}/test'>;
