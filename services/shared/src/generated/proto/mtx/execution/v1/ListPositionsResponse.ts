// Original file: proto/execution/v1/execution.proto

import type { AccountPositions as _mtx_execution_v1_AccountPositions, AccountPositions__Output as _mtx_execution_v1_AccountPositions__Output } from '../../../mtx/execution/v1/AccountPositions';
import type { PositionsSummary as _mtx_execution_v1_PositionsSummary, PositionsSummary__Output as _mtx_execution_v1_PositionsSummary__Output } from '../../../mtx/execution/v1/PositionsSummary';

export interface ListPositionsResponse {
  'results'?: (_mtx_execution_v1_AccountPositions)[];
  'summary'?: (_mtx_execution_v1_PositionsSummary | null);
}

export interface ListPositionsResponse__Output {
  'results': (_mtx_execution_v1_AccountPositions__Output)[];
  'summary': (_mtx_execution_v1_PositionsSummary__Output | null);
}
