import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decimalOf, normalizedDecimal, offeredCurrencies, rateOfQuote } from '../src/providers/nowpayments-assets';
import { canonicalText, parseIpn, verifyIpn } from '../src/providers/nowpayments-ipn';

const secret = 'unit-ipn-secret-0123';
const key = crypto.createSecretKey(Buffer.from(secret));
const sign = (text: string) => crypto.createHmac('sha512', secret).update(text).digest('hex');

describe('NOWPayments IPN signature (pure)', () => {
  it('signs the recursively key-sorted JSON, so order, spacing and number spelling of the body do not matter', () => {
    const signature = sign('{"a":[{"y":1,"z":2}],"b":{"c":1e-7,"d":"x"},"e":null}');
    const bodies = [
      '{"e":null,"b":{"d":"x","c":0.00000010},"a":[{"z":2,"y":1}]}',
      '{ "a" : [ { "y" : 1.0 , "z" : 2 } ] , "b" : { "c" : 1E-7 , "d" : "x" } , "e" : null }',
    ];
    for (const body of bodies) expect(verifyIpn(Buffer.from(body), { 'x-nowpayments-sig': signature }, key)).toBe(true);
    expect(verifyIpn(Buffer.from(bodies[0]!), { 'x-nowpayments-sig': signature.toUpperCase() }, key)).toBe(true);
    // Arrays keep their order; a changed value, a missing header, a short one and a non-JSON body fail.
    expect(verifyIpn(Buffer.from('{"a":[{"y":2,"z":1}],"b":{"c":1e-7,"d":"x"},"e":null}'), { 'x-nowpayments-sig': signature }, key)).toBe(
      false,
    );
    expect(verifyIpn(Buffer.from(bodies[0]!), {}, key)).toBe(false);
    expect(verifyIpn(Buffer.from(bodies[0]!), { 'x-nowpayments-sig': signature.slice(2) }, key)).toBe(false);
    expect(verifyIpn(Buffer.from('not json'), { 'x-nowpayments-sig': sign('') }, key)).toBe(false);
  });

  it('keeps a `__proto__` key as data, never as a prototype', () => {
    const text = canonicalText(JSON.parse('{"b":1,"__proto__":{"polluted":true}}'));
    expect(text).toBe('{"__proto__":{"polluted":true},"b":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads a repeat payment as a payment of the original, its total as a running total of its own', () => {
    const parsed = parseIpn(
      Buffer.from(
        JSON.stringify({
          payment_id: 5001,
          parent_payment_id: 4001,
          payment_status: 'finished',
          pay_currency: 'usdttrc20',
          actually_paid: 1.5e-6,
          order_id: '42',
          updated_at: '2027-03-01T10:00:00.000Z',
        }),
      ),
      new Date(),
    );
    expect(parsed).toMatchObject({
      invoiceId: '4001',
      orderId: '42',
      assetCode: 'USDT',
      blockchainCode: 'TRON',
      transaction: { transactionId: '5001@0.0000015', amountDecimal: '0.0000015', cumulativeOf: '5001', status: 'confirmed' },
    });
    expect(() => parseIpn(Buffer.from('{"payment_id":1,"pay_currency":"xrp"}'), new Date())).toThrow(/currency/);
  });
});

describe('NOWPayments currencies (pure)', () => {
  it('offers enabled, mapped coins without a memo, on the network the table expects, whatever its spelling', () => {
    const offered = offeredCurrencies(
      [
        { code: 'USDTTRC20', network: 'TRON', is_stable: true },
        { code: 'USDTERC20', network: 'eth', enable: false },
        { code: 'XRP', network: 'xrp', extra_id_exists: true },
        { code: 'BNBBSC', network: 'bsc' },
        { code: 'USDCMATIC', network: 'eth' },
        { code: 'DOGE' },
      ],
      ['usdttrc20', 'USDTERC20', 'XRP', 'BNBBSC', 'USDCMATIC', 'DOGE'],
    );
    expect(offered.map((currency) => `${currency.code} ${currency.asset.assetCode}/${currency.asset.blockchainCode}`)).toEqual([
      'usdttrc20 USDT/TRON',
      'bnbbsc BNB/BSC',
      'doge DOGE/DOGE',
    ]);
    expect(offered[1]!.asset).toMatchObject({ isEvm: true, isStable: false, decimals: 18 });
  });

  it('spells amounts one way and derives the rate of a quote', () => {
    expect(decimalOf(1e-7)).toBe('1e-7');
    expect(normalizedDecimal('1e-7')).toBe('0.0000001');
    expect(normalizedDecimal('10.500')).toBe('10.5');
    expect(normalizedDecimal('1.5e+3')).toBe('1500');
    expect(decimalOf(-1)).toBeUndefined();
    expect(decimalOf('1,5')).toBeUndefined();
    // EUR 100 for 108.695653 USDT: 0.91999999… EUR per USDT, rounded down to 8 decimals.
    expect(rateOfQuote(10_000, 108_695_653n, 6)).toBe('0.91999999');
    expect(rateOfQuote(10_000, 0n, 6)).toBeUndefined();
  });
});
