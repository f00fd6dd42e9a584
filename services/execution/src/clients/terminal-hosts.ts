import { ErrorCode, type NatsConnection, type NatsError } from 'nats';
import {
  terminalHostCodecs,
  terminalHostSubject,
  type ServerEntryMessage,
  type StartTerminalReplyMessage,
  type StartTerminalRequestMessage,
} from '@mtx/shared/connector/terminal-host';
import { injectTraceHeaders, natsHeaders } from '@mtx/shared/nats';

/** How a request to the hosts ended when no host answered it. */
export type HostSilence = { kind: 'no_responders' } | { kind: 'timeout' } | { kind: 'failed'; message: string };

function silenceOf(error: unknown): HostSilence {
  const code = (error as NatsError).code;
  if (code === ErrorCode.NoResponders) return { kind: 'no_responders' };
  if (code === ErrorCode.Timeout) return { kind: 'timeout' };
  return { kind: 'failed', message: (error as Error).message };
}

/**
 * Requests to the terminal hosts over NATS (proto/terminalhost/v1/terminal_host.proto; docs/terminal-bridge.md,
 * "Terminal hosts"). Never rejects: a host that did not answer is a HostSilence.
 */
export class TerminalHostClient {
  constructor(
    private readonly nats: NatsConnection,
    private readonly subjectRoot: string,
  ) {}

  private async ask(subject: string, payload: Uint8Array, timeoutMs: number): Promise<{ data: Uint8Array } | HostSilence> {
    try {
      const message = await this.nats.request(subject, payload, {
        timeout: Math.max(1, timeoutMs),
        headers: injectTraceHeaders(natsHeaders()),
      });
      return { data: message.data };
    } catch (error) {
      return silenceOf(error);
    }
  }

  /**
   * Asks one host of the platform to start the account's terminal. The host answers by the request's deadline; the
   * wait here lasts a little longer so that its `started` is heard rather than cut by the timer.
   */
  async start(platform: string, request: StartTerminalRequestMessage, slackMs = 1_000): Promise<StartTerminalReplyMessage | HostSilence> {
    const waitMs = Number(request.deadline_unix_ms) - Date.now() + slackMs;
    const answer = await this.ask(
      terminalHostSubject(this.subjectRoot, platform, 'start'),
      terminalHostCodecs.startRequest.encode(request),
      waitMs,
    );
    return 'data' in answer ? terminalHostCodecs.startReply.decode(answer.data) : answer;
  }

  /** Asks every host of the platform to stop the account's terminal; true when one said it stopped it. */
  async stop(platform: string, accountId: string, timeoutMs: number): Promise<boolean> {
    const answer = await this.ask(
      terminalHostSubject(this.subjectRoot, platform, 'stop'),
      terminalHostCodecs.stopRequest.encode({ account_id: accountId }),
      timeoutMs,
    );
    return 'data' in answer && terminalHostCodecs.stopReply.decode(answer.data).stopped;
  }

  /** The trade servers one host of the platform can log in to; undefined when no host answered. */
  async servers(platform: string, timeoutMs: number): Promise<ServerEntryMessage[] | undefined> {
    const answer = await this.ask(
      terminalHostSubject(this.subjectRoot, platform, 'servers'),
      terminalHostCodecs.serversRequest.encode({}),
      timeoutMs,
    );
    return 'data' in answer ? terminalHostCodecs.serversReply.decode(answer.data).servers : undefined;
  }
}
