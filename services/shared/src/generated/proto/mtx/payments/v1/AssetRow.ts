// Original file: proto/payments/v1/payments.proto


export interface AssetRow {
  'asset_code'?: (string);
  'asset_name'?: (string);
  'blockchain_code'?: (string);
  'blockchain_name'?: (string);
  'is_evm'?: (boolean);
  'is_stable'?: (boolean);
  'amount'?: (string);
  'decimals'?: (number);
  'display_decimals'?: (number);
}

export interface AssetRow__Output {
  'asset_code': (string);
  'asset_name': (string);
  'blockchain_code': (string);
  'blockchain_name': (string);
  'is_evm': (boolean);
  'is_stable': (boolean);
  'amount': (string);
  'decimals': (number);
  'display_decimals': (number);
}
