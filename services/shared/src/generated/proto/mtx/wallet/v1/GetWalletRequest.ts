// Original file: proto/wallet/v1/wallet.proto


export interface GetWalletRequest {
  'customer_id'?: (string);
  'consistent'?: (boolean);
}

export interface GetWalletRequest__Output {
  'customer_id': (string);
  'consistent': (boolean);
}
