import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '@mtx/shared/errors';
import { isVolumeOnStep, retcode } from '@mtx/shared/trading';
import { ExposureLimits, allowedSymbolVerdict, orderVolumeVerdict } from '../src/domain/account-limits';
import { applySettingsUpdate, mappedSymbol, settingsOf, settingsUpdateOf } from '../src/domain/account-settings';
import { sizeLeg, type SymbolFigures } from '../src/domain/sizing';
import { resolveSymbol } from '../src/domain/symbol-resolution';
import { validatePlaceOrders } from '../src/domain/validation';

/** The pure rules behind the pre-trade decisions: sizing, limits, settings changes and symbol resolution. */

const eurusd: SymbolFigures = {
  name: 'EURUSD',
  tick_size: 0.00001,
  tick_value: 1,
  volume_min: 0.01,
  volume_max: 50,
  volume_step: 0.01,
  bid: 1.1,
  ask: 1.10012,
};
const account = { equity: 10_000, balance: 12_000 };

describe('sizing', () => {
  it('computes equity, balance and risk volumes and reports their basis', () => {
    expect(sizeLeg({ mode: 'equity', lots_per_1000: 0.0123 }, { operation: 'buy' }, account, eurusd, undefined)).toEqual({
      ok: true,
      volume: 0.12,
      sizing: { mode: 'equity', equity: 10_000, computed_volume: 0.123 },
    });
    expect(sizeLeg({ mode: 'balance', lots_per_1000: 0.01 }, { operation: 'sell' }, account, eurusd, undefined)).toMatchObject({
      volume: 0.12,
      sizing: { mode: 'balance', balance: 12_000 },
    });
    // 1 % of 10,000 over 500 ticks of 1 USD below the ask: 0.2 lots.
    const risk = sizeLeg({ mode: 'risk', percent: 1 }, { operation: 'buy', stop_loss: 1.09512 }, account, eurusd, undefined);
    expect(risk).toMatchObject({ ok: true, volume: 0.2, sizing: { mode: 'risk', equity: 10_000 } });
    // A sell measures from the bid; a pending order from its own price.
    expect(sizeLeg({ mode: 'risk', percent: 1 }, { operation: 'sell', stop_loss: 1.105 }, account, eurusd, undefined)).toMatchObject({
      volume: 0.2,
    });
    expect(
      sizeLeg({ mode: 'risk', percent: 2 }, { operation: 'buyLimit', price: 1.09, stop_loss: 1.08 }, account, eurusd, undefined),
    ).toMatchObject({ volume: 0.2 });
  });

  it('refuses a stop loss on the wrong side, and a volume below the minimum, naming the figures', () => {
    const wrongSide = sizeLeg({ mode: 'risk', percent: 1 }, { operation: 'buy', stop_loss: 1.2 }, account, eurusd, undefined);
    expect(wrongSide).toMatchObject({ ok: false, retcode: retcode.INVALID_STOPS });
    const tiny = sizeLeg(
      { mode: 'equity', lots_per_1000: 0.0001 },
      { operation: 'buy' },
      account,
      { ...eurusd, volume_min: 0.1, volume_step: 0.1 },
      undefined,
    );
    expect(tiny).toMatchObject({ ok: false, retcode: retcode.INVALID_VOLUME, sizing: { computed_volume: 0.001 } });
    if (!tiny.ok) expect(tiny.message).toMatch(/computed 0\.001 lots.*minimum 0\.1/);
    const capped = sizeLeg({ mode: 'equity', lots_per_1000: 1 }, { operation: 'buy' }, account, { ...eurusd, volume_min: 0.1 }, 0.05);
    expect(capped).toMatchObject({ ok: false, retcode: retcode.INVALID_VOLUME });
    if (!capped.ok) expect(capped.message).toContain('max_volume_per_order 0.05');
  });

  it('always sends a volume on the step, within the symbol maximum and the account limit, or nothing', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.0001, max: 500, noNaN: true }),
        fc.constantFrom(0.01, 0.1, 1),
        fc.double({ min: 1, max: 1_000_000, noNaN: true }),
        fc.option(fc.double({ min: 0.01, max: 100, noNaN: true }), { nil: undefined }),
        (lotsPer1000, step, equity, limit) => {
          const symbol = { ...eurusd, volume_step: step, volume_min: step, volume_max: 100 };
          const outcome = sizeLeg(
            { mode: 'equity', lots_per_1000: lotsPer1000 },
            { operation: 'buy' },
            { equity, balance: equity },
            symbol,
            limit,
          );
          if (!outcome.ok) return outcome.retcode === retcode.INVALID_VOLUME;
          return (
            isVolumeOnStep(outcome.volume, step) &&
            outcome.volume >= step - 1e-9 &&
            outcome.volume <= 100 &&
            (limit === undefined || outcome.volume <= limit + 1e-9) &&
            outcome.volume <= outcome.sizing.computed_volume + 1e-9
          );
        },
      ),
    );
  });
});

describe('account limits', () => {
  const settings = (values: object) => ({ ...settingsOf(undefined), ...values });

  it('counts a hedging account per leg and a netting account per symbol', () => {
    const hedging = new ExposureLimits(settings({ max_open_positions: 2 }), false, [{ symbol: 'EURUSD', type: 0, volume: 0.1 }]);
    expect(hedging.admit({ symbol: 'EURUSD', operation: 'buy', volume: 0.1 }).ok).toBe(true);
    expect(hedging.admit({ symbol: 'EURUSD', operation: 'buy', volume: 0.1 })).toMatchObject({
      ok: false,
      retcode: retcode.LIMIT_POSITIONS,
    });

    const netting = new ExposureLimits(settings({ max_open_positions: 1, max_total_volume: 0.4 }), true, [
      { symbol: 'EURUSD', type: 0, volume: 0.3 },
    ]);
    expect(netting.admit({ symbol: 'EURUSD', operation: 'buy', volume: 0.1 }).ok).toBe(true);
    expect(netting.admit({ symbol: 'GBPUSD', operation: 'sell', volume: 0.1 })).toMatchObject({ retcode: retcode.LIMIT_POSITIONS });
    expect(netting.admit({ symbol: 'EURUSD', operation: 'buy', volume: 0.1 })).toMatchObject({ retcode: retcode.LIMIT_VOLUME });
    // Reducing (and reversing to less) is never refused.
    expect(netting.admit({ symbol: 'EURUSD', operation: 'sell', volume: 0.7 }).ok).toBe(true);
    expect(netting.admit({ symbol: 'EURUSD', operation: 'buy', volume: 0.3 }).ok).toBe(true);
  });

  it('checks the per-order volume and the allowed symbols by broker symbol or given name', () => {
    expect(orderVolumeVerdict(settings({ max_volume_per_order: 1 }), 1).ok).toBe(true);
    expect(orderVolumeVerdict(settings({ max_volume_per_order: 1 }), 1.01)).toMatchObject({ retcode: retcode.LIMIT_VOLUME });
    const allowed = settings({ allowed_symbols: ['EURUSD', 'XAUUSD.xx'] });
    expect(allowedSymbolVerdict(allowed, 'EURUSD', 'EURUSD.xx').ok).toBe(true);
    expect(allowedSymbolVerdict(allowed, 'GOLD', 'XAUUSD.xx').ok).toBe(true);
    expect(allowedSymbolVerdict(allowed, 'GBPUSD', 'GBPUSD.xx')).toMatchObject({ retcode: retcode.TRADE_DISABLED });
  });
});

describe('settings changes and symbol resolution', () => {
  it('writes only what is given, clears what is named, and refuses any bad field before writing', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const update = settingsUpdateOf({ symbol_map: { GOLD: 'XAUUSD.xx' }, max_open_positions: 3, clear: ['allowed_symbols'] }, now);
    expect(update.unset).toEqual(['settings.allowed_symbols']);
    const stored = applySettingsUpdate({ allowed_symbols: ['EURUSD'], max_total_volume: 2 }, update);
    expect(settingsOf(stored)).toEqual({
      symbol_map: { GOLD: 'XAUUSD.xx' },
      max_open_positions: 3,
      max_total_volume: 2,
      trading_enabled: true,
      updated_at: now,
    });
    expect(mappedSymbol(settingsOf(stored), 'gold')).toBe('XAUUSD.xx');
    for (const bad of [
      {},
      { max_open_positions: 2, clear: ['max_open_positions'] },
      { clear: ['leverage'] },
      { max_total_volume: Number.NaN },
    ])
      expect(() => settingsUpdateOf(bad, now)).toThrow(AppError);
  });

  it('resolves a base name by the map, then by the only candidate, and names several', () => {
    const settings = { ...settingsOf(undefined), symbol_map: { EURUSD: 'EURUSD.xx' } };
    expect(resolveSymbol('EURUSD', 'base', settings, ['EURUSD', 'EURUSDm'])).toEqual({ ok: true, symbol: 'EURUSD.xx' });
    expect(resolveSymbol('GBPUSD', 'base', settings, ['GBPUSDm'])).toEqual({ ok: true, symbol: 'GBPUSDm' });
    expect(resolveSymbol('GBPUSD', 'exact', settings, [])).toEqual({ ok: true, symbol: 'GBPUSD' });
    const several = resolveSymbol('GBPUSD', 'base', settings, ['GBPUSD', 'GBPUSD.xx']);
    expect(several).toMatchObject({ ok: false, retcode: retcode.INVALID });
    if (!several.ok) expect(several.message).toContain('GBPUSD, GBPUSD.xx');
  });

  it('takes sizing in place of volume, a leg overriding defaults, and refuses both on one level', () => {
    const legs = validatePlaceOrders(
      {
        defaults: { symbol: 'EURUSD', operation: 'buy', volume: 0.1 },
        orders: [
          { account_id: 'acc_1', fields: { sizing: { mode: 'equity', lots_per_1000: 0.01 }, symbol_match: 'base', check_margin: true } },
        ],
      },
      Date.now(),
    );
    expect(legs[0]).toMatchObject({ volume: 0, sizing: { mode: 'equity', lots_per_1000: 0.01 }, symbol_match: 'base', check_margin: true });
    expect(() =>
      validatePlaceOrders(
        {
          orders: [
            {
              account_id: 'acc_1',
              fields: { symbol: 'EURUSD', operation: 'buy', volume: 0.1, sizing: { mode: 'equity', lots_per_1000: 1 } },
            },
          ],
        },
        Date.now(),
      ),
    ).toThrow(/either volume or sizing/);
    expect(() =>
      validatePlaceOrders(
        { orders: [{ account_id: 'acc_1', fields: { symbol: 'EURUSD', operation: 'buy', sizing: { mode: 'risk', percent: 1 } } }] },
        Date.now(),
      ),
    ).toThrow(/stop_loss/);
  });
});
