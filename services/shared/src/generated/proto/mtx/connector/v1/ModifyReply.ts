// Original file: proto/connector/v1/connector.proto

import type { ModifyTicketResult as _mtx_connector_v1_ModifyTicketResult, ModifyTicketResult__Output as _mtx_connector_v1_ModifyTicketResult__Output } from '../../../mtx/connector/v1/ModifyTicketResult';
import type { Long } from '@grpc/proto-loader';

export interface ModifyReply {
  'account_id'?: (string);
  'status'?: (string);
  'matched'?: (number);
  'modified'?: (number);
  'message'?: (string);
  'results'?: (_mtx_connector_v1_ModifyTicketResult)[];
  'latency_ms'?: (number | string | Long);
}

export interface ModifyReply__Output {
  'account_id': (string);
  'status': (string);
  'matched': (number);
  'modified': (number);
  'message': (string);
  'results': (_mtx_connector_v1_ModifyTicketResult__Output)[];
  'latency_ms': (number);
}
