import type { Platform, RequestFrame } from './frames';
import { parseDecimal, parseInteger } from './numbers';
import { BridgeProtocolError } from './wire';

/**
 * The commands of protocol v1 and their arguments per platform (docs/terminal-bridge.md, "Commands"): what the
 * connector may put in a `req` and what an EA checks before it calls anything. A trade command carries
 * `ttl_ms`; a read does not need one.
 */

export type ArgumentKind = 'integer' | 'decimal' | 'text';

export interface ArgumentSpec {
  kind: ArgumentKind;
  required: boolean;
}

export interface CommandSpec {
  trade: boolean;
  args: Record<Platform, Record<string, ArgumentSpec>>;
}

const required = (kind: ArgumentKind): ArgumentSpec => ({ kind, required: true });
const optional = (kind: ArgumentKind): ArgumentSpec => ({ kind, required: false });
const both = (args: Record<string, ArgumentSpec>): Record<Platform, Record<string, ArgumentSpec>> => ({ mt4: args, mt5: args });

export const commands = {
  account: { trade: false, args: both({}) },
  symbol: { trade: false, args: both({ symbol: required('text') }) },
  symbols: { trade: false, args: both({ prefix: optional('text') }) },
  positions: { trade: false, args: both({ symbol: optional('text') }) },
  orders: { trade: false, args: both({ symbol: optional('text') }) },
  ticket: { trade: false, args: both({ ticket: required('integer') }) },
  send: {
    trade: true,
    args: {
      mt5: {
        action: required('integer'),
        type: optional('integer'),
        symbol: optional('text'),
        volume: optional('decimal'),
        price: optional('decimal'),
        stoplimit: optional('decimal'),
        sl: optional('decimal'),
        tp: optional('decimal'),
        deviation: optional('integer'),
        type_filling: optional('integer'),
        type_time: optional('integer'),
        expiration: optional('integer'),
        comment: optional('text'),
        magic: optional('integer'),
        order: optional('integer'),
        position: optional('integer'),
        position_by: optional('integer'),
      },
      mt4: {
        symbol: required('text'),
        op: required('integer'),
        volume: required('decimal'),
        price: optional('decimal'),
        slippage: optional('integer'),
        stoploss: optional('decimal'),
        takeprofit: optional('decimal'),
        comment: optional('text'),
        magic: optional('integer'),
        expiration: optional('integer'),
      },
    },
  },
  close: {
    trade: true,
    args: {
      mt5: {
        ticket: required('integer'),
        volume: optional('decimal'),
        price: optional('decimal'),
        deviation: optional('integer'),
        type_filling: optional('integer'),
        comment: optional('text'),
      },
      mt4: { ticket: required('integer'), volume: optional('decimal'), price: optional('decimal'), slippage: optional('integer') },
    },
  },
  delete: { trade: true, args: both({ ticket: required('integer') }) },
  modify: {
    trade: true,
    args: {
      mt5: {
        ticket: required('integer'),
        sl: optional('decimal'),
        tp: optional('decimal'),
        price: optional('decimal'),
        stoplimit: optional('decimal'),
        type_time: optional('integer'),
        expiration: optional('integer'),
      },
      mt4: {
        ticket: required('integer'),
        sl: optional('decimal'),
        tp: optional('decimal'),
        price: optional('decimal'),
        expiration: optional('integer'),
      },
    },
  },
  check: {
    trade: false,
    args: {
      mt5: { symbol: required('text'), type: required('integer'), volume: required('decimal'), price: optional('decimal') },
      mt4: { symbol: required('text'), op: required('integer'), volume: required('decimal') },
    },
  },
  history: {
    trade: false,
    args: both({
      kind: required('text'),
      from: required('integer'),
      to: required('integer'),
      offset: optional('integer'),
      limit: optional('integer'),
    }),
  },
  find: { trade: false, args: both({ tags: required('text'), from: required('integer') }) },
  /** Protocol v2: `send`s carried out in order, each item's arguments under `legs.<index>.` (send-batch.ts). */
  send_batch: { trade: true, args: both({ legs: required('integer') }) },
} satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof commands;

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(commands, name);
}

/**
 * The reason a request is not one the EA of `platform` can carry out as sent, or undefined when it is. An
 * unknown command is the EA's `unsupported`; everything else here is `bad_request`. Arguments the command does
 * not define are ignored (a later minor addition).
 */
export function requestProblem(
  frame: RequestFrame,
  platform: Platform,
): { error: 'unsupported' | 'bad_request'; message: string } | undefined {
  if (!isCommandName(frame.command)) return { error: 'unsupported', message: `command ${frame.command} is not part of protocol v1` };
  const spec: CommandSpec = commands[frame.command];
  if (spec.trade && frame.ttlMs === undefined) return { error: 'bad_request', message: `${frame.command} needs ttl_ms` };
  for (const [key, argument] of Object.entries(spec.args[platform])) {
    const value = frame.args.get(key);
    if (value === undefined) {
      if (argument.required) return { error: 'bad_request', message: `${frame.command} needs ${key}` };
      continue;
    }
    try {
      if (argument.kind === 'integer') parseInteger(value, key);
      if (argument.kind === 'decimal') parseDecimal(value, key);
    } catch (error) {
      if (error instanceof BridgeProtocolError) return { error: 'bad_request', message: error.message };
      throw error;
    }
  }
  return undefined;
}
