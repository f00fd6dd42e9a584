import { createSecretBox, parseSecretKey } from '../service/secret-box';
import { messageCodec } from '../rpc/proto';
import type { ListServersReply__Output } from '../generated/proto/mtx/terminalhost/v1/ListServersReply';
import type { SealedSecret__Output } from '../generated/proto/mtx/terminalhost/v1/SealedSecret';
import type { ServerEntry__Output } from '../generated/proto/mtx/terminalhost/v1/ServerEntry';
import type { StartTerminalReply__Output } from '../generated/proto/mtx/terminalhost/v1/StartTerminalReply';
import type { StartTerminalRequest__Output } from '../generated/proto/mtx/terminalhost/v1/StartTerminalRequest';
import type { StopTerminalReply__Output } from '../generated/proto/mtx/terminalhost/v1/StopTerminalReply';
import type { StopTerminalRequest__Output } from '../generated/proto/mtx/terminalhost/v1/StopTerminalRequest';

/**
 * The terminal host protocol (proto/terminalhost/v1/terminal_host.proto; docs/terminal-bridge.md, "Terminal
 * hosts"): its subjects, codecs and the sealing of the secrets execution hands a host.
 */

export type TerminalHostOp = 'start' | 'stop' | 'servers';

/** Account token of the host subjects (account ids all start `acc_`, so it names no account). */
export const hostToken = 'host';

/** `<root>.<platform>.host.<op>`, under the connectors' subject root. */
export function terminalHostSubject(root: string, platform: string, op: TerminalHostOp): string {
  return `${root}.${platform}.${hostToken}.${op}`;
}

/** The queue group of the hosts of a platform for `start` and `servers` (`stop` goes to every host). */
export function terminalHostQueue(platform: string): string {
  return `terminal-host-${platform}`;
}

export type StartTerminalStatus = 'attached' | 'started' | 'invalid_credentials' | 'unknown_server' | 'wrong_platform' | 'unavailable';
export const startTerminalStatuses: readonly StartTerminalStatus[] = [
  'attached',
  'started',
  'invalid_credentials',
  'unknown_server',
  'wrong_platform',
  'unavailable',
];

export type SealedSecretMessage = SealedSecret__Output;
export type StartTerminalRequestMessage = StartTerminalRequest__Output;
export type StartTerminalReplyMessage = Omit<StartTerminalReply__Output, 'status'> & { status: StartTerminalStatus };
export type StopTerminalRequestMessage = StopTerminalRequest__Output;
export type StopTerminalReplyMessage = StopTerminalReply__Output;
export type ServerEntryMessage = ServerEntry__Output;
export type ListServersReplyMessage = ListServersReply__Output;

const prefix = 'mtx.terminalhost.v1.';

export const terminalHostCodecs = {
  startRequest: messageCodec<StartTerminalRequestMessage>(`${prefix}StartTerminalRequest`),
  startReply: messageCodec<StartTerminalReplyMessage>(`${prefix}StartTerminalReply`),
  stopRequest: messageCodec<StopTerminalRequestMessage>(`${prefix}StopTerminalRequest`),
  stopReply: messageCodec<StopTerminalReplyMessage>(`${prefix}StopTerminalReply`),
  serversRequest: messageCodec<Record<string, never>>(`${prefix}ListServersRequest`),
  serversReply: messageCodec<ListServersReplyMessage>(`${prefix}ListServersReply`),
};

/**
 * Development key shared by execution and the hosts (broker-sim). Anything beyond a laptop sets
 * TERMINAL_HOST_SEAL_KEY (32 random bytes, base64 or hex) on execution and on every host, and nowhere else.
 */
export const developmentHostSealKey = 'ZGV2LW9ubHktdGVybWluYWwtaG9zdC1zZWFsLWtleSE=';

/** Seals and opens the secrets of a StartTerminalRequest (AES-256-GCM, a random IV each). */
export function createHostSeal(keySetting: string) {
  const box = createSecretBox(parseSecretKey(keySetting, 'TERMINAL_HOST_SEAL_KEY'));
  return {
    seal(plaintext: string): SealedSecretMessage {
      const sealed = box.seal(plaintext);
      return {
        iv: Buffer.from(sealed.iv, 'base64'),
        tag: Buffer.from(sealed.tag, 'base64'),
        data: Buffer.from(sealed.data, 'base64'),
      };
    },
    /** Throws when the secret was sealed under another key or altered. */
    open(sealed: SealedSecretMessage): string {
      return box.open({
        v: 1,
        iv: Buffer.from(sealed.iv).toString('base64'),
        tag: Buffer.from(sealed.tag).toString('base64'),
        data: Buffer.from(sealed.data).toString('base64'),
      });
    },
  };
}

export type HostSeal = ReturnType<typeof createHostSeal>;
