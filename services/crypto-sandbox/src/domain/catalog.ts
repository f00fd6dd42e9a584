import crypto from 'node:crypto';

export type AddressStyle = 'evm' | 'tron' | 'bitcoin' | 'litecoin' | 'solana' | 'dogecoin';

export interface Chain {
  code: string;
  name: string;
  isEvm: boolean;
  addressStyle: AddressStyle;
  /** EIP-155 chain id, for wallet-connect payment URIs on EVM chains. */
  evmChainId?: number;
}

export interface Coin {
  code: string;
  name: string;
  isStable: boolean;
  /** Mid price the walk moves around, in EUR per whole coin. */
  baseRateEur: number;
  /** Largest relative move of one rate step. */
  volatilityPerStep: number;
}

export interface ListedAsset {
  coin: Coin;
  chain: Chain;
  decimals: number;
  displayDecimals: number;
  minimumEurCents: number;
  /** ERC-20 / BEP-20 contract for tokens on EVM chains; absent for the chain's native coin. */
  tokenContract?: string;
}

const chains: Record<string, Chain> = {
  TRON: { code: 'TRON', name: 'Tron', isEvm: false, addressStyle: 'tron' },
  ETH: { code: 'ETH', name: 'Ethereum', isEvm: true, addressStyle: 'evm', evmChainId: 1 },
  BSC: { code: 'BSC', name: 'BNB Smart Chain', isEvm: true, addressStyle: 'evm', evmChainId: 56 },
  POLYGON: { code: 'POLYGON', name: 'Polygon', isEvm: true, addressStyle: 'evm', evmChainId: 137 },
  BTC: { code: 'BTC', name: 'Bitcoin', isEvm: false, addressStyle: 'bitcoin' },
  LTC: { code: 'LTC', name: 'Litecoin', isEvm: false, addressStyle: 'litecoin' },
  SOL: { code: 'SOL', name: 'Solana', isEvm: false, addressStyle: 'solana' },
  DOGE: { code: 'DOGE', name: 'Dogecoin', isEvm: false, addressStyle: 'dogecoin' },
};

const coins: Record<string, Coin> = {
  USDT: { code: 'USDT', name: 'Tether USD', isStable: true, baseRateEur: 0.92, volatilityPerStep: 0.0002 },
  USDC: { code: 'USDC', name: 'USD Coin', isStable: true, baseRateEur: 0.92, volatilityPerStep: 0.0002 },
  BTC: { code: 'BTC', name: 'Bitcoin', isStable: false, baseRateEur: 58_000, volatilityPerStep: 0.004 },
  ETH: { code: 'ETH', name: 'Ether', isStable: false, baseRateEur: 3_100, volatilityPerStep: 0.005 },
  LTC: { code: 'LTC', name: 'Litecoin', isStable: false, baseRateEur: 75, volatilityPerStep: 0.006 },
  SOL: { code: 'SOL', name: 'Solana', isStable: false, baseRateEur: 140, volatilityPerStep: 0.007 },
  TRX: { code: 'TRX', name: 'TRON', isStable: false, baseRateEur: 0.11, volatilityPerStep: 0.006 },
  BNB: { code: 'BNB', name: 'BNB', isStable: false, baseRateEur: 540, volatilityPerStep: 0.005 },
  DOGE: { code: 'DOGE', name: 'Dogecoin', isStable: false, baseRateEur: 0.14, volatilityPerStep: 0.008 },
};

const listing = (
  coin: string,
  chain: string,
  decimals: number,
  displayDecimals: number,
  minimumEurCents: number,
  tokenContract?: string,
): ListedAsset => ({
  coin: coins[coin]!,
  chain: chains[chain]!,
  decimals,
  displayDecimals,
  minimumEurCents,
  ...(tokenContract ? { tokenContract } : {}),
});

/**
 * What the sandbox offers. Minimums differ per pair like a real processor's (network fees make small BTC
 * payments uneconomic): BTC needs EUR 150, so it is missing at EUR 10 and offered at EUR 200.
 */
export const catalog: readonly ListedAsset[] = [
  listing('USDT', 'TRON', 6, 2, 1_000),
  listing('USDT', 'ETH', 6, 2, 2_000, '0xdac17f958d2ee523a2206206994597c13d831ec7'),
  listing('USDT', 'BSC', 18, 2, 1_000, '0x55d398326f99059ff775485246999027b3197955'),
  listing('USDC', 'ETH', 6, 2, 2_000, '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'),
  listing('USDC', 'POLYGON', 6, 2, 1_000, '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359'),
  listing('USDC', 'SOL', 6, 2, 1_000),
  listing('BTC', 'BTC', 8, 8, 15_000),
  listing('ETH', 'ETH', 18, 6, 2_000),
  listing('LTC', 'LTC', 8, 6, 1_000),
  listing('SOL', 'SOL', 9, 4, 1_000),
  listing('TRX', 'TRON', 6, 2, 1_000),
  listing('BNB', 'BSC', 18, 5, 1_500),
  listing('DOGE', 'DOGE', 8, 2, 1_000),
];

export function findAsset(assetCode: string, blockchainCode: string): ListedAsset | undefined {
  return catalog.find((asset) => asset.coin.code === assetCode && asset.chain.code === blockchainCode);
}

// Terms of the walk: a step's shock fades by this factor per step, and shocks older than the window are gone.
const persistence = 0.97;
const memorySteps = 96;

function shock(coinCode: string, step: number, volatility: number): number {
  const digest = crypto.createHash('sha256').update(`${coinCode}:${step}`).digest();
  const uniform = digest.readUIntBE(0, 6) / 2 ** 48;
  return volatility * (2 * uniform - 1);
}

const rateCache = new Map<string, string>();

/**
 * EUR per whole coin at `at`, as a decimal string with 8 decimals: a deterministic, mean-reverting random
 * walk (sum of fading hashed shocks), so every replica and every restart agrees on the rate of an instant.
 * Floating point only simulates the market; amounts derived from the rate are exact decimal arithmetic.
 */
export function rateEur(coin: Coin, at: Date, stepMs: number): string {
  const step = Math.floor(at.getTime() / stepMs);
  const key = `${coin.code}:${step}:${stepMs}`;
  const cached = rateCache.get(key);
  if (cached) return cached;
  let exponent = 0;
  let weight = 1;
  for (let age = 0; age < memorySteps; age++) {
    exponent += weight * shock(coin.code, step - age, coin.volatilityPerStep);
    weight *= persistence;
  }
  const rate = (coin.baseRateEur * Math.exp(exponent)).toFixed(8);
  if (rateCache.size > 10_000) rateCache.clear();
  rateCache.set(key, rate);
  return rate;
}

/** `12345` with 4 decimals → `1.2345`; trailing zeros trimmed. */
export function formatUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = decimals > 0 ? digits.slice(digits.length - decimals).replace(/0+$/, '') : '';
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

export function isUnitAmount(value: unknown): value is string {
  return typeof value === 'string' && /^[1-9][0-9]{0,77}$/.test(value);
}
