import { BrokerError } from '../app/broker';
import { type Answer, refusal, RequestArguments } from './answer';
import { findCommand, historyCommand } from './history-commands';
import { accountCommand, checkCommand, ordersCommand, positionsCommand, symbolCommand, ticketCommand } from './read-commands';
import { symbolsCommand } from './symbols-command';
import type { TerminalAccount } from './terminal-account';
import { closeCommand, deleteCommand, modifyCommand, sendCommand } from './trade-commands';

/** The commands of protocol v1 (docs/terminal-bridge.md, "Commands") and the emulated EA's handler of each. */
const commands: Record<string, (terminal: TerminalAccount, args: RequestArguments) => Promise<Answer>> = {
  account: (terminal) => accountCommand(terminal),
  symbol: symbolCommand,
  symbols: symbolsCommand,
  positions: positionsCommand,
  orders: ordersCommand,
  ticket: ticketCommand,
  check: checkCommand,
  send: sendCommand,
  close: closeCommand,
  delete: deleteCommand,
  modify: modifyCommand,
  history: historyCommand,
  find: findCommand,
};

/** Trade commands carry `ttl_ms` and start only within it. */
export const tradeCommands = new Set(['send', 'close', 'delete', 'modify']);

/**
 * Runs one request. An exception before the trade call (the trade server unreachable, say) is `internal`:
 * broker-sim's trade pipeline throws only before anything executes, so the guarantee of `status=error` holds.
 */
export async function runCommand(terminal: TerminalAccount, cmd: string, fields: Map<string, string>): Promise<Answer> {
  const handler = commands[cmd];
  if (!handler) return refusal('unsupported', `command ${cmd} is not part of protocol v1`);
  try {
    return await handler(terminal, new RequestArguments(fields));
  } catch (error) {
    const message = error instanceof BrokerError || error instanceof Error ? error.message : String(error);
    return refusal('internal', message);
  }
}
