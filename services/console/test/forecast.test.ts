import { describe, expect, it } from 'vitest';
import { forecastCharges } from '../src/domain/forecast';
import { paymentUri, sortAssets } from '../src/domain/payment-uri';

const nowMs = Date.parse('2026-03-01T00:00:00Z');
const at = (days: number) => new Date(nowMs + days * 86_400_000).toISOString();

describe('the 30-day forecast', () => {
  it('takes each charge in date order and marks the first the balance does not cover', () => {
    const forecast = forecastCharges(
      2000,
      [
        { when: at(20), amount_eur_cents: 1500, label: 'late seat' },
        { when: at(3), amount_eur_cents: 1500, label: 'early seat' },
        { when: at(45), amount_eur_cents: 9999, label: 'beyond the horizon' },
      ],
      nowMs,
    );
    expect(forecast.steps.map((step) => [step.label, step.remainingEurCents])).toEqual([
      ['early seat', 500],
      ['late seat', -1000],
    ]);
    expect(forecast.totalEurCents).toBe(3000);
    expect(forecast.firstShortfall?.label).toBe('late seat');
  });

  it('has no shortfall when the balance covers every charge, and draws a charge already due at now', () => {
    const forecast = forecastCharges(5000, [{ when: at(-2), amount_eur_cents: 1500, label: 'overdue' }], nowMs);
    expect(forecast.steps[0]).toMatchObject({ atMs: nowMs, remainingEurCents: 3500 });
    expect(forecast.firstShortfall).toBeUndefined();
  });
});

describe('the payment URI behind the QR code', () => {
  const base = { deposit_address: 'addr1', deposit_amount_decimal: '0.00043', blockchain_code: 'BTC', asset_code: 'BTC' };

  it("is the API's EIP-681 link when it gives one, BIP21 for coins with a scheme, the bare address otherwise", () => {
    expect(paymentUri({ ...base, payment_uri: 'ethereum:0xabc@1?value=1' })).toEqual({ uri: 'ethereum:0xabc@1?value=1', kind: 'eip681' });
    expect(paymentUri(base)).toEqual({ uri: 'bitcoin:addr1?amount=0.00043', kind: 'bip21' });
    expect(paymentUri({ ...base, asset_code: 'USDT', blockchain_code: 'TRON', payment_uri: '' })).toEqual({
      uri: 'addr1',
      kind: 'address',
    });
  });

  it('lists stablecoins first', () => {
    const sorted = sortAssets([
      { is_stable: false, asset_name: 'Bitcoin', blockchain_name: 'Bitcoin' },
      { is_stable: true, asset_name: 'USD Coin', blockchain_name: 'Ethereum' },
      { is_stable: true, asset_name: 'Tether USD', blockchain_name: 'Tron' },
    ]);
    expect(sorted.map((asset) => asset.asset_name)).toEqual(['Tether USD', 'USD Coin', 'Bitcoin']);
  });
});
