// Original file: proto/brokersim/v1/brokersim.proto


export interface GetSymbolRequest {
  'session_id'?: (string);
  'symbol'?: (string);
}

export interface GetSymbolRequest__Output {
  'session_id': (string);
  'symbol': (string);
}
