/**
 * `bridge:check --trade` on an EA that speaks v2: two small buys at once, which the connector's call table sends
 * as one `send_batch` (docs/terminal-bridge.md, "send_batch"). Both must be carried out, in index order, and
 * answered in one frame (each item's answer carries the one request's id); both positions are closed again.
 */
import { randomUUID } from 'node:crypto';
import { tradeComment } from '@mtx/connector-runtime/bridge/client-tag';
import { AnswerFields, CheckFailure } from './bridge-check-answers';
import type { ReadOutcome, TerminalIdentity } from './bridge-check-reads';
import { type CheckRun, needs } from './bridge-check-steps';
import { expectDone, positionOfOrder, slippage } from './bridge-check-trades';

export async function runSendBatch(run: CheckRun, terminal: TerminalIdentity, reads: ReadOutcome, version: number): Promise<void> {
  const { platform } = terminal;
  if (version < 2) {
    run.note('send_batch', 'skipped', 'skipped: the EA speaks protocol v1, which has no send_batch');
    return;
  }
  const opened: number[] = [];
  await run.step('send_batch', async (call) => {
    const info = needs(reads.symbol, 'symbol');
    const comments = [0, 1].map(() => tradeComment('bridge check', `bridge-check-${randomUUID()}`));
    const argsOf = (comment: string): Record<string, string | number> =>
      platform === 'mt5'
        ? { action: 1, type: 0, symbol: info.name, volume: info.volumeMin, price: info.ask.toFixed(info.digits), magic: 0, comment }
        : { symbol: info.name, op: 0, volume: info.volumeMin, magic: 0, comment };
    // Made in one turn, the two sends leave as one send_batch.
    const answers = await Promise.all(comments.map((comment) => call('send', { ...argsOf(comment), ...slippage(platform) })));
    if (answers[0]!.id !== answers[1]!.id) throw new CheckFailure('send_batch: the two sends were not sent and answered as one request');
    const tickets: number[] = [];
    for (const [index, answer] of answers.entries()) {
      const fields = AnswerFields.ok('send_batch', answer);
      expectDone(`send_batch item ${index}`, fields, platform);
      const ticket = platform === 'mt5' ? await positionOfOrder(call, fields, comments[index]!) : fields.integer('ticket', { min: 1 });
      tickets.push(ticket);
      opened.push(ticket);
    }
    if (!(tickets[0]! < tickets[1]!)) throw new CheckFailure(`send_batch: items not carried out in order (tickets ${tickets.join(', ')})`);
    return { detail: `two buys of ${info.volumeMin} in one request, positions ${tickets.join(', ')} in order`, value: undefined };
  });
  if (opened.length === 0) return;
  await run.step('close (send_batch)', async (call) => {
    for (const ticket of opened)
      expectDone('close', AnswerFields.ok('close', await call('close', { ticket, ...slippage(platform) })), platform);
    return { detail: `closed positions ${opened.join(', ')}`, value: undefined };
  });
}
