// Original file: proto/brokersim/v1/brokersim.proto


export interface GetServerInfoRequest {
  'server'?: (string);
}

export interface GetServerInfoRequest__Output {
  'server': (string);
}
