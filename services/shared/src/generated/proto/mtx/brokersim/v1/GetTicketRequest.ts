// Original file: proto/brokersim/v1/brokersim.proto

import type { Long } from '@grpc/proto-loader';

export interface GetTicketRequest {
  'session_id'?: (string);
  'ticket'?: (number | string | Long);
}

export interface GetTicketRequest__Output {
  'session_id': (string);
  'ticket': (number);
}
