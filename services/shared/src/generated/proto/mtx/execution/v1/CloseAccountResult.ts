// Original file: proto/execution/v1/execution.proto

import type { TicketResult as _mtx_execution_v1_TicketResult, TicketResult__Output as _mtx_execution_v1_TicketResult__Output } from '../../../mtx/execution/v1/TicketResult';
import type { Long } from '@grpc/proto-loader';

export interface CloseAccountResult {
  'account_id'?: (string);
  'platform'?: (string);
  'status'?: (string);
  'matched'?: (number);
  'closed'?: (number);
  'message'?: (string);
  'latency_ms'?: (number | string | Long);
  'results'?: (_mtx_execution_v1_TicketResult)[];
}

export interface CloseAccountResult__Output {
  'account_id': (string);
  'platform': (string);
  'status': (string);
  'matched': (number);
  'closed': (number);
  'message': (string);
  'latency_ms': (number);
  'results': (_mtx_execution_v1_TicketResult__Output)[];
}
