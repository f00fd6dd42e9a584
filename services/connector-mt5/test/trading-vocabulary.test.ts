import { describe, expect, it } from 'vitest';
import { closeAccountStatus } from '@mtx/connector-runtime/runtime';
import { mt4ErrorToRetcode } from '@mtx/connector-runtime/mt4-errors';
import { brokerSymbols, retcodeDescription, roundVolumeDown, symbolMatches } from '@mtx/shared/trading';

describe('trading vocabulary', () => {
  // Brokers as broker-sim lists them: no suffix (with account-class variants listed too), `.xx`, `m`, `-ecn`.
  const instruments = ['EURUSD', 'GBPUSD', 'USDJPY', 'XAUUSD', 'BTCUSD'];
  const brokerOf = (suffix: string, extra: string[] = []) =>
    brokerSymbols({ symbol_suffix: suffix, symbols: [...instruments.map((name) => `${name}${suffix}`), ...extra] });
  const families = [
    { suffix: '', broker: brokerOf('', ['EURUSD.xx', 'EURUSD-ecn', 'EURUSDm', 'EURUSDPRO']) },
    { suffix: '.xx', broker: brokerOf('.xx') },
    { suffix: 'm', broker: brokerOf('m') },
    { suffix: '-ecn', broker: brokerOf('-ecn') },
  ];

  it('matches a base across every suffix family, in any case of the base', () => {
    for (const { suffix, broker } of families) {
      const own = `EURUSD${suffix}`;
      for (const base of ['EURUSD', 'eurusd', 'EurUsd']) expect(symbolMatches(own, base, 'base', broker), `${own} by ${base}`).toBe(true);
      // The base with its suffix named is a base too (EURUSD.xx matches EURUSD.xx).
      expect(symbolMatches(own, own, 'base', broker), own).toBe(true);
      expect(symbolMatches(`GBPUSD${suffix}`, 'EURUSD', 'base', broker)).toBe(false);
    }
    const plain = families[0]!.broker;
    for (const candidate of [
      'EURUSD',
      'EURUSD.xx',
      'EURUSD-ecn',
      'EURUSDm',
      'EURUSD_i',
      'EURUSD#1',
      'EURUSD!pro',
      'EURUSD+2',
      'EURUSDab',
    ]) {
      expect(symbolMatches(candidate, 'EURUSD', 'base', plain), candidate).toBe(true);
    }
    for (const candidate of ['EURUSDPRO', 'EURUSDabc', 'XEURUSD', 'EURUSD.', 'EURUSD#', 'EURUSD+', 'EURUSD.x-y', 'GBPUSD'])
      expect(symbolMatches(candidate, 'EURUSD', 'base', plain), candidate).toBe(false);
  });

  it('never lets a shorter prefix match a longer name, whatever the prefix length and suffix family', () => {
    for (const { suffix, broker } of families) {
      for (const symbol of [`EURUSD${suffix}`, 'EURUSD.xx', 'EURUSDm', 'EURUSD-ecn']) {
        for (let length = 1; length < 'EURUSD'.length; length++) {
          const prefix = 'EURUSD'.slice(0, length);
          expect(symbolMatches(symbol, prefix, 'base', broker), `${symbol} by ${prefix} at suffix "${suffix}"`).toBe(false);
        }
      }
    }
    // A name only the variants carry is no base of the plain symbol.
    expect(symbolMatches('EURUSD', 'EURUSDm', 'base', families[2]!.broker)).toBe(false);
    expect(symbolMatches('EURUSD', 'EUR.*', 'base', families[0]!.broker)).toBe(false);
  });

  it('compares exact names case-sensitively, as the broker names them; * matches everything', () => {
    const broker = families[1]!.broker;
    expect(symbolMatches('EURUSD.xx', 'EURUSD.xx', 'exact', broker)).toBe(true);
    expect(symbolMatches('EURUSD.xx', 'EURUSD', 'exact', broker)).toBe(false);
    expect(symbolMatches('EURUSD.xx', 'eurusd.XX', 'exact', broker)).toBe(false);
    expect(symbolMatches('EURUSD', 'eurusd', 'exact', families[0]!.broker)).toBe(false);
    expect(symbolMatches('anything', '*', 'exact', broker)).toBe(true);
    expect(symbolMatches('anything', '*', 'base', broker)).toBe(true);
  });

  it('maps MT4 errors onto MT5 retcode names and rounds volumes down to the step', () => {
    const names = Object.fromEntries(
      [134, 130, 138, 131, 129, 133, 132, 136, 128, 6, 4106].map((error) => [error, retcodeDescription(mt4ErrorToRetcode(error))]),
    );
    expect(names).toEqual({
      134: 'TRADE_RETCODE_NO_MONEY',
      130: 'TRADE_RETCODE_INVALID_STOPS',
      138: 'TRADE_RETCODE_REQUOTE',
      131: 'TRADE_RETCODE_INVALID_VOLUME',
      129: 'TRADE_RETCODE_INVALID_PRICE',
      133: 'TRADE_RETCODE_TRADE_DISABLED',
      132: 'TRADE_RETCODE_MARKET_CLOSED',
      136: 'TRADE_RETCODE_PRICE_OFF',
      128: 'TRADE_RETCODE_TIMEOUT',
      6: 'TRADE_RETCODE_CONNECTION',
      4106: 'TRADE_RETCODE_INVALID',
    });
    expect(retcodeDescription(mt4ErrorToRetcode(0))).toBe('TRADE_RETCODE_DONE');
    expect(retcodeDescription(mt4ErrorToRetcode(0, true))).toBe('TRADE_RETCODE_PLACED');
    expect(roundVolumeDown(0.37, 0.1)).toBe(0.3);
    expect(roundVolumeDown(0.3, 0.1)).toBe(0.3);
    expect(roundVolumeDown(0.129, 0.01)).toBe(0.12);
    expect(roundVolumeDown(0.07, 0.01)).toBe(0.07);
    expect(closeAccountStatus([])).toBe('nothing_matched');
    expect(closeAccountStatus([{ status: 'closed' }, { status: 'skipped' }])).toBe('partial');
    expect(closeAccountStatus([{ status: 'unknown' }, { status: 'failed' }])).toBe('unknown');
  });
});
