// Original file: proto/execution/v1/execution.proto


export interface ReconcileResponse {
  'checked'?: (number);
  'settled'?: (number);
  'pending'?: (number);
}

export interface ReconcileResponse__Output {
  'checked': (number);
  'settled': (number);
  'pending': (number);
}
