// Original file: proto/execution/v1/execution.proto

import type { ModifyTicketResult as _mtx_execution_v1_ModifyTicketResult, ModifyTicketResult__Output as _mtx_execution_v1_ModifyTicketResult__Output } from '../../../mtx/execution/v1/ModifyTicketResult';
import type { Long } from '@grpc/proto-loader';

export interface ModifyAccountResult {
  'account_id'?: (string);
  'platform'?: (string);
  'status'?: (string);
  'matched'?: (number);
  'modified'?: (number);
  'message'?: (string);
  'latency_ms'?: (number | string | Long);
  'results'?: (_mtx_execution_v1_ModifyTicketResult)[];
}

export interface ModifyAccountResult__Output {
  'account_id': (string);
  'platform': (string);
  'status': (string);
  'matched': (number);
  'modified': (number);
  'message': (string);
  'latency_ms': (number);
  'results': (_mtx_execution_v1_ModifyTicketResult__Output)[];
}
