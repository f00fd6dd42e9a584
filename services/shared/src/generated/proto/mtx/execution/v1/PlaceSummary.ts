// Original file: proto/execution/v1/execution.proto


export interface PlaceSummary {
  'requested'?: (number);
  'filled'?: (number);
  'placed'?: (number);
  'failed'?: (number);
  'unknown'?: (number);
}

export interface PlaceSummary__Output {
  'requested': (number);
  'filled': (number);
  'placed': (number);
  'failed': (number);
  'unknown': (number);
}
