// Original file: proto/terminalhost/v1/terminal_host.proto


export interface ListServersRequest {
}

export interface ListServersRequest__Output {
}
