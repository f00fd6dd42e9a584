/**
 * The brokers and trade servers broker-sim simulates. Each server names its symbols with the broker's own
 * suffix (none, `.xx`, `m`, `-ecn`), has its own volume limits and stops levels, and one MT5 server also
 * lists several account-class variants of EURUSD, as real brokers do (EURUSD, EURUSD.xx, EURUSD-ecn,
 * EURUSDm, EURUSDPRO), so selector matching can be exercised against one account.
 */
export type Platform = 'mt4' | 'mt5';
export type MarginMode = 'hedging' | 'netting';

/** An instrument as the market quotes it, independent of any broker's naming. */
export interface Instrument {
  base: string;
  digits: number;
  contractSize: number;
  /** Price the feed starts from. */
  initialBid: number;
  /** Per-tick relative volatility of the random walk. */
  volatility: number;
  /** The account currency (USD) is the instrument's base currency (USDJPY), so notional needs no price. */
  baseIsAccountCurrency: boolean;
  /** The quote currency is not the account currency: profit is converted at the close price. */
  quoteIsAccountCurrency: boolean;
  /** Swap of one lot held over one daily rollover (00:00 UTC), in the account currency: long and short. */
  swapLongPerLot: number;
  swapShortPerLot: number;
}

export const instruments: Record<string, Instrument> = {
  EURUSD: {
    base: 'EURUSD',
    digits: 5,
    contractSize: 100_000,
    initialBid: 1.085,
    volatility: 0.00004,
    baseIsAccountCurrency: false,
    quoteIsAccountCurrency: true,
    swapLongPerLot: -7.2,
    swapShortPerLot: 2.1,
  },
  GBPUSD: {
    base: 'GBPUSD',
    digits: 5,
    contractSize: 100_000,
    initialBid: 1.27,
    volatility: 0.00005,
    baseIsAccountCurrency: false,
    quoteIsAccountCurrency: true,
    swapLongPerLot: -4.9,
    swapShortPerLot: 0.8,
  },
  USDJPY: {
    base: 'USDJPY',
    digits: 3,
    contractSize: 100_000,
    initialBid: 151.2,
    volatility: 0.00004,
    baseIsAccountCurrency: true,
    quoteIsAccountCurrency: false,
    swapLongPerLot: 13.6,
    swapShortPerLot: -27.4,
  },
  XAUUSD: {
    base: 'XAUUSD',
    digits: 2,
    contractSize: 100,
    initialBid: 2350,
    volatility: 0.00008,
    baseIsAccountCurrency: false,
    quoteIsAccountCurrency: true,
    swapLongPerLot: -38.5,
    swapShortPerLot: 17.2,
  },
  BTCUSD: {
    base: 'BTCUSD',
    digits: 2,
    contractSize: 1,
    initialBid: 65_000,
    volatility: 0.0002,
    baseIsAccountCurrency: false,
    quoteIsAccountCurrency: true,
    swapLongPerLot: -19.5,
    swapShortPerLot: -12,
  },
};

export interface SymbolSpec {
  name: string;
  instrument: Instrument;
  point: number;
  spreadPoints: number;
  volumeMin: number;
  volumeMax: number;
  volumeStep: number;
  stopsLevel: number;
}

export interface ServerDefinition {
  name: string;
  broker: string;
  platform: Platform;
  symbolSuffix: string;
  defaultMarginMode: MarginMode;
  defaultBalance: number;
  defaultLeverage: number;
  symbols: Map<string, SymbolSpec>;
}

interface SymbolOverrides {
  volumeMin?: number;
  volumeMax?: number;
  volumeStep?: number;
  stopsLevel?: number;
  spreadPoints?: number;
}

function symbol(instrument: Instrument, name: string, overrides: SymbolOverrides = {}): SymbolSpec {
  const point = 10 ** -instrument.digits;
  return {
    name,
    instrument,
    point,
    spreadPoints: overrides.spreadPoints ?? (instrument.digits >= 3 ? 12 : 30),
    volumeMin: overrides.volumeMin ?? 0.01,
    volumeMax: overrides.volumeMax ?? 100,
    volumeStep: overrides.volumeStep ?? 0.01,
    stopsLevel: overrides.stopsLevel ?? 10,
  };
}

function server(definition: Omit<ServerDefinition, 'symbols'>, specs: SymbolSpec[]): ServerDefinition {
  return { ...definition, symbols: new Map(specs.map((spec) => [spec.name.toLowerCase(), spec])) };
}

function standardSet(suffix: string, overrides: SymbolOverrides = {}): SymbolSpec[] {
  return Object.values(instruments).map((instrument) => symbol(instrument, `${instrument.base}${suffix}`, overrides));
}

export const servers: ServerDefinition[] = [
  server(
    {
      name: 'AlphaFX-Live',
      broker: 'Alpha FX',
      platform: 'mt5',
      symbolSuffix: '',
      defaultMarginMode: 'hedging',
      defaultBalance: 10_000,
      defaultLeverage: 100,
    },
    [
      ...standardSet(''),
      // Account-class variants listed next to the plain symbols, as some brokers do.
      symbol(instruments.EURUSD!, 'EURUSD.xx'),
      symbol(instruments.EURUSD!, 'EURUSD-ecn', { volumeStep: 0.1, volumeMin: 0.1 }),
      symbol(instruments.EURUSD!, 'EURUSDm'),
      symbol(instruments.EURUSD!, 'EURUSDPRO', { spreadPoints: 2 }),
      symbol(instruments.GBPUSD!, 'GBPUSD.xx'),
    ],
  ),
  server(
    {
      name: 'BetaMarkets-Server',
      broker: 'Beta Markets',
      platform: 'mt5',
      symbolSuffix: '.xx',
      defaultMarginMode: 'netting',
      defaultBalance: 10_000,
      defaultLeverage: 100,
    },
    standardSet('.xx', { volumeStep: 0.01, stopsLevel: 20 }),
  ),
  server(
    {
      name: 'GammaTrade-Real',
      broker: 'Gamma Trade',
      platform: 'mt4',
      symbolSuffix: 'm',
      defaultMarginMode: 'hedging',
      defaultBalance: 10_000,
      defaultLeverage: 100,
    },
    standardSet('m', { volumeMax: 50 }),
  ),
  server(
    {
      name: 'DeltaPrime-ECN',
      broker: 'Delta Prime',
      platform: 'mt4',
      symbolSuffix: '-ecn',
      defaultMarginMode: 'hedging',
      defaultBalance: 10_000,
      defaultLeverage: 200,
    },
    standardSet('-ecn', { volumeMin: 0.1, volumeStep: 0.1, stopsLevel: 0, spreadPoints: 3 }),
  ),
  server(
    {
      name: 'OmegaCapital-Demo',
      broker: 'Omega Capital',
      platform: 'mt4',
      symbolSuffix: '',
      defaultMarginMode: 'hedging',
      defaultBalance: 10_000,
      defaultLeverage: 100,
    },
    standardSet(''),
  ),
];

const serversByName = new Map(servers.map((definition) => [definition.name.toLowerCase(), definition]));

export function findServer(name: string): ServerDefinition | undefined {
  return serversByName.get(name.toLowerCase());
}

export function findSymbol(definition: ServerDefinition, name: string): SymbolSpec | undefined {
  return definition.symbols.get(name.toLowerCase());
}
