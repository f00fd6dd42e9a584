// Original file: proto/brokersim/v1/brokersim.proto


export interface PingResponse {
  'connected'?: (boolean);
  'server'?: (string);
  'balance'?: (number | string);
  'equity'?: (number | string);
  'margin'?: (number | string);
  'free_margin'?: (number | string);
}

export interface PingResponse__Output {
  'connected': (boolean);
  'server': (string);
  'balance': (number);
  'equity': (number);
  'margin': (number);
  'free_margin': (number);
}
