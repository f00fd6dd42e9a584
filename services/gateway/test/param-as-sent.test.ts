import { AppError } from '@mtx/shared/errors';
import { describe, expect, it } from 'vitest';
import { withParamAsSent } from '../src/domain/param-as-sent';

const refusal = (param: string) => new AppError('invalid_request', `${param} must be greater than 0`, { param });

describe('withParamAsSent', () => {
  it('names defaults or the top-level field when the entry did not give the field itself', () => {
    const orders = { defaults: { volume: 0 }, orders: [{ account_id: 'a' }] };
    expect(withParamAsSent(refusal('orders[0].volume'), orders, 'orders')).toMatchObject({
      param: 'defaults.volume',
      message: 'defaults.volume must be greater than 0',
      code: 'invalid_request',
    });
    const closeTop = { volume: 0, accounts: [{ account_id: 'a' }] };
    expect(withParamAsSent(refusal('accounts[0].volume'), closeTop, 'accounts')).toMatchObject({ param: 'volume' });
    const closeDefaults = { defaults: { slippage: -1 }, accounts: [{ account_id: 'a' }] };
    expect(withParamAsSent(refusal('accounts[0].slippage'), closeDefaults, 'accounts')).toMatchObject({ param: 'defaults.slippage' });
  });

  it('leaves the error alone when the entry gave the field, nobody did, or it is no field error', () => {
    const own = refusal('orders[0].volume');
    expect(withParamAsSent(own, { defaults: { volume: 1 }, orders: [{ volume: 0 }] }, 'orders')).toBe(own);
    const nobody = refusal('orders[1].symbol');
    expect(withParamAsSent(nobody, { orders: [{}, {}] }, 'orders')).toBe(nobody);
    const tickets = refusal('accounts[0].tickets[1]');
    expect(withParamAsSent(tickets, { defaults: {}, accounts: [{ tickets: [1, 0] }] }, 'accounts')).toBe(tickets);
    const other = new Error('unavailable');
    expect(withParamAsSent(other, {}, 'orders')).toBe(other);
  });
});
