/**
 * The terminal bridge's wire format as docs/terminal-bridge.md ("Wire format", "Lists") defines it, written
 * from that document alone: the emulated EA does not share the connector's codec, so the two agreeing proves
 * the document is enough to build either side.
 */

/** A frame: its type and its fields in the order they were read or are to be written. */
export interface Frame {
  type: string;
  fields: Map<string, string>;
}

/** One frame at most this many bytes, LF included (docs/terminal-bridge.md, "Bounds"). */
export const maxFrameBytes = 1_048_576;

const typePattern = /^[a-z]{1,16}$/;
const keyPattern = /^[a-z0-9_.]{1,64}$/;
const hexPair = /^[0-9a-fA-F]{2}$/;

/** Escapes NUL, TAB, LF, CR and `%` as `%XX`; nothing else. */
export function escapeValue(value: string): string {
  return value.replace(/[\0\t\n\r%]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** Decodes every `%XX` left to right (either case); undefined when a `%` lacks two hex digits. */
export function unescapeValue(value: string): string | undefined {
  if (!value.includes('%')) return value;
  const bytes: number[] = [];
  const raw = Buffer.from(value, 'utf8');
  for (let index = 0; index < raw.length; index++) {
    if (raw[index] !== 0x25) {
      bytes.push(raw[index]!);
      continue;
    }
    const pair = raw.subarray(index + 1, index + 3).toString('latin1');
    if (!hexPair.test(pair)) return undefined;
    bytes.push(Number.parseInt(pair, 16));
    index += 2;
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Encodes a frame as one line, LF included. */
export function encodeFrame(type: string, fields: Iterable<[string, string | number]>): string {
  let line = type;
  for (const [key, value] of fields) line += `\t${key}=${escapeValue(String(value))}`;
  return `${line}\n`;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses one line (without its LF); undefined when the frame is malformed. */
export function parseFrame(bytes: Buffer): Frame | undefined {
  let line: string;
  try {
    line = utf8.decode(bytes);
  } catch {
    return undefined;
  }
  return parseLine(line);
}

/** parseFrame for a line already decoded from UTF-8. */
export function parseLine(line: string): Frame | undefined {
  if (line.length === 0 || line.includes('\r') || line.includes('\0')) return undefined;
  let tab = line.indexOf('\t');
  const type = tab < 0 ? line : line.slice(0, tab);
  if (!typePattern.test(type)) return undefined;
  const fields = new Map<string, string>();
  while (tab >= 0) {
    const start = tab + 1;
    tab = line.indexOf('\t', start);
    const end = tab < 0 ? line.length : tab;
    const equals = line.indexOf('=', start);
    if (equals < 0 || equals > end) return undefined;
    const key = line.slice(start, equals);
    if (!keyPattern.test(key) || fields.has(key)) return undefined;
    const value = unescapeValue(line.slice(equals + 1, end));
    if (value === undefined) return undefined;
    fields.set(key, value);
  }
  return { type, fields };
}

export type ReadResult = { frame: Frame } | { malformed: true } | { tooLarge: true };

/**
 * Splits a byte stream into frames. A line is handed out as soon as its LF arrives; a buffer holding
 * `maxFrameBytes` without an LF is reported at once, without waiting for the rest. The whole lines of a read are
 * decoded from UTF-8 at once (an LF never falls inside a UTF-8 sequence): one decode per read, not per frame.
 */
export class FrameReader {
  private held: Buffer = Buffer.alloc(0);

  constructor(private readonly limitBytes = maxFrameBytes) {}

  push(chunk: Buffer): ReadResult[] {
    this.held = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    const last = this.held.lastIndexOf(0x0a);
    if (last < 0) return this.held.length >= this.limitBytes ? [{ tooLarge: true }] : [];
    const results: ReadResult[] = [];
    let text: string | undefined;
    // Whole lines all within the bound (always so for requests): decode them together.
    if (last < this.limitBytes) {
      try {
        text = utf8.decode(this.held.subarray(0, last));
      } catch {
        text = undefined;
      }
    }
    if (text !== undefined) {
      let start = 0;
      for (;;) {
        const end = text.indexOf('\n', start);
        const frame = parseLine(end < 0 ? text.slice(start) : text.slice(start, end));
        if (!frame) return [...results, { malformed: true }];
        results.push({ frame });
        if (end < 0) break;
        start = end + 1;
      }
    } else {
      // Long or not UTF-8: line by line, so the frames before the bad one still count.
      let start = 0;
      for (let end = this.held.indexOf(0x0a, start); end >= 0; end = this.held.indexOf(0x0a, start)) {
        if (end + 1 - start > this.limitBytes) return [...results, { tooLarge: true }];
        const frame = parseFrame(this.held.subarray(start, end));
        start = end + 1;
        if (!frame) return [...results, { malformed: true }];
        results.push({ frame });
      }
    }
    this.held = this.held.subarray(last + 1);
    if (this.held.length >= this.limitBytes) results.push({ tooLarge: true });
    return results;
  }
}

/** Integers as the document writes them: optional `-`, decimal digits, within ±2^53−1. */
export function parseInteger(text: string | undefined): number | undefined {
  if (text === undefined || !/^-?[0-9]{1,16}$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** Prices, volumes and money: optional `-`, 1–40 digits, optionally `.` and 1–40 digits. */
export function parseDecimal(text: string | undefined): number | undefined {
  if (text === undefined || !/^-?[0-9]{1,40}(\.[0-9]{1,40})?$/.test(text)) return undefined;
  return Number(text);
}

/** A price with the symbol's digits, as MQL's DoubleToString(x, digits) writes it. */
export function formatPrice(value: number, digits: number): string {
  return value.toFixed(digits);
}

/** Volumes and money with at most 8 decimals, trailing zeros dropped (the reference EAs' `Dec`). */
export function formatDecimal(value: number): string {
  const text = value.toFixed(8);
  return text.replace(/0+$/, '').replace(/\.$/, '').replace(/^-0$/, '0');
}
