export {
  MtxClient,
  PollTimeoutError,
  clientOperations,
  batchIsSettled,
  settledTopupStatuses,
  type ClientOptions,
  type IdempotentCallOptions,
  type Paged,
  type PollOptions,
} from './client';
export { ApiConnectionError, ApiError } from './errors';
export { WebhookSignatureError, verifyWebhook, webhookToleranceSecondsDefault } from './webhooks';
export { Transport, parseRetryAfter, type CallOptions, type HttpMethod, type RetryEvent, type TransportOptions } from './transport';
export { SettingsError, devFilePath, loadSettings, type AccountInfo, type ClientSettings } from './settings';
export { formatEurCents, renderDetails, renderTable, type Column } from './table';
export { createProgress, type Progress } from './progress';
export type * from './types';
export type { components, paths } from './generated/schema';
