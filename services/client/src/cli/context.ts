import fs from 'node:fs';
import type { parseArgs } from 'node:util';
import type { MtxClient } from '../client';
import type { ClientSettings } from '../settings';

/** The flags every command may take; `parseArgs` refuses any other. */
export const options = {
  json: { type: 'boolean' },
  wait: { type: 'boolean' },
  'base-url': { type: 'string' },
  key: { type: 'string' },
  'amount-eur': { type: 'string' },
  asset: { type: 'string' },
  chain: { type: 'string' },
  file: { type: 'string' },
  accounts: { type: 'string' },
  symbol: { type: 'string' },
  'base-symbol': { type: 'string' },
  operation: { type: 'string' },
  volume: { type: 'string' },
  price: { type: 'string' },
  'stop-loss': { type: 'string' },
  'take-profit': { type: 'string' },
  comment: { type: 'string' },
  match: { type: 'string' },
  side: { type: 'string' },
  kind: { type: 'string' },
  magic: { type: 'string' },
  limit: { type: 'string' },
  'starting-after': { type: 'string' },
  'created-gte': { type: 'string' },
  'created-lt': { type: 'string' },
  all: { type: 'boolean' },
  expiration: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  port: { type: 'string' },
  'forward-to': { type: 'string' },
  'public-url': { type: 'string' },
  events: { type: 'string' },
  'max-events': { type: 'string' },
  'idempotency-key': { type: 'string' },
  'timeout-seconds': { type: 'string' },
  listen: { type: 'string' },
  token: { type: 'string' },
  login: { type: 'string' },
  server: { type: 'string' },
  platform: { type: 'string' },
  'tls-key': { type: 'string' },
  'tls-cert': { type: 'string' },
  'wait-seconds': { type: 'string' },
  trade: { type: 'boolean' },
  'symbol-map': { type: 'string' },
  'max-volume-per-order': { type: 'string' },
  'max-open-positions': { type: 'string' },
  'max-total-volume': { type: 'string' },
  'allowed-symbols': { type: 'string' },
  'trading-enabled': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export type Flags = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values'];

export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WriteStream;
  environment: NodeJS.ProcessEnv;
}

/** A failure the user can fix from the message alone; printed without a stack. */
export class UsageError extends Error {}

/** What a command runs with: the client, the settings, its flags and positionals, and where to print. */
export interface CommandContext {
  client: MtxClient;
  settings: ClientSettings;
  flags: Flags;
  io: CliIo;
  /** Prints the API's JSON with --json, else the text view. */
  print(json: unknown, text: () => string): void;
  /** The command's first positional, required. */
  positionalId(name: string): string;
}

export function eurosToCents(text: string | undefined, flag: string): number {
  if (text === undefined) throw new UsageError(`${flag} is required`);
  if (!/^\d+(\.\d{1,2})?$/.test(text)) throw new UsageError(`${flag} must be an amount in EUR such as 25 or 25.50`);
  const [euros, cents = ''] = text.split('.');
  return Number(euros) * 100 + Number(cents.padEnd(2, '0'));
}

export function numberFlag(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new UsageError(`${flag} must be a number`);
  return value;
}

export function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

export function timeoutMs(flags: Flags): number {
  return (numberFlag(flags['timeout-seconds'], '--timeout-seconds') ?? 120) * 1000;
}
