/** The next 30 days of charges against the balance, as steps a chart can draw. Pure: the clock is passed in. */
export interface Charge {
  when: string;
  amount_eur_cents: number;
  label: string;
}

export interface ForecastStep {
  atMs: number;
  chargeEurCents: number;
  label: string;
  /** What the balance is after this charge (negative once it no longer covers them). */
  remainingEurCents: number;
}

export interface Forecast {
  startMs: number;
  endMs: number;
  balanceEurCents: number;
  steps: ForecastStep[];
  totalEurCents: number;
  /** The first charge the balance does not cover, if any. */
  firstShortfall?: ForecastStep;
}

export const forecastDays = 30;
const dayMs = 86_400_000;

export function forecastCharges(balanceEurCents: number, charges: readonly Charge[], nowMs: number): Forecast {
  const endMs = nowMs + forecastDays * dayMs;
  const sorted = charges
    .map((charge) => ({ ...charge, atMs: Math.max(nowMs, Date.parse(charge.when)) }))
    .filter((charge) => Number.isFinite(charge.atMs) && charge.atMs <= endMs)
    .sort((left, right) => left.atMs - right.atMs);
  let remaining = balanceEurCents;
  const steps = sorted.map((charge) => {
    remaining -= charge.amount_eur_cents;
    return { atMs: charge.atMs, chargeEurCents: charge.amount_eur_cents, label: charge.label, remainingEurCents: remaining };
  });
  return {
    startMs: nowMs,
    endMs,
    balanceEurCents,
    steps,
    totalEurCents: balanceEurCents - remaining,
    firstShortfall: steps.find((step) => step.remainingEurCents < 0),
  };
}
