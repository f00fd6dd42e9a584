// Original file: proto/execution/v1/execution.proto


export interface PositionsSummary {
  'accounts'?: (number);
  'positions'?: (number);
  'unavailable'?: (number);
  'unknown'?: (number);
}

export interface PositionsSummary__Output {
  'accounts': (number);
  'positions': (number);
  'unavailable': (number);
  'unknown': (number);
}
