import { findAsset, rateEur, type ListedAsset } from '../../domain/catalog';

/**
 * The currencies the fake NOWPayments lists, as NOWPayments spells them (one ticker per coin and chain), each
 * backed by an asset of the sandbox catalog (its rate, minimum and address format). Two entries exist to be left
 * out by a correct merchant: XRP needs a destination tag (`extra_id_exists`), and USDCSOL is listed by NOWPayments
 * but not among the merchant's enabled coins.
 */
export interface FakeCurrency {
  /** NOWPayments' ticker, upper case as `/full-currencies` writes it. */
  code: string;
  name: string;
  network: string;
  isStable: boolean;
  extraIdExists: boolean;
  merchantEnabled: boolean;
  /** The catalog asset behind it; absent for a coin this fake lists but cannot take (XRP). */
  listed?: ListedAsset;
}

const currency = (
  code: string,
  name: string,
  network: string,
  asset: [string, string] | null,
  flags: { extraIdExists?: boolean; merchantEnabled?: boolean } = {},
): FakeCurrency => {
  const listed = asset ? findAsset(asset[0], asset[1]) : undefined;
  return {
    code,
    name,
    network,
    isStable: listed?.coin.isStable ?? false,
    extraIdExists: flags.extraIdExists === true,
    merchantEnabled: flags.merchantEnabled !== false,
    ...(listed ? { listed } : {}),
  };
};

export const fakeCurrencies: readonly FakeCurrency[] = [
  currency('USDTTRC20', 'Tether USD (Tron)', 'trx', ['USDT', 'TRON']),
  currency('USDTERC20', 'Tether USD (Ethereum)', 'eth', ['USDT', 'ETH']),
  currency('USDTBSC', 'Tether USD (Binance Smart Chain)', 'bsc', ['USDT', 'BSC']),
  currency('USDC', 'USD Coin (Ethereum)', 'eth', ['USDC', 'ETH']),
  currency('USDCMATIC', 'USD Coin (Polygon)', 'matic', ['USDC', 'POLYGON']),
  currency('USDCSOL', 'USD Coin (Solana)', 'sol', ['USDC', 'SOL'], { merchantEnabled: false }),
  currency('BTC', 'Bitcoin', 'btc', ['BTC', 'BTC']),
  currency('ETH', 'Ethereum', 'eth', ['ETH', 'ETH']),
  currency('LTC', 'Litecoin', 'ltc', ['LTC', 'LTC']),
  currency('SOL', 'Solana', 'sol', ['SOL', 'SOL']),
  currency('TRX', 'Tron', 'trx', ['TRX', 'TRON']),
  currency('BNBBSC', 'BNB (Binance Smart Chain)', 'bsc', ['BNB', 'BSC']),
  currency('DOGE', 'Dogecoin', 'doge', ['DOGE', 'DOGE']),
  currency('XRP', 'Ripple', 'xrp', null, { extraIdExists: true }),
];

export function fakeCurrency(code: unknown): FakeCurrency | undefined {
  return typeof code === 'string' ? fakeCurrencies.find((candidate) => candidate.code === code.toUpperCase()) : undefined;
}

/** The currency whose catalog asset is this pair, for a deposit's invoice. */
export function currencyOfAsset(assetCode: string, blockchainCode: string): FakeCurrency | undefined {
  return fakeCurrencies.find((candidate) => candidate.listed?.coin.code === assetCode && candidate.listed.chain.code === blockchainCode);
}

/** Digits NOWPayments quotes a coin with: at most 8, fewer where the coin has fewer. */
export function precisionOf(listed: ListedAsset): number {
  return Math.min(listed.decimals, 8);
}

/** Rate in EUR per coin scaled by 1e8 (the catalog writes rates with exactly 8 decimals). */
function scaledRate(listed: ListedAsset, at: Date, rateStepMs: number): bigint {
  return BigInt(rateEur(listed.coin, at, rateStepMs).replace('.', ''));
}

/** Smallest units `eurCents` cost at the rate of `at`, rounded up to the coin's quoted precision. */
export function unitsForEurCents(listed: ListedAsset, eurCents: number, at: Date, rateStepMs: number): bigint {
  const precision = precisionOf(listed);
  const denominator = 100n * scaledRate(listed, at, rateStepMs);
  const quoted = (BigInt(eurCents) * 10n ** BigInt(precision + 8) + denominator - 1n) / denominator;
  return quoted * 10n ** BigInt(listed.decimals - precision);
}

/** `units` as the JSON number NOWPayments would write (`0.00012`, `1e-7`). */
export function coinNumber(units: bigint, decimals: number): number {
  const digits = units.toString().padStart(decimals + 1, '0');
  return Number(`${digits.slice(0, digits.length - decimals)}.${digits.slice(digits.length - decimals) || '0'}`);
}
