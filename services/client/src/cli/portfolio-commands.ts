/** The read-only portfolio commands: positions across accounts, an account's state, the stored batches. */
import type { BatchListQuery, BatchSummary, PositionsQuery } from '../types';
import { renderDetails, renderTable } from '../table';
import { numberFlag, UsageError, type CommandContext } from './context';

type Position = {
  account_id: string;
  ticket: number;
  symbol: string;
  type: string;
  volume: number;
  open_price: number;
  current_price: number;
  profit: number;
  swap: number;
  magic: number;
};

function isoFlag(text: string | undefined, flag: string): string | undefined {
  if (text === undefined) return undefined;
  const parsed = Date.parse(text);
  if (Number.isNaN(parsed)) throw new UsageError(`${flag} must be a time such as 2026-11-25T09:00:00Z`);
  return new Date(parsed).toISOString();
}

function integerFlag(text: string | undefined, flag: string): number | undefined {
  const value = numberFlag(text, flag);
  if (value !== undefined && !Number.isInteger(value)) throw new UsageError(`${flag} must be a whole number`);
  return value;
}

export async function positions({ client, flags, print }: CommandContext): Promise<number> {
  const query: PositionsQuery = {};
  if (flags.accounts && flags.accounts !== 'all') query.account_id = flags.accounts.split(',').map((id) => id.trim());
  if (flags.symbol) query.symbol = flags.symbol;
  if (flags.match) query.symbol_match = flags.match as PositionsQuery['symbol_match'];
  if (flags.side) query.side = flags.side as PositionsQuery['side'];
  if (flags.kind) query.kind = flags.kind as PositionsQuery['kind'];
  const magic = integerFlag(flags.magic, '--magic');
  if (magic !== undefined) query.magic = magic;
  const answer = await client.positions.list(query);
  print(answer, () => {
    const rows: Position[] = answer.results.flatMap((result) =>
      result.positions.map((position) => ({ ...position, account_id: result.account_id })),
    );
    const unread = answer.results
      .filter((result) => result.status !== 'ok')
      .map((result) => `${result.account_id}: ${result.status}${result.message ? ` (${result.message})` : ''}\n`)
      .join('');
    const table =
      rows.length === 0
        ? 'nothing open matches\n'
        : renderTable(
            [
              { header: 'ACCOUNT', value: (row: Position) => row.account_id },
              { header: 'TICKET', value: (row) => row.ticket },
              { header: 'SYMBOL', value: (row) => row.symbol },
              { header: 'TYPE', value: (row) => row.type },
              { header: 'VOLUME', value: (row) => row.volume },
              { header: 'OPEN', value: (row) => row.open_price },
              { header: 'NOW', value: (row) => row.current_price },
              { header: 'PROFIT', value: (row) => row.profit },
              { header: 'SWAP', value: (row) => row.swap },
              { header: 'MAGIC', value: (row) => row.magic },
            ],
            rows,
          );
    return `${table}${unread}`;
  });
  return answer.summary.unavailable + answer.summary.unknown > 0 ? 3 : 0;
}

export async function accountState({ client, print, positionalId }: CommandContext): Promise<number> {
  const state = await client.accounts.state(positionalId('account id'));
  print(state, () =>
    renderDetails([
      ['account', state.account_id],
      ['platform', state.platform],
      ['server', state.server],
      ['connected', state.connected ? 'yes' : `no (${state.reason}: ${state.message})`],
      ['currency', state.currency],
      ['leverage', state.leverage === null ? null : `1:${state.leverage}`],
      ['balance', state.balance],
      ['equity', state.equity],
      ['margin', state.margin],
      ['free margin', state.free_margin],
      ['margin level', state.margin_level === null ? null : `${state.margin_level} %`],
      ['floating profit', state.profit],
      ['server time', state.server_time],
    ]),
  );
  return state.connected ? 0 : 3;
}

export async function batches({ client, flags, print }: CommandContext): Promise<number> {
  const query: BatchListQuery = {};
  const limit = integerFlag(flags.limit, '--limit');
  if (limit !== undefined) query.limit = limit;
  if (flags.kind) query.kind = flags.kind as BatchListQuery['kind'];
  if (flags['starting-after']) query.starting_after = flags['starting-after'];
  const createdGte = isoFlag(flags['created-gte'], '--created-gte');
  if (createdGte) query.created_gte = createdGte;
  const createdLt = isoFlag(flags['created-lt'], '--created-lt');
  if (createdLt) query.created_lt = createdLt;
  let listed: BatchSummary[];
  let hasMore = false;
  if (flags.all) {
    listed = [];
    for await (const batch of client.orders.listBatches(query)) listed.push(batch);
  } else {
    const page = await client.orders.listBatches(query);
    listed = page.data;
    hasMore = page.has_more;
  }
  print(flags.all ? { data: listed, has_more: false } : { data: listed, has_more: hasMore }, () => {
    if (listed.length === 0) return 'no batches\n';
    const table = renderTable(
      [
        { header: 'BATCH', value: (batch: BatchSummary) => batch.batch_id },
        { header: 'KIND', value: (batch) => batch.kind },
        { header: 'CREATED', value: (batch) => batch.created_at },
        { header: 'SETTLED', value: (batch) => (batch.settled ? 'yes' : 'no') },
        {
          header: 'SUMMARY',
          value: (batch) =>
            Object.entries(batch.summary)
              .filter(([, count]) => count > 0)
              .map(([name, count]) => `${name} ${count}`)
              .join(', '),
        },
      ],
      listed,
    );
    return hasMore ? `${table}more: --starting-after ${listed.at(-1)!.batch_id} (or --all)\n` : table;
  });
  return 0;
}
