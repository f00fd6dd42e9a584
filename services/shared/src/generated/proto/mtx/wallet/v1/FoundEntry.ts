// Original file: proto/wallet/v1/wallet.proto

import type { Long } from '@grpc/proto-loader';

export interface FoundEntry {
  'entry_id'?: (string);
  'applied'?: (boolean);
  'sequence'?: (number | string | Long);
}

export interface FoundEntry__Output {
  'entry_id': (string);
  'applied': (boolean);
  'sequence': (number);
}
