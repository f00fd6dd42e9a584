const euro = new Intl.NumberFormat('en-IE', { style: 'currency', currency: 'EUR' });

export function formatEurCents(cents: number): string {
  return euro.format(cents / 100);
}

/** Parses what a person types as euros ("25", "25.5", "25,50") into cents, or undefined. */
export function parseEurToCents(text: string): number | undefined {
  const normalised = text.trim().replace(',', '.');
  if (!/^\d{1,6}(\.\d{1,2})?$/.test(normalised)) return undefined;
  return Math.round(Number(normalised) * 100);
}

export function formatNumber(value: number | null | undefined, digits = 2): string {
  return value === undefined || value === null ? '—' : value.toFixed(digits);
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().slice(0, 16).replace('T', ' ');
}
