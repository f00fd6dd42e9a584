// Original file: proto/connector/v1/inspect.proto

import type { AccountFigures as _mtx_connector_v1_AccountFigures, AccountFigures__Output as _mtx_connector_v1_AccountFigures__Output } from '../../../mtx/connector/v1/AccountFigures';
import type { OpenPosition as _mtx_connector_v1_OpenPosition, OpenPosition__Output as _mtx_connector_v1_OpenPosition__Output } from '../../../mtx/connector/v1/OpenPosition';
import type { SymbolSpecification as _mtx_connector_v1_SymbolSpecification, SymbolSpecification__Output as _mtx_connector_v1_SymbolSpecification__Output } from '../../../mtx/connector/v1/SymbolSpecification';
import type { BaseCandidates as _mtx_connector_v1_BaseCandidates, BaseCandidates__Output as _mtx_connector_v1_BaseCandidates__Output } from '../../../mtx/connector/v1/BaseCandidates';
import type { MarginResult as _mtx_connector_v1_MarginResult, MarginResult__Output as _mtx_connector_v1_MarginResult__Output } from '../../../mtx/connector/v1/MarginResult';
import type { Long } from '@grpc/proto-loader';

export interface InspectReply {
  'account_id'?: (string);
  'status'?: (string);
  'message'?: (string);
  'account'?: (_mtx_connector_v1_AccountFigures | null);
  'positions'?: (_mtx_connector_v1_OpenPosition)[];
  'symbols'?: (_mtx_connector_v1_SymbolSpecification)[];
  'bases'?: (_mtx_connector_v1_BaseCandidates)[];
  'margins'?: (_mtx_connector_v1_MarginResult)[];
  'latency_ms'?: (number | string | Long);
  '_account'?: "account";
}

export interface InspectReply__Output {
  'account_id': (string);
  'status': (string);
  'message': (string);
  'account'?: (_mtx_connector_v1_AccountFigures__Output | null);
  'positions': (_mtx_connector_v1_OpenPosition__Output)[];
  'symbols': (_mtx_connector_v1_SymbolSpecification__Output)[];
  'bases': (_mtx_connector_v1_BaseCandidates__Output)[];
  'margins': (_mtx_connector_v1_MarginResult__Output)[];
  'latency_ms': (number);
  '_account'?: "account";
}
