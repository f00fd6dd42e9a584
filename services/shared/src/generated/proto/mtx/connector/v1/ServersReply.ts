// Original file: proto/connector/v1/connector.proto

import type { ServerEntry as _mtx_connector_v1_ServerEntry, ServerEntry__Output as _mtx_connector_v1_ServerEntry__Output } from '../../../mtx/connector/v1/ServerEntry';

export interface ServersReply {
  'servers'?: (_mtx_connector_v1_ServerEntry)[];
}

export interface ServersReply__Output {
  'servers': (_mtx_connector_v1_ServerEntry__Output)[];
}
