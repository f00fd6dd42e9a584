import path from 'node:path';
import { inject } from 'vitest';
import {
  createHostSeal,
  developmentHostSealKey,
  type HostSeal,
  type StartTerminalReplyMessage,
  terminalHostCodecs,
  terminalHostSubject,
} from '@mtx/shared/connector/terminal-host';
import type { Logger } from '@mtx/shared/logger';
import type { NatsConnection } from '@mtx/shared/nats';
import { type BrokerSimApp, createBrokerSimApp } from '../src/app';
import { type BrokerSimConfig, loadBrokerSimConfig } from '../src/config';

/**
 * broker-sim as the terminal host, as its tests start it and ask it to start terminals over NATS
 * (docs/terminal-bridge.md): the connectors' sealing key, no latency or price ticks, ephemeral ports.
 */
export const seal = createHostSeal(developmentHostSealKey);

/**
 * A host on `subjectRoot` keeping its journal and terminals in `directory`: `environment` is parsed as the
 * service parses its own, `overrides` replace parsed settings. Redials back off up to 200 ms.
 */
export function terminalHostApp(options: {
  subjectRoot: string;
  directory: string;
  logger: Logger;
  environment?: NodeJS.ProcessEnv;
  overrides?: Partial<BrokerSimConfig>;
}): BrokerSimApp {
  const config = loadBrokerSimConfig({ NATS_URL: inject('natsUrl'), TERMINAL_SUBJECT_ROOT: options.subjectRoot, ...options.environment });
  return createBrokerSimApp({
    config: {
      ...config,
      BROKER_SIM_LATENCY_MS: 0,
      PRICE_TICK_MS: 0,
      GRPC_PORT: 0,
      HTTP_PORT: 0,
      HOST: '127.0.0.1',
      TERMINAL_RECONNECT_MAX_MS: 200,
      ...options.overrides,
    },
    journalFile: path.join(options.directory, 'journal.ndjson'),
    terminalsFile: path.join(options.directory, 'terminals.json'),
    logger: options.logger,
  });
}

/** Asks the host on `subjectRoot` to start a platform's terminal, the password and token sealed with `sealWith`. */
export async function startTerminal(
  nats: NatsConnection,
  subjectRoot: string,
  platform: string,
  fields: { account_id: string; server: string; login: string; password: string; token: string },
  sealWith: HostSeal = seal,
): Promise<StartTerminalReplyMessage> {
  const message = await nats.request(
    terminalHostSubject(subjectRoot, platform, 'start'),
    terminalHostCodecs.startRequest.encode({
      account_id: fields.account_id,
      server: fields.server,
      login: fields.login,
      password: sealWith.seal(fields.password),
      token: sealWith.seal(fields.token),
      deadline_unix_ms: Date.now() + 3_000,
    }),
    { timeout: 5_000 },
  );
  return terminalHostCodecs.startReply.decode(message.data);
}
