// Original file: proto/payments/v1/payments.proto


export interface HandlePostbackRequest {
  'provider'?: (string);
  'body'?: (Buffer | Uint8Array | string);
  'headers'?: ({[key: string]: string});
}

export interface HandlePostbackRequest__Output {
  'provider': (string);
  'body': (Buffer);
  'headers': ({[key: string]: string});
}
