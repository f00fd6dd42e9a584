// Original file: proto/wallet/v1/wallet.proto


export interface EntryKey {
  'customer_id'?: (string);
  'entry_id'?: (string);
}

export interface EntryKey__Output {
  'customer_id': (string);
  'entry_id': (string);
}
