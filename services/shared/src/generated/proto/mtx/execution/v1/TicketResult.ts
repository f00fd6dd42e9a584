// Original file: proto/execution/v1/execution.proto

import type { Long } from '@grpc/proto-loader';

export interface TicketResult {
  'ticket'?: (number | string | Long);
  'symbol'?: (string);
  'type'?: (string);
  'kind'?: (string);
  'volume'?: (number | string);
  'status'?: (string);
  'retcode'?: (number);
  'retcode_description'?: (string);
  'price'?: (number | string);
  'message'?: (string);
  '_retcode'?: "retcode";
  '_retcode_description'?: "retcode_description";
  '_price'?: "price";
}

export interface TicketResult__Output {
  'ticket': (number);
  'symbol': (string);
  'type': (string);
  'kind': (string);
  'volume': (number);
  'status': (string);
  'retcode'?: (number);
  'retcode_description'?: (string);
  'price'?: (number);
  'message': (string);
  '_retcode'?: "retcode";
  '_retcode_description'?: "retcode_description";
  '_price'?: "price";
}
