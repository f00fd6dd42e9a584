import { type Answer, type RequestArguments, ResultFields } from './answer';
import { maxListItems } from './read-commands';
import type { TerminalAccount } from './terminal-account';

/**
 * `symbols` (docs/terminal-bridge.md, "Commands"): every symbol the account's trade server lists whose name starts
 * with `prefix` (case-insensitively), in the server's own order, as the reference EAs walk `SymbolsTotal(false)`.
 */
export async function symbolsCommand(terminal: TerminalAccount, args: RequestArguments): Promise<Answer> {
  const problem = args.problem('prefix:t');
  if (problem) return problem;
  const account = await terminal.state();
  const prefix = args.text('prefix').toLowerCase();
  const names = [...account.server.symbols.values()].map((spec) => spec.name).filter((name) => name.toLowerCase().startsWith(prefix));
  const items = names.slice(0, maxListItems).map((name) => new ResultFields().text('name', name));
  return new ResultFields().list('symbols', items, names.length > maxListItems).answer();
}
