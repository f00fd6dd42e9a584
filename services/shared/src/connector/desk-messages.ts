import type { HistoryDeal__Output } from '../generated/proto/mtx/connector/v1/HistoryDeal';
import type { HistoryOrder__Output } from '../generated/proto/mtx/connector/v1/HistoryOrder';
import type { HistoryReply__Output } from '../generated/proto/mtx/connector/v1/HistoryReply';
import type { HistoryRequest__Output } from '../generated/proto/mtx/connector/v1/HistoryRequest';
import type { ModifyChange__Output } from '../generated/proto/mtx/connector/v1/ModifyChange';
import type { ModifyReply__Output } from '../generated/proto/mtx/connector/v1/ModifyReply';
import type { ModifyRequest__Output } from '../generated/proto/mtx/connector/v1/ModifyRequest';
import type { ModifyTicketResult__Output } from '../generated/proto/mtx/connector/v1/ModifyTicketResult';
import { messageCodec } from '../rpc/proto';

/**
 * The desk operations of the connector protocol (proto/connector/v1/connector.proto): modify by selector or
 * tickets, and history reads. The shapes are the generated ones; the statuses are narrowed here.
 */

export type ModifyTicketStatus = 'modified' | 'rejected' | 'skipped' | 'unknown';
export type ModifyAccountStatus = 'modified' | 'nothing_matched' | 'unavailable' | 'unknown';

export type ModifyChangeMessage = Omit<ModifyChange__Output, '_stop_loss' | '_take_profit' | '_price' | '_expiration_unix_ms'>;
export type ModifyRequestMessage = Omit<ModifyRequest__Output, '_selector' | 'change'> & { change: ModifyChangeMessage };
export type ModifyTicketResultMessage = Omit<ModifyTicketResult__Output, 'status'> & { status: ModifyTicketStatus };
export type ModifyReplyMessage = Omit<ModifyReply__Output, 'status' | 'results'> & {
  status: ModifyAccountStatus;
  results: ModifyTicketResultMessage[];
};

export type HistoryKind = 'deals' | 'orders';
export type HistoryRequestMessage = Omit<HistoryRequest__Output, 'kind'> & { kind: HistoryKind };
export type HistoryDealMessage = HistoryDeal__Output;
export type HistoryOrderMessage = HistoryOrder__Output;
export type HistoryReplyMessage = Omit<HistoryReply__Output, 'status'> & { status: 'ok' | 'unavailable' };

const prefix = 'mtx.connector.v1.';

export const deskCodecs = {
  modifyRequest: messageCodec<ModifyRequestMessage>(`${prefix}ModifyRequest`),
  modifyReply: messageCodec<ModifyReplyMessage>(`${prefix}ModifyReply`),
  historyRequest: messageCodec<HistoryRequestMessage>(`${prefix}HistoryRequest`),
  historyReply: messageCodec<HistoryReplyMessage>(`${prefix}HistoryReply`),
};
