import { formatUnits, rateScaleDigits, unitsOfDecimal } from '../domain/money';
import type { ProviderAsset } from './provider';

/**
 * NOWPayments' currencies in our own codes. NOWPayments names a coin on a chain with one ticker (`usdttrc20`,
 * `bnbbsc`); our asset rows carry an asset code and a blockchain code, as the sandbox catalog does. The chain's
 * facts (EVM or not) follow from the `network` NOWPayments reports for the ticker; the token's decimals on that
 * chain are not in NOWPayments' data at all, so they live in this table. A ticker missing here is not offered.
 */
interface NetworkFacts {
  blockchainCode: string;
  blockchainName: string;
  isEvm: boolean;
}

const networks: Record<string, NetworkFacts> = {
  trx: { blockchainCode: 'TRON', blockchainName: 'Tron', isEvm: false },
  eth: { blockchainCode: 'ETH', blockchainName: 'Ethereum', isEvm: true },
  bsc: { blockchainCode: 'BSC', blockchainName: 'BNB Smart Chain', isEvm: true },
  matic: { blockchainCode: 'POLYGON', blockchainName: 'Polygon', isEvm: true },
  btc: { blockchainCode: 'BTC', blockchainName: 'Bitcoin', isEvm: false },
  ltc: { blockchainCode: 'LTC', blockchainName: 'Litecoin', isEvm: false },
  sol: { blockchainCode: 'SOL', blockchainName: 'Solana', isEvm: false },
  doge: { blockchainCode: 'DOGE', blockchainName: 'Dogecoin', isEvm: false },
};

/** Other spellings of a network NOWPayments has used or may use, to the table's. */
const networkAliases: Record<string, string> = {
  trx: 'trx',
  tron: 'trx',
  trc20: 'trx',
  eth: 'eth',
  ethereum: 'eth',
  erc20: 'eth',
  bsc: 'bsc',
  bep20: 'bsc',
  matic: 'matic',
  polygon: 'matic',
  btc: 'btc',
  bitcoin: 'btc',
  ltc: 'ltc',
  litecoin: 'ltc',
  sol: 'sol',
  solana: 'sol',
  doge: 'doge',
  dogecoin: 'doge',
};

interface TickerFacts {
  assetCode: string;
  assetName: string;
  /** The network NOWPayments must report for the ticker; another one means the table is out of date. */
  network: string;
  isStable: boolean;
  decimals: number;
  displayDecimals: number;
}

const ticker = (assetCode: string, assetName: string, network: string, isStable: boolean, decimals: number, displayDecimals: number) => ({
  assetCode,
  assetName,
  network,
  isStable,
  decimals,
  displayDecimals,
});

export const nowPaymentsTickers: Readonly<Record<string, TickerFacts>> = {
  usdttrc20: ticker('USDT', 'Tether USD', 'trx', true, 6, 2),
  usdterc20: ticker('USDT', 'Tether USD', 'eth', true, 6, 2),
  usdtbsc: ticker('USDT', 'Tether USD', 'bsc', true, 18, 2),
  usdc: ticker('USDC', 'USD Coin', 'eth', true, 6, 2),
  usdcmatic: ticker('USDC', 'USD Coin', 'matic', true, 6, 2),
  usdcsol: ticker('USDC', 'USD Coin', 'sol', true, 6, 2),
  btc: ticker('BTC', 'Bitcoin', 'btc', false, 8, 8),
  eth: ticker('ETH', 'Ether', 'eth', false, 18, 6),
  ltc: ticker('LTC', 'Litecoin', 'ltc', false, 8, 6),
  sol: ticker('SOL', 'Solana', 'sol', false, 9, 4),
  trx: ticker('TRX', 'TRON', 'trx', false, 6, 2),
  bnbbsc: ticker('BNB', 'BNB', 'bsc', false, 18, 5),
  doge: ticker('DOGE', 'Dogecoin', 'doge', false, 8, 2),
};

/** One entry of `GET /full-currencies` (the fields we read). */
export interface NowPaymentsCurrency {
  code: string;
  name?: string;
  enable?: boolean;
  network?: string;
  extra_id_exists?: boolean;
  is_stable?: boolean;
}

/** A ticker we can offer: in the table, on the network the table expects, enabled, and without a memo. */
export interface OfferedCurrency {
  code: string;
  asset: Omit<ProviderAsset, 'minimumEurCents' | 'rateEur' | 'amountUnits'>;
}

/**
 * The merchant's coins we can offer. A coin that needs a memo or destination tag (`extra_id_exists`) is left
 * out: a top-up has no field to show it, and coin sent without it cannot be matched to the payment.
 */
export function offeredCurrencies(currencies: readonly NowPaymentsCurrency[], merchantCoins: readonly string[]): OfferedCurrency[] {
  const enabled = new Set(merchantCoins.map((code) => String(code).toLowerCase()));
  const offered: OfferedCurrency[] = [];
  for (const currency of currencies) {
    const code = String(currency?.code ?? '').toLowerCase();
    const facts = nowPaymentsTickers[code];
    if (!facts || !enabled.has(code) || currency.enable === false || currency.extra_id_exists === true) continue;
    const networkCode = networkAliases[String(currency.network ?? facts.network).toLowerCase()] ?? String(currency.network).toLowerCase();
    const network = networks[networkCode];
    if (!network || networkCode !== facts.network) continue;
    offered.push({
      code,
      asset: {
        assetCode: facts.assetCode,
        assetName: facts.assetName,
        blockchainCode: network.blockchainCode,
        blockchainName: network.blockchainName,
        isEvm: network.isEvm,
        isStable: currency.is_stable === true || facts.isStable,
        decimals: facts.decimals,
        displayDecimals: facts.displayDecimals,
      },
    });
  }
  return offered;
}

/** The ticker of one of our asset rows, or undefined. */
export function tickerOf(assetCode: string, blockchainCode: string): string | undefined {
  for (const [code, facts] of Object.entries(nowPaymentsTickers)) {
    if (facts.assetCode === assetCode && networks[facts.network]?.blockchainCode === blockchainCode) return code;
  }
  return undefined;
}

/** Our asset and blockchain codes of a ticker, with its decimals, or undefined. */
export function assetOfTicker(code: string): { assetCode: string; blockchainCode: string; decimals: number } | undefined {
  const facts = nowPaymentsTickers[code.toLowerCase()];
  const network = facts ? networks[facts.network] : undefined;
  return facts && network ? { assetCode: facts.assetCode, blockchainCode: network.blockchainCode, decimals: facts.decimals } : undefined;
}

/**
 * A coin amount NOWPayments wrote as a JSON number (`0.0005`, `1e-7`) or a string, as a decimal string
 * `unitsOfDecimal` reads. JavaScript prints a number with the fewest digits that read back as the same number, so
 * nothing is invented; what the provider's own float lost is lost.
 */
export function decimalOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return String(value);
  if (typeof value === 'string' && /^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]{1,3})?$/.test(value)) return value;
  return undefined;
}

/** `decimalOf` in plain notation without trailing zeros (`1e-7` → `0.0000001`): one spelling per amount. */
export function normalizedDecimal(value: string): string {
  const match = /^([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]{1,3}))?$/.exec(value);
  if (!match) throw new RangeError(`not a non-negative decimal: ${JSON.stringify(value)}`);
  const [, whole = '0', fraction = '', exponentText = '0'] = match;
  const scale = fraction.length - Number(exponentText);
  const digits = BigInt(`${whole}${fraction}`);
  if (scale <= 0) return (digits * 10n ** BigInt(-scale)).toString();
  return formatUnits(digits, scale);
}

/** EUR cents rounded up from a EUR amount NOWPayments wrote as a number (`35.4`, `0.29`). */
export function eurCentsUp(value: unknown): number | undefined {
  const decimal = decimalOf(value);
  if (decimal === undefined) return undefined;
  const thousandths = unitsOfDecimal(decimal, 10);
  return Number((thousandths + 10n ** 8n - 1n) / 10n ** 8n);
}

/**
 * EUR per whole coin (8 decimals, rounded down) from a quote: `amountEurCents` costs `units` smallest units of a
 * coin with `decimals`. Undefined when the quote is empty.
 */
export function rateOfQuote(amountEurCents: number, units: bigint, decimals: number): string | undefined {
  if (units <= 0n) return undefined;
  const scaled = (BigInt(amountEurCents) * 10n ** BigInt(decimals + rateScaleDigits)) / (100n * units);
  if (scaled <= 0n) return undefined;
  const rate = formatUnits(scaled, rateScaleDigits);
  return rate;
}
