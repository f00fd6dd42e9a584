/**
 * What `bridge:check` asks of each answer a terminal gives (docs/terminal-bridge.md, "Numbers and times",
 * "Lists" and "Commands"): a field present and of its kind, within its bounds, with the meaning the command
 * gives it. A check that does not hold throws CheckFailure, whose message becomes the row's detail.
 */
import { decodeList } from '@mtx/connector-runtime/bridge/lists';
import type { TerminalAnswer } from '@mtx/connector-runtime/bridge/terminal-calls';

export class CheckFailure extends Error {}

const integerPattern = /^-?[0-9]{1,19}$/;
const decimalPattern = /^-?[0-9]{1,40}(\.[0-9]{1,40})?$/;

/** The fields of one answer, or of one item of a list in it, read with the checks the document sets. */
export class AnswerFields {
  constructor(
    private readonly where: string,
    private readonly fields: Map<string, string>,
  ) {}

  /** An answer with `status=ok`; `status=error` fails with the EA's error code and message. */
  static ok(command: string, answer: TerminalAnswer): AnswerFields {
    if (answer.status !== 'ok') throw new CheckFailure(`${command}: status=error error=${answer.error ?? '?'} ${answer.message}`.trim());
    return new AnswerFields(command, answer.fields);
  }

  has(key: string): boolean {
    return this.fields.has(key);
  }

  text(key: string, maxChars = 1024): string {
    const value = this.fields.get(key);
    if (value === undefined) throw new CheckFailure(`${this.where}: ${key} is missing`);
    if ([...value].length > maxChars) throw new CheckFailure(`${this.where}: ${key} is longer than ${maxChars} characters`);
    return value;
  }

  integer(key: string, bounds: { min?: number; max?: number } = {}): number {
    const text = this.text(key);
    if (!integerPattern.test(text) || !Number.isSafeInteger(Number(text)))
      throw new CheckFailure(`${this.where}: ${key}=${JSON.stringify(text.slice(0, 32))} is not an integer`);
    return this.within(key, Number(text), bounds);
  }

  decimal(key: string, bounds: { min?: number; max?: number } = {}): number {
    const text = this.text(key);
    if (!decimalPattern.test(text)) throw new CheckFailure(`${this.where}: ${key}=${JSON.stringify(text.slice(0, 32))} is not a decimal`);
    return this.within(key, Number(text), bounds);
  }

  boolean(key: string): boolean {
    return this.oneOf(key, ['0', '1']) === '1';
  }

  oneOf<Value extends string>(key: string, values: readonly Value[]): Value {
    const text = this.text(key);
    if (!(values as readonly string[]).includes(text))
      throw new CheckFailure(`${this.where}: ${key}=${JSON.stringify(text.slice(0, 32))} is not one of ${values.join(', ')}`);
    return text as Value;
  }

  /** Fails unless the field reads as `expected` (numbers compared as numbers, so `0.10` equals `0.1`). */
  equals(key: string, expected: string | number): void {
    const text = this.text(key);
    const same = typeof expected === 'number' ? decimalPattern.test(text) && Math.abs(Number(text) - expected) < 1e-9 : text === expected;
    if (!same) throw new CheckFailure(`${this.where}: ${key}=${text}, expected ${expected}`);
  }

  /** The items of list `name`, and `more` checked against the count: a cut list says so. */
  list(name: string): AnswerFields[] {
    let items: Array<Map<string, string>>;
    try {
      items = decodeList(this.fields, name);
    } catch (error) {
      throw new CheckFailure(`${this.where}: ${(error as Error).message}`);
    }
    return items.map((item, index) => new AnswerFields(`${this.where} ${name}.${index}`, item));
  }

  private within(key: string, value: number, { min, max }: { min?: number; max?: number }): number {
    if ((min !== undefined && value < min) || (max !== undefined && value > max))
      throw new CheckFailure(`${this.where}: ${key}=${value} is outside ${min ?? '…'}..${max ?? '…'}`);
    return value;
  }
}

/** Fails unless the answer is `status=error` with this error code: the command did not run, as required. */
export function expectAnswerError(command: string, answer: TerminalAnswer, error: string): string {
  if (answer.status === 'ok') throw new CheckFailure(`${command}: answered ok, expected error=${error}`);
  if (answer.error !== error) throw new CheckFailure(`${command}: error=${answer.error ?? '?'}, expected ${error} (${answer.message})`);
  return `error=${error} as required`;
}

/** A position's fields (docs/terminal-bridge.md, "`positions` and `orders`"). */
export function checkPosition(item: AnswerFields, platform: 'mt4' | 'mt5'): void {
  item.integer('ticket', { min: 1 });
  item.text('symbol', 64);
  item.oneOf('type', ['0', '1']);
  item.decimal('volume', { min: 0 });
  for (const key of ['price_open', 'price_current', 'sl', 'tp']) item.decimal(key, { min: 0 });
  for (const key of ['profit', 'swap']) item.decimal(key);
  item.integer('magic');
  item.text('comment', 64);
  item.integer('time', { min: 0 });
  if (platform === 'mt5') item.integer('identifier', { min: 1 });
  else item.decimal('commission');
}

/** A pending order's fields. */
export function checkOrder(item: AnswerFields, platform: 'mt4' | 'mt5'): void {
  item.integer('ticket', { min: 1 });
  item.text('symbol', 64);
  item.integer('type', { min: 2, max: 7 });
  item.decimal('volume', { min: 0 });
  for (const key of ['price_open', 'price_current', 'sl', 'tp']) item.decimal(key, { min: 0 });
  item.integer('magic');
  item.text('comment', 64);
  item.integer('time_setup', { min: 0 });
  item.integer('expiration', { min: 0 });
  if (platform === 'mt5') {
    item.decimal('price_stoplimit', { min: 0 });
    item.decimal('volume_initial', { min: 0 });
    item.integer('type_time', { min: 0 });
  }
}

/** A list answer's `more` flag: `1` only when the list is full. */
export function checkMore(answer: AnswerFields, count: number): boolean {
  const more = answer.boolean('more');
  if (more && count < 500) throw new CheckFailure(`more=1 with only ${count} items: a list is cut only at 500`);
  return more;
}
