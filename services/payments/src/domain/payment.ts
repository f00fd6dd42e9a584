import { eurCentsForUnits, quotedEurCents } from './money';

export interface PaymentProgress {
  creditedEurCents: number;
  quotedUnits: bigint;
  quotedEurCents: number;
}

export interface PlannedPayment {
  rate: 'quoted' | 'market';
  eurCents: number;
  creditedAfterEurCents: number;
  quotedUnitsAfter: bigint;
  quotedEurCentsAfter: number;
}

/** Whether a payment came after its quote window: the provider's word where it gives one, else the times. */
export function isAfterQuote(input: { receivedAt: Date; expiresAt: Date; afterExpiration?: boolean }): boolean {
  return input.afterExpiration ?? input.receivedAt.getTime() >= input.expiresAt.getTime();
}

/**
 * What one confirmed payment is worth (docs/architecture.md, "Money in"): coin that reached the address inside the quote window is
 * credited at the quoted rate, anything later at the market rate of the moment it is processed. Quoted credits
 * are computed on the running total, rounded down, so two halves credit exactly what one full payment would,
 * an under-payment credits only what arrived and an over-payment credits the extra.
 */
export function planPayment(input: {
  quoteEurCents: number;
  quoteUnits: bigint;
  expiresAt: Date;
  decimals: number;
  progress: PaymentProgress;
  units: bigint;
  receivedAt: Date;
  /** The provider's own word on whether the coin came after its quote ended; decides over `receivedAt` when set. */
  afterExpiration?: boolean;
  marketRateEur?: string;
}): PlannedPayment {
  const { progress } = input;
  if (!isAfterQuote(input)) {
    const quotedUnitsAfter = progress.quotedUnits + input.units;
    const quotedEurCentsAfter = quotedEurCents(quotedUnitsAfter, input.quoteEurCents, input.quoteUnits);
    const eurCents = quotedEurCentsAfter - progress.quotedEurCents;
    return { rate: 'quoted', eurCents, creditedAfterEurCents: progress.creditedEurCents + eurCents, quotedUnitsAfter, quotedEurCentsAfter };
  }
  if (input.marketRateEur === undefined) throw new Error('a payment after the quote window needs the market rate');
  const eurCents = eurCentsForUnits(input.units, input.marketRateEur, input.decimals);
  return {
    rate: 'market',
    eurCents,
    creditedAfterEurCents: progress.creditedEurCents + eurCents,
    quotedUnitsAfter: progress.quotedUnits,
    quotedEurCentsAfter: progress.quotedEurCents,
  };
}
