import type { Msg, NatsConnection, Subscription } from 'nats';
import {
  terminalHostCodecs,
  terminalHostQueue,
  terminalHostSubject,
  type StartTerminalReplyMessage,
} from '@mtx/shared/connector/terminal-host';
import type { Logger } from '@mtx/shared/logger';
import type { Platform, TerminalHost } from '../app/terminal-host';

const platforms: readonly Platform[] = ['mt4', 'mt5'];

/**
 * The terminal host protocol over NATS (proto/terminalhost/v1/terminal_host.proto) for both platforms: `start`
 * and `servers` in each platform's queue group, `stop` on every host, answered only by the one that ran the
 * terminal. Returns the subscriptions; draining them lets the requests in hand be answered.
 */
export function serveTerminalHost(nats: NatsConnection, subjectRoot: string, host: TerminalHost, logger: Logger): Subscription[] {
  const subscriptions: Subscription[] = [];
  const answer = (message: Msg, data: Uint8Array) => {
    if (!message.reply) return;
    try {
      message.respond(data);
    } catch (error) {
      logger.warn({ err: (error as Error).message, subject: message.subject }, 'terminal host answer not sent');
    }
  };
  for (const platform of platforms) {
    const queue = terminalHostQueue(platform);
    subscriptions.push(
      nats.subscribe(terminalHostSubject(subjectRoot, platform, 'start'), {
        queue,
        callback: (error, message) => {
          if (error) return;
          void (async () => {
            let reply: StartTerminalReplyMessage;
            try {
              reply = await host.start(platform, terminalHostCodecs.startRequest.decode(message.data));
            } catch (failure) {
              logger.error({ err: failure }, 'terminal start failed');
              reply = {
                status: 'unavailable',
                message: 'the host failed to start the terminal',
                server: '',
                symbol_suffix: '',
                margin_mode: '',
              };
            }
            answer(message, terminalHostCodecs.startReply.encode(reply));
          })();
        },
      }),
      nats.subscribe(terminalHostSubject(subjectRoot, platform, 'servers'), {
        queue,
        callback: (error, message) => {
          if (error) return;
          answer(message, terminalHostCodecs.serversReply.encode({ servers: host.servers(platform) }));
        },
      }),
      nats.subscribe(terminalHostSubject(subjectRoot, platform, 'stop'), {
        callback: (error, message) => {
          if (error) return;
          void (async () => {
            try {
              const { account_id: accountId } = terminalHostCodecs.stopRequest.decode(message.data);
              // Only the host that ran the terminal answers: the others stay silent (the requester waits for one).
              if (await host.stop(accountId)) answer(message, terminalHostCodecs.stopReply.encode({ stopped: true }));
            } catch (failure) {
              logger.error({ err: failure }, 'terminal stop failed');
            }
          })();
        },
      }),
    );
  }
  return subscriptions;
}
