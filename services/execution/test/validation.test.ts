import { describe, expect, it } from 'vitest';
import { AppError } from '@mtx/shared/errors';
import { validateCloseOrders, validatePlaceOrders, type CloseOrdersInput, type PlaceOrdersInput } from '../src/domain/validation';
import { createSecretBox, parseSecretKey, randomBase62 } from '../src/domain/secrets';

const nowMs = Date.parse('2030-01-01T00:00:00Z');

function placeError(input: PlaceOrdersInput): AppError {
  try {
    validatePlaceOrders(input, nowMs);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the batch to be rejected');
}

function closeError(input: CloseOrdersInput): AppError {
  try {
    validateCloseOrders(input);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the request to be rejected');
}

describe('order batch validation', () => {
  it('inherits defaults per leg and keeps falsy overrides', () => {
    const legs = validatePlaceOrders(
      {
        defaults: { symbol: 'EURUSD', operation: 'buy', volume: 0.1, slippage: 20, stop_loss: 1.05, comment: 'from defaults' },
        orders: [
          { account_id: 'acc_a' },
          { account_id: 'acc_b', fields: { symbol: 'EURUSD.xx', slippage: 0, stop_loss: 0, comment: '' } },
          { account_id: 'acc_a', fields: { operation: 'SELLLIMIT', price: 1.2, volume: 0.3 } },
        ],
      },
      nowMs,
    );
    expect(legs[0]).toMatchObject({
      index: 0,
      symbol: 'EURUSD',
      operation: 'buy',
      volume: 0.1,
      slippage: 20,
      stop_loss: 1.05,
      comment: 'from defaults',
    });
    expect(legs[1]).toMatchObject({ symbol: 'EURUSD.xx', slippage: 0, stop_loss: 0, comment: '' });
    expect(legs[2]).toMatchObject({ operation: 'sellLimit', price: 1.2, volume: 0.3, slippage: 20 });
  });

  it('rejects the whole batch with a 400 naming the field', () => {
    const base = { symbol: 'EURUSD', operation: 'buy', volume: 0.1 };
    const cases: Array<[PlaceOrdersInput, string, string]> = [
      [{ orders: [] }, 'invalid_request', 'orders'],
      [{ orders: Array.from({ length: 21 }, () => ({ account_id: 'acc_a', fields: base })) }, 'too_many_legs', 'orders'],
      [
        {
          orders: [
            { account_id: 'acc_a', fields: base },
            { account_id: 'acc_b', fields: { ...base, volume: 0 } },
          ],
        },
        'invalid_request',
        'orders[1].volume',
      ],
      [{ orders: [{ account_id: 'acc_a', fields: { ...base, volume: -1 } }] }, 'invalid_request', 'orders[0].volume'],
      [{ orders: [{ account_id: 'acc_a', fields: { ...base, operation: 'hold' } }] }, 'invalid_request', 'orders[0].operation'],
      [{ orders: [{ account_id: 'acc_a', fields: { volume: 0.1, symbol: 'EURUSD' } }] }, 'invalid_request', 'orders[0].operation'],
      [{ orders: [{ account_id: 'acc_a', fields: { operation: 'buy', volume: 0.1 } }] }, 'invalid_request', 'orders[0].symbol'],
      [{ orders: [{ account_id: 'acc_a', fields: { ...base, operation: 'buyLimit' } }] }, 'invalid_request', 'orders[0].price'],
      [
        { orders: [{ account_id: 'acc_a', fields: { ...base, operation: 'buyStopLimit', price: 1.2 } }] },
        'invalid_request',
        'orders[0].stop_limit_price',
      ],
      [{ orders: [{ account_id: 'acc_a', fields: { ...base, comment: 'x'.repeat(32) } }] }, 'invalid_request', 'orders[0].comment'],
      [{ orders: [{ account_id: 'acc_a', fields: { ...base, expert_id: -1 } }] }, 'invalid_request', 'orders[0].expert_id'],
      [{ orders: [{ account_id: 'acc_a', fields: { ...base, expert_id: 1.5 } }] }, 'invalid_request', 'orders[0].expert_id'],
      [{ orders: [{ account_id: 'acc_a', fields: { ...base, slippage: 2.5 } }] }, 'invalid_request', 'orders[0].slippage'],
      [{ orders: [{ account_id: 'acc_a', fields: { ...base, expiration: 'tomorrow' } }] }, 'invalid_request', 'orders[0].expiration'],
      [
        { orders: [{ account_id: 'acc_a', fields: { ...base, expiration: '2029-12-31T23:00:00Z' } }] },
        'invalid_request',
        'orders[0].expiration',
      ],
      [{ orders: [{ account_id: '', fields: base }] }, 'invalid_request', 'orders[0].account_id'],
    ];
    for (const [input, code, param] of cases) {
      const error = placeError(input);
      expect([error.code, error.param], JSON.stringify(input).slice(0, 120)).toEqual([code, param]);
    }
  });

  it('accepts expirations with offsets and normalises them to UTC', () => {
    const [leg] = validatePlaceOrders(
      {
        orders: [
          {
            account_id: 'acc_a',
            fields: { symbol: 'EURUSD', operation: 'buyStop', price: 1.2, volume: 1, expiration: '2030-02-01T10:00:00+02:00' },
          },
        ],
      },
      nowMs,
    );
    expect(leg!.expiration).toBe('2030-02-01T08:00:00.000Z');
  });
});

describe('close request validation', () => {
  it('merges defaults into selectors and defaults kind, side and match', () => {
    const accounts = validateCloseOrders({
      defaults: { symbol: 'EURUSD', symbol_match: 'base', volume: 0.5 },
      accounts: [
        { account_id: 'acc_a' },
        { account_id: 'acc_b', fields: { symbol: '*', side: 'short', kind: 'any', magic: 0 } },
        { account_id: 'acc_c', tickets: [5, 6], has_tickets: true },
      ],
    });
    expect(accounts[0]).toMatchObject({
      selector: { symbol: 'EURUSD', symbol_match: 'base', side: 'any', kind: 'position' },
      volume: 0.5,
      tickets: [],
    });
    expect(accounts[1]!.selector).toEqual({ symbol: '*', symbol_match: 'base', side: 'short', kind: 'any', magic: 0 });
    expect(accounts[2]).toMatchObject({ tickets: [5, 6], volume: 0.5 });
    expect(accounts[2]!.selector).toBeUndefined();
  });

  it('rejects a missing symbol, selector with tickets, duplicates and more than 20 accounts', () => {
    const cases: Array<[CloseOrdersInput, string, string]> = [
      [{ accounts: [{ account_id: 'acc_a' }] }, 'invalid_request', 'symbol'],
      [
        { accounts: [{ account_id: 'acc_a', fields: { symbol: 'EURUSD' }, tickets: [1], has_tickets: true }] },
        'invalid_request',
        'accounts[0].tickets',
      ],
      [{ accounts: [{ account_id: 'acc_a', tickets: [], has_tickets: true }] }, 'invalid_request', 'accounts[0].tickets'],
      [{ accounts: [{ account_id: 'acc_a', tickets: [3, 3], has_tickets: true }] }, 'invalid_request', 'accounts[0].tickets'],
      [
        { defaults: { symbol: 'X' }, accounts: [{ account_id: 'acc_a' }, { account_id: 'acc_a' }] },
        'invalid_request',
        'accounts[1].account_id',
      ],
      [
        { defaults: { symbol: 'X' }, accounts: Array.from({ length: 21 }, (_, index) => ({ account_id: `acc_${index}` })) },
        'too_many_accounts',
        'accounts',
      ],
      [
        { defaults: { symbol: 'X', symbol_match: 'prefix' }, accounts: [{ account_id: 'acc_a' }] },
        'invalid_request',
        'accounts[0].symbol_match',
      ],
      [{ defaults: { symbol: 'X', volume: 0 }, accounts: [{ account_id: 'acc_a' }] }, 'invalid_request', 'accounts[0].volume'],
      [{ defaults: { symbol: 'X', magic: -2 }, accounts: [{ account_id: 'acc_a' }] }, 'invalid_request', 'accounts[0].magic'],
    ];
    for (const [input, code, param] of cases) {
      const error = closeError(input);
      expect([error.code, error.param], JSON.stringify(input).slice(0, 120)).toEqual([code, param]);
    }
  });
});

describe('secrets', () => {
  it('seals passwords with AES-256-GCM so the stored form reveals nothing and tampering fails', () => {
    const box = createSecretBox(parseSecretKey(Buffer.alloc(32, 7).toString('base64')));
    const sealed = box.seal('hunter2');
    expect(JSON.stringify(sealed)).not.toContain('hunter2');
    expect(box.open(sealed)).toBe('hunter2');
    expect(box.seal('hunter2').iv).not.toBe(sealed.iv);
    expect(() => box.open({ ...sealed, data: Buffer.from('hunter3').toString('base64') })).toThrow();
    expect(() => parseSecretKey('short')).toThrow(/32 bytes/);
    expect(randomBase62(24)).toMatch(/^[0-9A-Za-z]{24}$/);
  });
});
