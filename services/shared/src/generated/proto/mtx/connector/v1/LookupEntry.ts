// Original file: proto/connector/v1/connector.proto

import type { LegResult as _mtx_connector_v1_LegResult, LegResult__Output as _mtx_connector_v1_LegResult__Output } from '../../../mtx/connector/v1/LegResult';
import type { TicketResult as _mtx_connector_v1_TicketResult, TicketResult__Output as _mtx_connector_v1_TicketResult__Output } from '../../../mtx/connector/v1/TicketResult';

export interface LookupEntry {
  'client_id'?: (string);
  'state'?: (string);
  'action'?: (string);
  'leg'?: (_mtx_connector_v1_LegResult | null);
  'ticket'?: (_mtx_connector_v1_TicketResult | null);
  '_leg'?: "leg";
  '_ticket'?: "ticket";
}

export interface LookupEntry__Output {
  'client_id': (string);
  'state': (string);
  'action': (string);
  'leg'?: (_mtx_connector_v1_LegResult__Output | null);
  'ticket'?: (_mtx_connector_v1_TicketResult__Output | null);
  '_leg'?: "leg";
  '_ticket'?: "ticket";
}
