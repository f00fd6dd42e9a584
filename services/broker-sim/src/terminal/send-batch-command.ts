import { type Answer, refusal } from './answer';
import { runCommand } from './command-table';
import { parseInteger } from './frames';
import type { TerminalAccount } from './terminal-account';

/**
 * `send_batch` (protocol v2; docs/terminal-bridge.md, "send_batch") as the reference EAs carry it out: the items
 * one at a time, in order, each one `send` with its own trade call, the next started only once the previous one's
 * trade call has returned; an item whose start comes `ttl_ms` or more after the frame was read is `expired`, as a
 * `send` would be. One answer, the list `results`, once every item is done. A frame whose items cannot be read is
 * refused whole, before any item runs; once the connection has ended (or the EA froze) no further item is started.
 */

export const sendBatchCommand = 'send_batch';
const maxItems = 64;

export async function sendBatchCommandRun(
  terminal: TerminalAccount,
  fields: Map<string, string>,
  readAtMs: number,
  ttlMs: number,
  /** The connection ended, or the terminal froze: no further item is started. */
  stopped: () => boolean,
): Promise<Answer> {
  const count = parseInteger(fields.get('legs'));
  if (count === undefined || count < 1 || count > maxItems) return refusal('bad_request', `send_batch needs legs, 1..${maxItems}`);
  const items = Array.from({ length: count }, () => new Map<string, string>());
  for (const [key, value] of fields) {
    if (!key.startsWith('legs.')) continue;
    const dot = key.indexOf('.', 5);
    const index = dot > 5 ? Number(key.slice(5, dot)) : Number.NaN;
    if (!Number.isInteger(index) || index < 0 || index >= count || dot === key.length - 1)
      return refusal('bad_request', `${key} is not an item's argument`);
    items[index]!.set(key.slice(dot + 1), value);
  }
  const results: Array<[string, string]> = [['results', String(count)]];
  for (let index = 0; index < count; index += 1) {
    // A connection that ended takes its requests with it (its answer has nowhere to go), and a frozen EA carries
    // out nothing more: no further item is started.
    if (stopped()) break;
    const answer =
      Date.now() - readAtMs >= ttlMs
        ? refusal('expired', 'ttl_ms passed before the trade started')
        : await runCommand(terminal, 'send', items[index]!);
    const prefix = `results.${index}.`;
    if ('ok' in answer) {
      results.push([`${prefix}status`, 'ok']);
      for (const [key, value] of answer.ok) results.push([prefix + key, value]);
    } else {
      results.push([`${prefix}status`, 'error'], [`${prefix}error`, answer.error], [`${prefix}message`, answer.message.slice(0, 1024)]);
    }
  }
  return { ok: results };
}
