import { formatInteger, parseInteger } from './numbers';
import { BridgeProtocolError, boundedLine, encodeLineText, fieldText, type ProtocolErrorCode, type RawFrame } from './wire';

/**
 * The frames of terminal bridge protocol v1 (docs/terminal-bridge.md, "Frames"), typed, with their bounds.
 * encodeFrame and decodeFrame are exact inverses for every valid frame; decodeFrame refuses a frame missing a
 * required field or out of bounds, ignores fields it does not know (a later minor addition), and answers a
 * frame type it does not know as `unknown` so the caller can ignore it.
 */

export const protocolVersion = 1;
export const platforms = ['mt4', 'mt5'] as const;
export type Platform = (typeof platforms)[number];

/** Bounds of v1 (docs/terminal-bridge.md, "Bounds"). */
export const bridgeBounds = {
  maxInFlight: 8,
  heartbeatMs: 10_000,
  idleMs: 30_000,
  helloDeadlineMs: 10_000,
  maxTtlMs: 600_000,
  maxListItems: 500,
  maxMessageChars: 1024,
  maxIdentifierChars: 64,
} as const;

const tokenPattern = /^[A-Za-z0-9_-]{32,256}$/;

export const refuseReasons = ['bad_token', 'unknown_login', 'version', 'replaced', 'unavailable'] as const;
export type RefuseReason = (typeof refuseReasons)[number];

/** Why a request was not carried out: with any of these, no trade function was called for it. */
export const answerErrors = ['unsupported', 'bad_request', 'busy', 'expired', 'not_found', 'internal'] as const;
export type AnswerError = (typeof answerErrors)[number];

export const byeReasons = ['shutdown', 'replaced', 'idle', 'deinit'] as const;
export type ByeReason = (typeof byeReasons)[number];

export interface HelloFrame {
  type: 'hello';
  versions: number[];
  platform: Platform;
  login: number;
  server: string;
  eaVersion: string;
  terminalBuild: number;
  token: string;
  /** Trade server clock (seconds, MT `datetime`) and UTC seconds by the terminal's clock, for the server's offset. */
  serverTime: number;
  gmtTime: number;
}

export interface WelcomeFrame {
  type: 'welcome';
  version: number;
  connection: string;
  maxInFlight: number;
  heartbeatMs: number;
  idleMs: number;
}

export interface RefuseFrame {
  type: 'refuse';
  reason: RefuseReason;
  message: string;
  versions: number[];
}

export interface RequestFrame {
  type: 'req';
  id: number;
  command: string;
  /** Milliseconds after the EA reads the request past which it must not start a trade function. */
  ttlMs?: number;
  args: Map<string, string>;
}

export interface AnswerFrame {
  type: 'res';
  id: number;
  status: 'ok' | 'error';
  error?: AnswerError;
  message: string;
  fields: Map<string, string>;
}

export interface HeartbeatFrame {
  type: 'hb';
  /** Sent by the EA: trade server time and UTC, both seconds. */
  serverTime?: number;
  gmtTime?: number;
  /** Sent by the connector: its UTC clock in milliseconds. */
  utcMs?: number;
}

export interface ErrorFrame {
  type: 'error';
  code: ProtocolErrorCode;
  message: string;
}

export interface ByeFrame {
  type: 'bye';
  reason: ByeReason;
  message: string;
}

export interface UnknownFrame {
  type: 'unknown';
  name: string;
}

export type BridgeFrame = HelloFrame | WelcomeFrame | RefuseFrame | RequestFrame | AnswerFrame | HeartbeatFrame | ErrorFrame | ByeFrame;
export type DecodedFrame = BridgeFrame | UnknownFrame;

const protocolErrorCodes: readonly ProtocolErrorCode[] = ['malformed', 'frame_too_large', 'unexpected_frame', 'duplicate_id', 'unknown_id'];
const requestKeys = new Set(['id', 'cmd', 'ttl_ms']);
const answerKeys = new Set(['id', 'status', 'error', 'message']);
const commandPattern = /^[a-z_]{1,32}$/;

function malformed(message: string): never {
  throw new BridgeProtocolError('malformed', message);
}

function text(fields: Map<string, string>, key: string, maxChars: number, required = true): string {
  const value = fields.get(key);
  if (value === undefined) return required ? malformed(`field ${key} is missing`) : '';
  // Characters are counted only when the UTF-16 length could exceed the bound (it is never below their count).
  if (value.length > maxChars && [...value].length > maxChars) malformed(`field ${key} exceeds ${maxChars} characters`);
  return value;
}

function integer(fields: Map<string, string>, key: string, min: number, max: number): number {
  const value = parseInteger(text(fields, key, 20), key);
  if (value < min || value > max) malformed(`field ${key}: ${value} is outside ${min}..${max}`);
  return value;
}

function optionalInteger(fields: Map<string, string>, key: string, min: number, max: number): number | undefined {
  return fields.has(key) ? integer(fields, key, min, max) : undefined;
}

function oneOf<T extends string>(fields: Map<string, string>, key: string, allowed: readonly T[]): T {
  const value = text(fields, key, 32);
  if (!(allowed as readonly string[]).includes(value))
    malformed(`field ${key}: ${JSON.stringify(value)} is not one of ${allowed.join(', ')}`);
  return value as T;
}

function versionList(fields: Map<string, string>, key: string): number[] {
  const value = text(fields, key, 64);
  const versions = value.split(',').map((part) => parseInteger(part, key));
  if (versions.some((version) => version < 1 || version > 999)) malformed(`field ${key}: versions are 1..999`);
  return versions;
}

const maxId = Number.MAX_SAFE_INTEGER;
const maxTime = 32_503_680_000; // 3000-01-01, seconds

export function decodeFrame(raw: RawFrame): DecodedFrame {
  const f = raw.fields;
  const bounds = bridgeBounds;
  switch (raw.type) {
    case 'hello': {
      const token = text(f, 'token', 256);
      if (!tokenPattern.test(token)) malformed('field token is not 32-256 of A-Z a-z 0-9 _ -');
      return {
        type: 'hello',
        versions: versionList(f, 'v'),
        platform: oneOf(f, 'platform', platforms),
        login: integer(f, 'login', 1, maxId),
        server: text(f, 'server', bounds.maxIdentifierChars),
        eaVersion: text(f, 'ea', 32),
        terminalBuild: integer(f, 'build', 0, 999_999),
        token,
        serverTime: integer(f, 'server_time', 0, maxTime),
        gmtTime: integer(f, 'gmt_time', 0, maxTime),
      };
    }
    case 'welcome':
      return {
        type: 'welcome',
        version: integer(f, 'v', 1, 999),
        connection: text(f, 'connection', bounds.maxIdentifierChars),
        maxInFlight: integer(f, 'max_inflight', 1, 64),
        heartbeatMs: integer(f, 'hb_ms', 1000, 60_000),
        idleMs: integer(f, 'idle_ms', 3000, 180_000),
      };
    case 'refuse':
      return {
        type: 'refuse',
        reason: oneOf(f, 'reason', refuseReasons),
        message: text(f, 'message', bounds.maxMessageChars, false),
        versions: versionList(f, 'v'),
      };
    case 'req': {
      const command = text(f, 'cmd', 32);
      if (!commandPattern.test(command)) malformed('field cmd is not 1-32 of a-z _');
      const args = new Map([...f].filter(([key]) => !requestKeys.has(key)));
      const frame: RequestFrame = { type: 'req', id: integer(f, 'id', 1, maxId), command, args };
      const ttlMs = optionalInteger(f, 'ttl_ms', 1, bounds.maxTtlMs);
      if (ttlMs !== undefined) frame.ttlMs = ttlMs;
      return frame;
    }
    case 'res': {
      const status = oneOf(f, 'status', ['ok', 'error'] as const);
      const id = integer(f, 'id', 1, maxId);
      const message = text(f, 'message', bounds.maxMessageChars, false);
      const error = status === 'error' ? oneOf(f, 'error', answerErrors) : undefined;
      // In an ok answer `error` is a result: the MT4 EA's error number from its trade function (`send`,
      // `close`, `modify`, `check`), kept with the other results.
      const resultError = status === 'ok' && f.has('error') ? formatInteger(integer(f, 'error', 0, maxId)) : undefined;
      // The raw frame's map becomes the results (it is this decode's own): no copy per answer.
      f.delete('id');
      f.delete('status');
      f.delete('message');
      f.delete('error');
      if (resultError !== undefined) f.set('error', resultError);
      const frame: AnswerFrame = { type: 'res', id, status, message, fields: f };
      if (error !== undefined) frame.error = error;
      return frame;
    }
    case 'hb': {
      const frame: HeartbeatFrame = { type: 'hb' };
      const serverTime = optionalInteger(f, 'server_time', 0, maxTime);
      const gmtTime = optionalInteger(f, 'gmt_time', 0, maxTime);
      const utcMs = optionalInteger(f, 'utc_ms', 0, maxTime * 1000);
      if (serverTime !== undefined) frame.serverTime = serverTime;
      if (gmtTime !== undefined) frame.gmtTime = gmtTime;
      if (utcMs !== undefined) frame.utcMs = utcMs;
      return frame;
    }
    case 'error':
      return { type: 'error', code: oneOf(f, 'code', protocolErrorCodes), message: text(f, 'message', bounds.maxMessageChars, false) };
    case 'bye':
      return { type: 'bye', reason: oneOf(f, 'reason', byeReasons), message: text(f, 'message', bounds.maxMessageChars, false) };
    default:
      return { type: 'unknown', name: raw.type };
  }
}

/** A message cut to the bound, at a character boundary. */
function boundedMessage(message: string): string {
  const characters = [...message];
  return characters.length <= bridgeBounds.maxMessageChars ? message : characters.slice(0, bridgeBounds.maxMessageChars).join('');
}

function frameFields(frame: BridgeFrame): Array<[string, string]> {
  switch (frame.type) {
    case 'hello':
      return [
        ['v', frame.versions.join(',')],
        ['platform', frame.platform],
        ['login', formatInteger(frame.login)],
        ['server', frame.server],
        ['ea', frame.eaVersion],
        ['build', formatInteger(frame.terminalBuild)],
        ['token', frame.token],
        ['server_time', formatInteger(frame.serverTime)],
        ['gmt_time', formatInteger(frame.gmtTime)],
      ];
    case 'welcome':
      return [
        ['v', formatInteger(frame.version)],
        ['connection', frame.connection],
        ['max_inflight', formatInteger(frame.maxInFlight)],
        ['hb_ms', formatInteger(frame.heartbeatMs)],
        ['idle_ms', formatInteger(frame.idleMs)],
      ];
    case 'refuse':
      return [
        ['reason', frame.reason],
        ['message', boundedMessage(frame.message)],
        ['v', frame.versions.join(',')],
      ];
    case 'req': {
      const head: Array<[string, string]> = [
        ['id', formatInteger(frame.id)],
        ['cmd', frame.command],
      ];
      if (frame.ttlMs !== undefined) head.push(['ttl_ms', formatInteger(frame.ttlMs)]);
      return [...head, ...[...frame.args].filter(([key]) => !requestKeys.has(key))];
    }
    case 'res': {
      const head: Array<[string, string]> = [
        ['id', formatInteger(frame.id)],
        ['status', frame.status],
      ];
      if (frame.status === 'error') head.push(['error', frame.error ?? 'internal']);
      if (frame.message) head.push(['message', boundedMessage(frame.message)]);
      const results = [...frame.fields].filter(([key]) => !answerKeys.has(key) || (key === 'error' && frame.status === 'ok'));
      return [...head, ...results];
    }
    case 'hb': {
      const fields: Array<[string, string]> = [];
      if (frame.serverTime !== undefined) fields.push(['server_time', formatInteger(frame.serverTime)]);
      if (frame.gmtTime !== undefined) fields.push(['gmt_time', formatInteger(frame.gmtTime)]);
      if (frame.utcMs !== undefined) fields.push(['utc_ms', formatInteger(frame.utcMs)]);
      return fields;
    }
    case 'error':
      return [
        ['code', frame.code],
        ['message', boundedMessage(frame.message)],
      ];
    case 'bye':
      return [
        ['reason', frame.reason],
        ['message', boundedMessage(frame.message)],
      ];
  }
}

/** A frame as its line of text, LF included; throws BridgeProtocolError when it would exceed the frame bound. */
export function encodeFrameText(frame: BridgeFrame): string {
  return frame.type === 'req' ? requestText(frame) : encodeLineText(frame.type, frameFields(frame));
}

/**
 * A request, written straight from its arguments: requests are the connector's hot path, and their arguments
 * are a map (keys unique by construction), so no field list is built and no key set is kept.
 */
function requestText(frame: RequestFrame): string {
  if (!commandPattern.test(frame.command)) malformed(`field cmd is not 1-32 of a-z _`);
  let line = `req\tid=${formatInteger(frame.id)}\tcmd=${frame.command}`;
  if (frame.ttlMs !== undefined) line += `\tttl_ms=${formatInteger(frame.ttlMs)}`;
  for (const [key, value] of frame.args) if (!requestKeys.has(key)) line += fieldText(key, value);
  return boundedLine(`${line}\n`);
}

/** A frame as its line of bytes, LF included; throws BridgeProtocolError when it would exceed the frame bound. */
export function encodeFrame(frame: BridgeFrame): Uint8Array {
  return utf8Encoder.encode(encodeFrameText(frame));
}

const utf8Encoder = new TextEncoder();
