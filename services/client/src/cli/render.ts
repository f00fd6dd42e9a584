import { formatEurCents, renderDetails, renderTable } from '../table';

/** Outcomes that count as success for the exit status. */
export const successfulLegStatuses = new Set(['filled', 'placed']);
export const successfulCloseStatuses = new Set(['closed', 'nothing_matched']);

export interface LegResult {
  account_id: string;
  platform?: string;
  symbol?: string;
  operation?: string;
  volume?: number;
  status: string;
  order?: number;
  price?: number;
  retcode?: number;
  retcode_description?: string;
  message?: string;
  latency_ms?: number;
}

export interface AccountCloseResult {
  account_id: string;
  platform?: string;
  status: string;
  matched?: number;
  closed?: number;
  message?: string;
  latency_ms?: number;
  results?: Array<{
    ticket: number;
    symbol?: string;
    type?: string;
    kind?: string;
    volume?: number;
    status: string;
    retcode_description?: string;
    price?: number;
  }>;
}

export function renderLegs(batch: {
  batch_id?: string;
  idempotent_replay?: boolean;
  summary?: Record<string, number>;
  results?: LegResult[];
}): string {
  const table = renderTable<LegResult>(
    [
      { header: 'ACCOUNT', value: (leg) => leg.account_id },
      { header: 'PLATFORM', value: (leg) => leg.platform },
      { header: 'SYMBOL', value: (leg) => leg.symbol },
      { header: 'OPERATION', value: (leg) => leg.operation },
      { header: 'VOLUME', value: (leg) => leg.volume, align: 'right' },
      { header: 'STATUS', value: (leg) => leg.status },
      { header: 'PRICE', value: (leg) => leg.price, align: 'right' },
      { header: 'ORDER', value: (leg) => (leg.order ? leg.order : undefined), align: 'right' },
      { header: 'RESULT', value: (leg) => leg.retcode_description },
      { header: 'MS', value: (leg) => leg.latency_ms, align: 'right' },
      { header: 'MESSAGE', value: (leg) => leg.message, maxWidth: 48 },
    ],
    batch.results ?? [],
  );
  const summary = Object.entries(batch.summary ?? {})
    .map(([name, count]) => `${name} ${count}`)
    .join(', ');
  return `batch ${batch.batch_id ?? '?'}${batch.idempotent_replay ? ' (replayed: nothing was sent again)' : ''}\n${table}${summary ? `summary: ${summary}\n` : ''}`;
}

export function renderCloses(batch: {
  batch_id?: string;
  idempotent_replay?: boolean;
  summary?: Record<string, number>;
  results?: AccountCloseResult[];
}): string {
  const accounts = renderTable<AccountCloseResult>(
    [
      { header: 'ACCOUNT', value: (account) => account.account_id },
      { header: 'PLATFORM', value: (account) => account.platform },
      { header: 'STATUS', value: (account) => account.status },
      { header: 'MATCHED', value: (account) => account.matched, align: 'right' },
      { header: 'CLOSED', value: (account) => account.closed, align: 'right' },
      { header: 'MS', value: (account) => account.latency_ms, align: 'right' },
      { header: 'MESSAGE', value: (account) => account.message, maxWidth: 48 },
    ],
    batch.results ?? [],
  );
  const tickets = (batch.results ?? []).flatMap((account) =>
    (account.results ?? []).map((ticket) => ({ account_id: account.account_id, ...ticket })),
  );
  const ticketTable = tickets.length
    ? `\n${renderTable(
        [
          { header: 'ACCOUNT', value: (ticket: (typeof tickets)[number]) => ticket.account_id },
          { header: 'TICKET', value: (ticket) => ticket.ticket, align: 'right' },
          { header: 'SYMBOL', value: (ticket) => ticket.symbol },
          { header: 'TYPE', value: (ticket) => ticket.type },
          { header: 'KIND', value: (ticket) => ticket.kind },
          { header: 'VOLUME', value: (ticket) => ticket.volume, align: 'right' },
          { header: 'STATUS', value: (ticket) => ticket.status },
          { header: 'PRICE', value: (ticket) => ticket.price, align: 'right' },
          { header: 'RESULT', value: (ticket) => ticket.retcode_description },
        ],
        tickets,
      )}`
    : '';
  const summary = Object.entries(batch.summary ?? {})
    .map(([name, count]) => `${name} ${count}`)
    .join(', ');
  return `close batch ${batch.batch_id ?? '?'}${batch.idempotent_replay ? ' (replayed: nothing was sent again)' : ''}\n${accounts}${ticketTable}${summary ? `summary: ${summary}\n` : ''}`;
}

export interface TopupView {
  id: number;
  status: string;
  amount_eur_cents: number;
  credited_eur_cents: number;
  deposit_address?: string;
  deposit_amount?: string;
  deposit_amount_decimal?: string;
  asset_code: string;
  blockchain_code: string;
  expires_at: string;
}

export function renderTopup(topup: TopupView): string {
  return renderDetails([
    ['top-up', topup.id],
    ['status', topup.status],
    ['amount', formatEurCents(topup.amount_eur_cents)],
    ['credited', formatEurCents(topup.credited_eur_cents)],
    [
      'send',
      topup.deposit_amount_decimal
        ? `${topup.deposit_amount_decimal} ${topup.asset_code} on ${topup.blockchain_code}`
        : `${topup.asset_code} on ${topup.blockchain_code}`,
    ],
    ['to address', topup.deposit_address],
    ['quote expires', topup.expires_at],
  ]);
}
