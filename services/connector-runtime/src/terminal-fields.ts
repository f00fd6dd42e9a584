import { formatDecimal, parseDecimal, parseInteger } from './bridge/numbers';

/**
 * Reading an EA's answer fields (docs/terminal-bridge.md, "Numbers and times"): decimal text for prices,
 * volumes and money, integers for tickets, types and times. A field the EA left out reads as 0 or empty, as
 * MQL's own defaults are; a field that is present but not a number is a protocol fault and throws.
 */
export function decimalField(fields: Map<string, string>, key: string): number {
  const text = fields.get(key);
  return text === undefined || text === '' ? 0 : parseDecimal(text, key);
}

export function integerField(fields: Map<string, string>, key: string): number {
  const text = fields.get(key);
  return text === undefined || text === '' ? 0 : parseInteger(text, key);
}

export function textField(fields: Map<string, string>, key: string): string {
  return fields.get(key) ?? '';
}

/** Arguments of a request as the wire carries them: numbers in decimal text, absent values left out. */
export function requestArguments(values: Record<string, string | number | undefined>): Array<[string, string]> {
  const args: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    args.push([key, typeof value === 'number' ? formatNumber(value) : value]);
  }
  return args;
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`${value} is not a number the bridge carries`);
  // Prices and volumes reach here as doubles; 10 decimals keep every digit a terminal would use.
  return formatDecimal(Number(value.toFixed(10)));
}
