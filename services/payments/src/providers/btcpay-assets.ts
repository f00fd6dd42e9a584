import { rateScaleDigits } from '../domain/money';

/**
 * What payments knows of the coins a BTCPay Server store can take (docs/providers/btcpay.md): BTCPay names a coin
 * by its crypto code and a way to pay it by a payment method id (`BTC-CHAIN` on-chain, `BTC-LN` / `BTC-LNURL`
 * Lightning); the product names it by asset and blockchain code. Only on-chain methods are offered: a top-up is an
 * address and an amount, and a Lightning invoice is neither. A coin missing here is not offered even when the store
 * has it enabled; add its row to offer it.
 */
export interface BtcpayCoin {
  /** BTCPay's crypto code (the `currency` of its payment methods, the left side of `BTC_EUR`). */
  cryptoCode: string;
  assetCode: string;
  assetName: string;
  blockchainCode: string;
  blockchainName: string;
  decimals: number;
  displayDecimals: number;
  isEvm: boolean;
  isStable: boolean;
}

export const btcpayCoins: readonly BtcpayCoin[] = [
  {
    cryptoCode: 'BTC',
    assetCode: 'BTC',
    assetName: 'Bitcoin',
    blockchainCode: 'BTC',
    blockchainName: 'Bitcoin',
    decimals: 8,
    displayDecimals: 8,
    isEvm: false,
    isStable: false,
  },
  {
    cryptoCode: 'LTC',
    assetCode: 'LTC',
    assetName: 'Litecoin',
    blockchainCode: 'LTC',
    blockchainName: 'Litecoin',
    decimals: 8,
    displayDecimals: 6,
    isEvm: false,
    isStable: false,
  },
  {
    cryptoCode: 'DOGE',
    assetCode: 'DOGE',
    assetName: 'Dogecoin',
    blockchainCode: 'DOGE',
    blockchainName: 'Dogecoin',
    decimals: 8,
    displayDecimals: 2,
    isEvm: false,
    isStable: false,
  },
];

/**
 * The crypto code of an on-chain payment method id, or null for any other way to pay. BTCPay 2 writes `BTC-CHAIN`;
 * BTCPay 1 wrote on-chain as the bare crypto code (`BTC`) and Lightning as `BTC-LightningNetwork`.
 */
export function onChainCryptoCode(paymentMethodId: unknown): string | null {
  if (typeof paymentMethodId !== 'string') return null;
  const match = /^([A-Za-z0-9]{1,16})(-CHAIN)?$/.exec(paymentMethodId);
  return match ? match[1]!.toUpperCase() : null;
}

export function coinOfCryptoCode(cryptoCode: string): BtcpayCoin | undefined {
  return btcpayCoins.find((coin) => coin.cryptoCode === cryptoCode.toUpperCase());
}

export function coinOfAsset(assetCode: string, blockchainCode: string): BtcpayCoin | undefined {
  return btcpayCoins.find((coin) => coin.assetCode === assetCode && coin.blockchainCode === blockchainCode);
}

/** The on-chain payment method id BTCPay 2 gives a coin, used when the store's list did not name it otherwise. */
export function onChainPaymentMethodId(coin: BtcpayCoin): string {
  return `${coin.cryptoCode}-CHAIN`;
}

/**
 * A BTCPay rate (a decimal string, any number of decimals) as payments carries rates: at most 8 decimals, cut, not
 * rounded (a rate a hundred-millionth of a euro lower quotes at most one smallest unit more). Null for anything that
 * is not a positive decimal.
 */
export function rateOfBtcpay(value: unknown): string | null {
  const text = typeof value === 'number' && Number.isFinite(value) ? value.toFixed(rateScaleDigits) : value;
  if (typeof text !== 'string') return null;
  const match = /^([0-9]{1,15})(?:\.([0-9]+))?$/.exec(text);
  if (!match) return null;
  const whole = BigInt(match[1]!).toString();
  const fraction = (match[2] ?? '').slice(0, rateScaleDigits).replace(/0+$/, '');
  if (whole === '0' && fraction === '') return null;
  return fraction ? `${whole}.${fraction}` : whole;
}

/** EUR cents as BTCPay's invoice `amount`: a decimal string with two decimals (`1234` → `"12.34"`). */
export function eurAmountOfCents(amountEurCents: number): string {
  return `${Math.floor(amountEurCents / 100)}.${String(amountEurCents % 100).padStart(2, '0')}`;
}
