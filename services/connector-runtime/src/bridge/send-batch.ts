import { type AnswerError, answerErrors, type AnswerFrame, type RequestFrame } from './frames';
import { formatInteger, parseInteger } from './numbers';
import { BridgeProtocolError } from './wire';

/**
 * `send_batch` (protocol v2; docs/terminal-bridge.md, "send_batch"): several `send` requests of one terminal in one
 * frame, carried out by the EA one at a time in order and answered in one frame. An account's legs then cost one
 * request and one answer on both ends instead of one per leg; each leg keeps its own `send` arguments and result.
 */

export const sendBatchCommand = 'send_batch';
/** Items per `send_batch`: the protocol's bound. */
export const maxBatchItems = 64;

/** The `send_batch` request of these `send` argument maps, in order; `ttl_ms` bounds the start of every item. */
export function sendBatchRequest(id: number, ttlMs: number, items: ReadonlyArray<Map<string, string>>): RequestFrame {
  const args = new Map<string, string>([['legs', formatInteger(items.length)]]);
  for (let index = 0; index < items.length; index += 1) {
    const prefix = `legs.${index}.`;
    for (const [key, value] of items[index]!) args.set(prefix + key, value);
  }
  return { type: 'req', id, command: sendBatchCommand, ttlMs, args };
}

/** One item's answer, as a `send`'s own `res` would have been. */
export interface BatchItemAnswer {
  status: 'ok' | 'error';
  error?: AnswerError;
  message: string;
  fields: Map<string, string>;
}

function malformed(message: string): never {
  throw new BridgeProtocolError('malformed', `send_batch answer: ${message}`);
}

/**
 * The answer of each of `count` items. `status=error` on the frame means no item ran: each gets that error. An
 * ok answer holds the list `results` with exactly `count` items, each with its `status` (and `error`, `message`)
 * and its `send` results; anything else is malformed, which ends the connection, so every item is then unknown.
 */
export function splitBatchAnswer(frame: AnswerFrame, count: number): BatchItemAnswer[] {
  if (frame.status === 'error') {
    return Array.from({ length: count }, () => {
      const item: BatchItemAnswer = { status: 'error', message: frame.message, fields: new Map() };
      if (frame.error !== undefined) item.error = frame.error;
      return item;
    });
  }
  const listed = frame.fields.get('results');
  if (listed === undefined || parseInteger(listed, 'results') !== count) malformed(`results must be ${count}`);
  const items = Array.from({ length: count }, () => new Map<string, string>());
  for (const [key, value] of frame.fields) {
    if (!key.startsWith('results.')) continue;
    const dot = key.indexOf('.', 8);
    const index = dot > 8 ? Number(key.slice(8, dot)) : Number.NaN;
    if (!Number.isInteger(index) || index < 0 || index >= count || dot === key.length - 1) malformed(`${key} is not an item's field`);
    items[index]!.set(key.slice(dot + 1), value);
  }
  return items.map((fields, index) => {
    const status = fields.get('status');
    if (status !== 'ok' && status !== 'error') return malformed(`results.${index}.status is missing or not ok|error`);
    const message = fields.get('message') ?? '';
    fields.delete('status');
    fields.delete('message');
    if (status === 'error') {
      const error = fields.get('error') as AnswerError | undefined;
      if (error === undefined || !answerErrors.includes(error)) return malformed(`results.${index}.error is not an answer error`);
      fields.delete('error');
      return { status, error, message, fields };
    }
    // In an ok item `error` is a result: the MT4 EA's error number, as in a `send` answer.
    const resultError = fields.get('error');
    if (resultError !== undefined) fields.set('error', formatInteger(parseInteger(resultError, 'error')));
    return { status, message, fields };
  });
}
