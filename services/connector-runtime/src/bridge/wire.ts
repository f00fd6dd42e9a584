/**
 * The terminal bridge's line format (docs/terminal-bridge.md, "Wire format"): one frame per line ending in LF,
 * UTF-8, a frame type followed by TAB-separated `key=value` fields. A value escapes the bytes an MQL program
 * could not carry through `StringSplit` and `CharArrayToString` (NUL, TAB, LF, CR) and `%` itself as `%XX`.
 * Pure: bytes in, fields out, or a BridgeProtocolError naming what was wrong.
 */

/** Largest frame either side sends or accepts, in bytes, the terminating LF included. */
export const maxFrameBytes = 1_048_576;

const frameTypePattern = /^[a-z]{1,16}$/;
const keyPattern = /^[a-z0-9_.]{1,64}$/;
const escapeHexPattern = /^[0-9A-Fa-f]{2}$/;

/** Why a connection is closed: the code goes into the `error` frame the side sends before closing. */
export type ProtocolErrorCode = 'malformed' | 'frame_too_large' | 'unexpected_frame' | 'duplicate_id' | 'unknown_id';

export class BridgeProtocolError extends Error {
  constructor(
    readonly code: ProtocolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BridgeProtocolError';
  }
}

/** A frame's type and its fields in the order they came; keys are unique. */
export interface RawFrame {
  type: string;
  fields: Map<string, string>;
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();

const reservedCharacter = /[\0\t\n\r%]/;
const rawCrOrNul = /[\r\0]/;

/** `%` + two upper-case hex digits for NUL, TAB, LF, CR and `%`; every other character as it is. */
export function escapeValue(value: string): string {
  // Most values (numbers, symbols, tags) hold nothing to escape: a test is cheaper than a replace.
  if (!reservedCharacter.test(value)) return value;
  return value.replace(/[\0\t\n\r%]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** The reverse of escapeValue; any `%XX` is accepted, a `%` without two hex digits is malformed. */
export function unescapeValue(text: string, key: string): string {
  if (!text.includes('%')) return text;
  const bytes: number[] = [];
  const raw = utf8Encoder.encode(text);
  for (let index = 0; index < raw.length; index++) {
    const byte = raw[index]!;
    if (byte !== 0x25) {
      bytes.push(byte);
      continue;
    }
    const hex = String.fromCharCode(raw[index + 1] ?? 0, raw[index + 2] ?? 0);
    if (!escapeHexPattern.test(hex)) throw new BridgeProtocolError('malformed', `field ${key}: % not followed by two hex digits`);
    bytes.push(Number.parseInt(hex, 16));
    index += 2;
  }
  try {
    return utf8Decoder.decode(new Uint8Array(bytes));
  } catch {
    throw new BridgeProtocolError('malformed', `field ${key}: escaped bytes are not UTF-8`);
  }
}

/**
 * Keys already checked against the key pattern. The connector writes a small fixed vocabulary of keys (the
 * commands' arguments), so each is checked once; the bound keeps a caller with made-up keys from growing it.
 */
const checkedKeys = new Set<string>();
const maxCheckedKeys = 1024;

/** Throws unless `key` is 1-64 of a-z 0-9 _ . */
export function checkKey(key: string): void {
  if (checkedKeys.has(key)) return;
  if (!keyPattern.test(key)) throw new BridgeProtocolError('malformed', `key ${JSON.stringify(key)} is not 1-64 of a-z 0-9 _ .`);
  if (checkedKeys.size < maxCheckedKeys) checkedKeys.add(key);
}

/** `\t<key>=<escaped value>`: one field as it follows the frame type or the previous field. */
export function fieldText(key: string, value: string): string {
  checkKey(key);
  return `\t${key}=${escapeValue(value)}`;
}

/** Throws unless `type` is a frame type (1-16 letters a-z). */
export function checkFrameType(type: string): void {
  if (!frameTypePattern.test(type))
    throw new BridgeProtocolError('malformed', `frame type ${JSON.stringify(type)} is not 1-16 letters a-z`);
}

/**
 * A finished line (LF included) within the frame bound. A line of at most a third of the bound in UTF-16 units is
 * within it whatever it holds (a unit is at most three UTF-8 bytes); only a longer one is measured.
 */
export function boundedLine(line: string): string {
  if (line.length * 3 <= maxFrameBytes) return line;
  const size = Buffer.byteLength(line, 'utf8');
  if (size > maxFrameBytes) throw new BridgeProtocolError('frame_too_large', `frame of ${size} bytes exceeds ${maxFrameBytes}`);
  return line;
}

/** One frame as its line of text, LF included. Throws when a name is not allowed or the line exceeds maxFrameBytes. */
export function encodeLineText(type: string, fields: Iterable<readonly [string, string]>): string {
  checkFrameType(type);
  let line = type;
  const seen = new Set<string>();
  for (const [key, value] of fields) {
    if (seen.has(key)) throw new BridgeProtocolError('malformed', `key ${key} appears twice`);
    seen.add(key);
    line += fieldText(key, value);
  }
  return boundedLine(`${line}\n`);
}

/** One frame as a line of bytes, LF included. Throws when a name is not allowed or the line exceeds maxFrameBytes. */
export function encodeLine(type: string, fields: Iterable<readonly [string, string]>): Uint8Array {
  return utf8Encoder.encode(encodeLineText(type, fields));
}

/**
 * One line (without its LF) as a frame. Malformed: not UTF-8, a raw CR or NUL, an empty line, a bad frame type,
 * a field without `=`, a bad or repeated key, a bad escape.
 */
export function decodeLine(line: Uint8Array): RawFrame {
  if (line.length + 1 > maxFrameBytes)
    throw new BridgeProtocolError('frame_too_large', `frame of ${line.length + 1} bytes exceeds ${maxFrameBytes}`);
  return decodeLineText(decodeUtf8(line));
}

/** Bytes as text; malformed when they are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    throw new BridgeProtocolError('malformed', 'frame is not UTF-8');
  }
}

/** decodeLine for a line already decoded from UTF-8 (the frame reader decodes a chunk's whole lines at once). */
export function decodeLineText(text: string): RawFrame {
  if (rawCrOrNul.test(text)) throw new BridgeProtocolError('malformed', 'frame holds a raw CR or NUL');
  let tab = text.indexOf('\t');
  const type = tab < 0 ? text : text.slice(0, tab);
  if (!frameTypePattern.test(type))
    throw new BridgeProtocolError('malformed', `frame type ${JSON.stringify(type.slice(0, 32))} is not 1-16 letters a-z`);
  const fields = new Map<string, string>();
  while (tab >= 0) {
    const start = tab + 1;
    tab = text.indexOf('\t', start);
    const end = tab < 0 ? text.length : tab;
    const equals = text.indexOf('=', start);
    if (equals < 0 || equals > end)
      throw new BridgeProtocolError('malformed', `field ${JSON.stringify(text.slice(start, Math.min(end, start + 32)))} has no =`);
    const key = text.slice(start, equals);
    if (!keyPattern.test(key))
      throw new BridgeProtocolError('malformed', `key ${JSON.stringify(key.slice(0, 32))} is not 1-64 of a-z 0-9 _ .`);
    if (fields.has(key)) throw new BridgeProtocolError('malformed', `key ${key} appears twice`);
    fields.set(key, unescapeValue(text.slice(equals + 1, end), key));
  }
  return { type, fields };
}
