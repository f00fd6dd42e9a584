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

/** `%` + two upper-case hex digits for NUL, TAB, LF, CR and `%`; every other character as it is. */
export function escapeValue(value: string): string {
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

/** One frame as a line of bytes, LF included. Throws when a name is not allowed or the line exceeds maxFrameBytes. */
export function encodeLine(type: string, fields: Iterable<readonly [string, string]>): Uint8Array {
  if (!frameTypePattern.test(type))
    throw new BridgeProtocolError('malformed', `frame type ${JSON.stringify(type)} is not 1-16 letters a-z`);
  const parts = [type];
  const seen = new Set<string>();
  for (const [key, value] of fields) {
    if (!keyPattern.test(key)) throw new BridgeProtocolError('malformed', `key ${JSON.stringify(key)} is not 1-64 of a-z 0-9 _ .`);
    if (seen.has(key)) throw new BridgeProtocolError('malformed', `key ${key} appears twice`);
    seen.add(key);
    parts.push(`${key}=${escapeValue(value)}`);
  }
  const bytes = utf8Encoder.encode(`${parts.join('\t')}\n`);
  if (bytes.length > maxFrameBytes)
    throw new BridgeProtocolError('frame_too_large', `frame of ${bytes.length} bytes exceeds ${maxFrameBytes}`);
  return bytes;
}

/**
 * One line (without its LF) as a frame. Malformed: not UTF-8, a raw CR or NUL, an empty line, a bad frame type,
 * a field without `=`, a bad or repeated key, a bad escape.
 */
export function decodeLine(line: Uint8Array): RawFrame {
  if (line.length + 1 > maxFrameBytes)
    throw new BridgeProtocolError('frame_too_large', `frame of ${line.length + 1} bytes exceeds ${maxFrameBytes}`);
  let text: string;
  try {
    text = utf8Decoder.decode(line);
  } catch {
    throw new BridgeProtocolError('malformed', 'frame is not UTF-8');
  }
  if (/[\r\0]/.test(text)) throw new BridgeProtocolError('malformed', 'frame holds a raw CR or NUL');
  const parts = text.split('\t');
  const type = parts[0]!;
  if (!frameTypePattern.test(type))
    throw new BridgeProtocolError('malformed', `frame type ${JSON.stringify(type.slice(0, 32))} is not 1-16 letters a-z`);
  const fields = new Map<string, string>();
  for (const part of parts.slice(1)) {
    const equals = part.indexOf('=');
    if (equals < 0) throw new BridgeProtocolError('malformed', `field ${JSON.stringify(part.slice(0, 32))} has no =`);
    const key = part.slice(0, equals);
    if (!keyPattern.test(key))
      throw new BridgeProtocolError('malformed', `key ${JSON.stringify(key.slice(0, 32))} is not 1-64 of a-z 0-9 _ .`);
    if (fields.has(key)) throw new BridgeProtocolError('malformed', `key ${key} appears twice`);
    fields.set(key, unescapeValue(part.slice(equals + 1), key));
  }
  return { type, fields };
}
