// Original file: proto/billing/v1/billing.proto


export interface SeatCounts {
  'total'?: (number);
  'used'?: (number);
  'bonus'?: (number);
}

export interface SeatCounts__Output {
  'total': (number);
  'used': (number);
  'bonus': (number);
}
