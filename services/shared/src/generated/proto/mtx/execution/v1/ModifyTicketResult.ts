// Original file: proto/execution/v1/execution.proto

import type { Long } from '@grpc/proto-loader';

export interface ModifyTicketResult {
  'ticket'?: (number | string | Long);
  'symbol'?: (string);
  'type'?: (string);
  'kind'?: (string);
  'status'?: (string);
  'retcode'?: (number);
  'retcode_description'?: (string);
  'stop_loss'?: (number | string);
  'take_profit'?: (number | string);
  'price'?: (number | string);
  'message'?: (string);
  '_retcode'?: "retcode";
  '_retcode_description'?: "retcode_description";
}

export interface ModifyTicketResult__Output {
  'ticket': (number);
  'symbol': (string);
  'type': (string);
  'kind': (string);
  'status': (string);
  'retcode'?: (number);
  'retcode_description'?: (string);
  'stop_loss': (number);
  'take_profit': (number);
  'price': (number);
  'message': (string);
  '_retcode'?: "retcode";
  '_retcode_description'?: "retcode_description";
}
