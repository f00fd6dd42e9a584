// Original file: proto/connector/v1/connector.proto

import type { TicketResult as _mtx_connector_v1_TicketResult, TicketResult__Output as _mtx_connector_v1_TicketResult__Output } from '../../../mtx/connector/v1/TicketResult';
import type { Long } from '@grpc/proto-loader';

export interface CloseReply {
  'account_id'?: (string);
  'status'?: (string);
  'matched'?: (number);
  'closed'?: (number);
  'message'?: (string);
  'results'?: (_mtx_connector_v1_TicketResult)[];
  'latency_ms'?: (number | string | Long);
}

export interface CloseReply__Output {
  'account_id': (string);
  'status': (string);
  'matched': (number);
  'closed': (number);
  'message': (string);
  'results': (_mtx_connector_v1_TicketResult__Output)[];
  'latency_ms': (number);
}
