import { formatDecimal, formatPrice, parseDecimal, parseInteger } from './frames';

/**
 * A command's answer as the reference EAs build it (docs/terminal-bridge.md, "Commands"): `ok` with its result
 * fields, or an answer error that guarantees no trade function ran.
 */
export type Answer = { ok: Array<[string, string]> } | { error: AnswerError; message: string };

export type AnswerError = 'unsupported' | 'bad_request' | 'busy' | 'expired' | 'not_found' | 'internal';

export function refusal(error: AnswerError, message: string): Answer {
  return { error, message };
}

/** Result fields in the order they are written, each in the document's number format. */
export class ResultFields {
  readonly entries: Array<[string, string]> = [];

  text(key: string, value: string): this {
    this.entries.push([key, value]);
    return this;
  }

  integer(key: string, value: number): this {
    this.entries.push([key, String(Math.trunc(value))]);
    return this;
  }

  decimal(key: string, value: number): this {
    this.entries.push([key, formatDecimal(value)]);
    return this;
  }

  price(key: string, value: number, digits: number): this {
    this.entries.push([key, formatPrice(value, digits)]);
    return this;
  }

  /** Appends a list: `<name>=<count>`, `more`, then each item's fields under `<name>.<index>.`. */
  list(name: string, items: ResultFields[], more: boolean): this {
    this.integer(name, items.length).integer('more', more ? 1 : 0);
    items.forEach((item, index) => {
      for (const [key, value] of item.entries) this.entries.push([`${name}.${index}.${key}`, value]);
    });
    return this;
  }

  answer(): Answer {
    return { ok: this.entries };
  }
}

/** The arguments of one request, read as the reference EAs read them (`Arg`, `ArgL`, `ArgD`). */
export class RequestArguments {
  constructor(private readonly fields: Map<string, string>) {}

  has(key: string): boolean {
    return this.fields.has(key);
  }

  text(key: string, fallback = ''): string {
    return this.fields.get(key) ?? fallback;
  }

  integer(key: string, fallback = 0): number {
    return this.has(key) ? (parseInteger(this.fields.get(key)) ?? fallback) : fallback;
  }

  decimal(key: string, fallback = 0): number {
    return this.has(key) ? (parseDecimal(this.fields.get(key)) ?? fallback) : fallback;
  }

  /**
   * Checks the arguments against a spec such as `symbol:t!,volume:d`: each argument's kind (i integer, d decimal,
   * t text), `!` when required. Undefined when they fit; else the `bad_request` answer.
   */
  problem(spec: string): Answer | undefined {
    for (const { key, kind, required } of parsedSpec(spec)) {
      const value = this.fields.get(key);
      if (value === undefined) {
        if (required) return refusal('bad_request', `${this.text('cmd')} needs ${key}`);
        continue;
      }
      if (kind === 'i' && parseInteger(value) === undefined) return refusal('bad_request', `${key} is not an integer`);
      if (kind === 'd' && parseDecimal(value) === undefined) return refusal('bad_request', `${key} is not a decimal`);
    }
    return undefined;
  }
}

interface ArgumentRule {
  key: string;
  kind: string;
  required: boolean;
}

/** Specs are a handful of constants, each parsed once rather than on every request. */
const parsedSpecs = new Map<string, ArgumentRule[]>();

function parsedSpec(spec: string): ArgumentRule[] {
  let rules = parsedSpecs.get(spec);
  if (!rules) {
    rules = spec.split(',').map((entry) => {
      const required = entry.endsWith('!');
      const [key, kind] = (required ? entry.slice(0, -1) : entry).split(':') as [string, string];
      return { key, kind, required };
    });
    parsedSpecs.set(spec, rules);
  }
  return rules;
}
