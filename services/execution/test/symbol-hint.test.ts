import { describe, expect, it } from 'vitest';
import { retcode } from '@mtx/shared/trading';
import { type OrderLegResult, withSymbolSuffixHint } from '../src/domain/results';

const refused = (symbol: string, code: number = retcode.INVALID): OrderLegResult => ({
  account_id: 'acc_1',
  platform: 'mt5',
  symbol,
  operation: 'buy',
  volume: 0.1,
  status: 'rejected',
  order: 0,
  deal: 0,
  message: `not executed: unknown symbol ${symbol}`,
  latency_ms: 3,
  retcode: code,
});

describe('the symbol suffix hint', () => {
  it('names the suffix on an invalid-request refusal of a symbol without it', () => {
    const hinted = withSymbolSuffixHint(refused('EURUSD'), '.xx', 'BetaMarkets-Server');
    expect(hinted.message).toBe('not executed: unknown symbol EURUSD (symbols on BetaMarkets-Server end in .xx)');
    expect({ ...hinted, message: '' }).toEqual({ ...refused('EURUSD'), message: '' });
  });

  it('leaves every other result as it was', () => {
    for (const [result, suffix] of [
      [refused('EURUSD.xx'), '.xx'],
      [refused('EURUSD'), ''],
      [refused('EURUSD', retcode.INVALID_VOLUME), '.xx'],
      [{ ...refused('EURUSD'), status: 'filled' as const }, '.xx'],
    ] as const)
      expect(withSymbolSuffixHint(result, suffix, 'BetaMarkets-Server')).toBe(result);
  });
});
