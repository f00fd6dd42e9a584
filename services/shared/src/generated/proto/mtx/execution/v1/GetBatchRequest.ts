// Original file: proto/execution/v1/execution.proto


export interface GetBatchRequest {
  'customer_id'?: (string);
  'batch_id'?: (string);
}

export interface GetBatchRequest__Output {
  'customer_id': (string);
  'batch_id': (string);
}
