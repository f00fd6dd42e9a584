import type { Broker } from '../app/broker';
import { terminalAnswerModes, type TerminalAnswers } from '../terminal/terminal-behaviour';
import type { TerminalLinkStats } from '../terminal/terminal-link-options';
import type { ControlApi } from './control-api';

/** What the control API can see and do of the hosted terminals' connections to the connectors. */
export interface TerminalControl {
  stats(): Record<string, number>;
  /** Cuts every EA's connection at once, as a network cut would; each dials again after its backoff. */
  disconnect(): Promise<void>;
  /** Switches how the account's terminal answers (services/broker-sim/src/terminal/terminal-behaviour.ts). */
  setAnswers(server: string, login: string, answers: TerminalAnswers): void;
  answersOf(server: string, login: string): TerminalAnswers;
  /** The connection state of the account's terminals. */
  terminalsOf(server: string, login: string): TerminalLinkStats[];
}

interface AccountParams {
  server: string;
  login: string;
}

const terminalParams = {
  type: 'object',
  required: ['server', 'login'],
  properties: { server: { type: 'string', minLength: 1, maxLength: 64 }, login: { type: 'string', pattern: '^[0-9]{1,16}$' } },
} as const;

const answersBody = {
  type: 'object',
  additionalProperties: false,
  required: ['answers'],
  properties: { answers: { type: 'string', enum: [...terminalAnswerModes] } },
} as const;

/**
 * The control API's validator drops fields its schema does not name (Fastify's default); here a field it does not
 * know is refused, so that a misspelt switch is not taken for a request to go back to normal.
 */
async function refuseUnknownFields(request: { body: unknown }): Promise<void> {
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const unknown = Object.keys(body).filter((key) => !(key in answersBody.properties));
  if (unknown.length > 0) throw Object.assign(new Error(`unknown field ${unknown.join(', ')}`), { statusCode: 400 });
}

/**
 * `/control/terminals/disconnect` and the per-account terminal switch `/control/accounts/:server/:login/terminal`:
 * PUT `{"answers": "normal" | "silent" | "garbage"}`, DELETE (back to normal), GET (the switch and the account's
 * terminal connections: which connector each one is admitted by, dials, welcomes, refusals). The account must
 * exist; bad input is a 400 and changes nothing.
 */
export function registerTerminalControl(app: ControlApi, broker: Broker, terminals: TerminalControl | undefined): void {
  app.post('/control/terminals/disconnect', async () => {
    const before = terminals?.stats().terminals_connected ?? 0;
    await terminals?.disconnect();
    return { disconnected: before };
  });
  if (!terminals) return;

  const describe = (server: string, login: string) => {
    // The account's own server name and login, and a 404 for an account the broker does not have.
    const account = broker.accountSnapshot(server, login);
    return {
      server: account.server,
      login: account.login,
      answers: terminals.answersOf(account.server, account.login),
      terminals: terminals.terminalsOf(account.server, account.login),
    };
  };
  const path = '/control/accounts/:server/:login/terminal';
  app.get<{ Params: AccountParams }>(path, { schema: { params: terminalParams } }, async (request) =>
    describe(request.params.server, request.params.login),
  );
  app.put<{ Params: AccountParams; Body: { answers: TerminalAnswers } }>(
    path,
    { schema: { params: terminalParams, body: answersBody }, preValidation: refuseUnknownFields },
    async (request) => {
      const { server, login } = describe(request.params.server, request.params.login);
      terminals.setAnswers(server, login, request.body.answers);
      return describe(server, login);
    },
  );
  app.delete<{ Params: AccountParams }>(path, { schema: { params: terminalParams } }, async (request) => {
    const { server, login } = describe(request.params.server, request.params.login);
    terminals.setAnswers(server, login, 'normal');
    return describe(server, login);
  });
}
