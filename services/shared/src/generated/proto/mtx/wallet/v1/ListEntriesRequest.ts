// Original file: proto/wallet/v1/wallet.proto


export interface ListEntriesRequest {
  'customer_id'?: (string);
  'limit'?: (number);
}

export interface ListEntriesRequest__Output {
  'customer_id': (string);
  'limit': (number);
}
