import { createLogger } from '@mtx/shared/logger';
import { expect } from 'vitest';
import { type TerminalDirectory, tokenDigest } from '../src/bridge/terminal-admission';
import { type LateAnswer, TerminalCallError } from '../src/bridge/terminal-calls';
import { TerminalServer, type TerminalServerSettings } from '../src/bridge/terminal-server';
import { goodToken, ScriptedTerminal } from './scripted-terminal';

/** The terminal listener's tests' common ground: shortened bounds, a registry, a server with captured logs and events. */

export const settings: TerminalServerSettings = {
  host: '127.0.0.1',
  port: 0,
  maxConnections: 16,
  helloDeadlineMs: 400,
  heartbeatMs: 150,
  idleMs: 2_000,
  maxInFlight: 2,
  maxQueued: 1,
  maxFrameBytes: 4_096,
  lookupDeadlineMs: 500,
  latencyAllowanceMs: 10,
  closeWaitMs: 200,
};

/** Accounts by login, as an operator's registry keyed by login alone would answer. */
export const directory: TerminalDirectory = {
  async lookup({ login }) {
    if (login === 5001234)
      return { accountId: 'acc_one', tokenDigest: tokenDigest(goodToken), login: String(login), server: 'Demo-Broker-Server' };
    if (login === 5009999)
      return { accountId: 'acc_two', tokenDigest: tokenDigest(`${goodToken}x`), login: String(login), server: 'Demo-Broker-Server' };
    return null;
  },
};

export interface Harness {
  server: TerminalServer;
  port: number;
  logLines: string[];
  events: string[];
  late: LateAnswer[];
}

const running: TerminalServer[] = [];

/** Closes every server the test started (an afterEach). */
export async function stopServers(): Promise<void> {
  await Promise.all(running.splice(0).map((server) => server.close(100)));
}

export async function startServer(overrides: Partial<TerminalServerSettings> = {}): Promise<Harness> {
  const logLines: string[] = [];
  const logger = createLogger('terminal-server-test', { level: 'info' }, { write: (line: string) => void logLines.push(line) });
  const events: string[] = [];
  const late: LateAnswer[] = [];
  const server = new TerminalServer(
    { ...settings, ...overrides },
    {
      directory,
      logger,
      events: {
        attached: (event) => {
          events.push(`attached ${event.accountId}${event.replaced ? ' replacing' : ''}`);
        },
        detached: (event) => events.push(`detached ${event.accountId}`),
        lateAnswer: (event) => late.push(event),
      },
    },
  );
  running.push(server);
  const port = await server.start();
  return { server, port, logLines, events, late };
}

export async function welcomed(port: number, hello: Record<string, string | number> = {}): Promise<ScriptedTerminal> {
  const terminal = await ScriptedTerminal.connect(port);
  terminal.hello(hello);
  const welcome = await terminal.next();
  expect(welcome.type).toBe('welcome');
  return terminal;
}

export async function failure(promise: Promise<unknown>): Promise<TerminalCallError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TerminalCallError);
  return error as TerminalCallError;
}
