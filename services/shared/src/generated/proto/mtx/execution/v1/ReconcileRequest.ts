// Original file: proto/execution/v1/execution.proto


export interface ReconcileRequest {
  'batch_id'?: (string);
}

export interface ReconcileRequest__Output {
  'batch_id': (string);
}
