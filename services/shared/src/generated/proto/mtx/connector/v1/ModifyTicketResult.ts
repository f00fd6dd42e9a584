// Original file: proto/connector/v1/connector.proto

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
}

export interface ModifyTicketResult__Output {
  'ticket': (number);
  'symbol': (string);
  'type': (string);
  'kind': (string);
  'status': (string);
  'retcode': (number);
  'retcode_description': (string);
  'stop_loss': (number);
  'take_profit': (number);
  'price': (number);
  'message': (string);
}
