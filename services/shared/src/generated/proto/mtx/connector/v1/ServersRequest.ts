// Original file: proto/connector/v1/connector.proto


export interface ServersRequest {
}

export interface ServersRequest__Output {
}
