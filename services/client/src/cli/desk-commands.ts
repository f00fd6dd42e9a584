/** orders:modify (stops and pending orders' price and expiration, by selector) and history (deals and orders). */
import type { HistoryDeal, HistoryOrder, HistoryQuery, ModifyBatch, ModifyRequest } from '../types';
import { createProgress } from '../progress';
import { renderTable } from '../table';
import { numberFlag, readJsonFile, UsageError, type CommandContext } from './context';
import { resolveAccounts } from './batches';

function isoFlag(text: string | undefined, flag: string): string | undefined {
  if (text === undefined) return undefined;
  const parsed = Date.parse(text);
  if (Number.isNaN(parsed)) throw new UsageError(`${flag} must be a time such as 2026-11-25T09:00:00Z`);
  return new Date(parsed).toISOString();
}

export async function modifyBody({ client, settings, flags }: CommandContext): Promise<ModifyRequest> {
  if (flags.file) return readJsonFile(flags.file) as ModifyRequest;
  if (!flags.symbol) throw new UsageError('--symbol is required (a symbol, or * for every symbol)');
  const accounts = await resolveAccounts(client, settings, flags.accounts);
  if (accounts.length === 0) throw new UsageError('no accounts to modify on');
  const body: Record<string, unknown> = { symbol: flags.symbol, accounts: accounts.map((account) => ({ account_id: account.id })) };
  if (flags.match) body.symbol_match = flags.match;
  if (flags.side) body.side = flags.side;
  if (flags.kind) body.kind = flags.kind;
  const magic = numberFlag(flags.magic, '--magic');
  if (magic !== undefined) body.magic = magic;
  const change: Array<[string, number | string | undefined]> = [
    ['stop_loss', numberFlag(flags['stop-loss'], '--stop-loss')],
    ['take_profit', numberFlag(flags['take-profit'], '--take-profit')],
    ['price', numberFlag(flags.price, '--price')],
    ['expiration', isoFlag(flags.expiration, '--expiration')],
  ];
  for (const [name, value] of change) if (value !== undefined) body[name] = value;
  if (change.every(([, value]) => value === undefined))
    throw new UsageError('give at least one of --stop-loss, --take-profit, --price, --expiration (0 removes a stop)');
  return body as ModifyRequest;
}

type ModifiedTicket = ModifyBatch['results'][number]['results'][number] & { account_id: string };

export async function ordersModify(context: CommandContext): Promise<number> {
  const { client, flags, io, print } = context;
  const body = await modifyBody(context);
  const progress = createProgress(io.stderr, { label: 'modify' });
  progress.update(`modifying on ${body.accounts.length} account${body.accounts.length === 1 ? '' : 's'}`);
  let batch: ModifyBatch;
  try {
    batch = await client.orders.modify(body, { idempotencyKey: flags['idempotency-key'] });
  } catch (error) {
    progress.fail('not modified');
    throw error;
  }
  progress.succeed(
    `batch ${batch.batch_id}: ${Object.entries(batch.summary)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')}`,
  );
  print(batch, () => {
    const rows: ModifiedTicket[] = batch.results.flatMap((account) =>
      account.results.map((ticket) => ({ ...ticket, account_id: account.account_id })),
    );
    const accounts = batch.results
      .filter((account) => account.status !== 'modified' || account.message)
      .map((account) => `${account.account_id}: ${account.status}${account.message ? ` (${account.message})` : ''}\n`)
      .join('');
    const table =
      rows.length === 0
        ? ''
        : renderTable(
            [
              { header: 'ACCOUNT', value: (row: ModifiedTicket) => row.account_id },
              { header: 'TICKET', value: (row) => row.ticket },
              { header: 'SYMBOL', value: (row) => row.symbol },
              { header: 'TYPE', value: (row) => row.type },
              { header: 'STATUS', value: (row) => row.status },
              { header: 'SL', value: (row) => row.stop_loss },
              { header: 'TP', value: (row) => row.take_profit },
              { header: 'PRICE', value: (row) => row.price },
              { header: 'MESSAGE', value: (row) => row.message, maxWidth: 48 },
            ],
            rows,
          );
    return `${table}${accounts}`;
  });
  const settled = batch.results.every(
    (account) =>
      account.status !== 'unknown' && account.status !== 'unavailable' && account.results.every((ticket) => ticket.status === 'modified'),
  );
  return settled ? 0 : 3;
}

export async function history({ client, flags, print }: CommandContext): Promise<number> {
  const kind = flags.kind ?? 'deals';
  if (kind !== 'deals' && kind !== 'orders') throw new UsageError('--kind must be deals or orders');
  const query: HistoryQuery = {};
  if (flags.accounts && flags.accounts !== 'all') query.account_id = flags.accounts.split(',').map((id) => id.trim());
  if (flags.symbol) query.symbol = flags.symbol;
  const from = isoFlag(flags.from, '--from');
  const to = isoFlag(flags.to, '--to');
  if (from) query.from = from;
  if (to) query.to = to;
  const limit = numberFlag(flags.limit, '--limit');
  if (limit !== undefined) query.limit = limit;
  if (flags['starting-after']) query.starting_after = flags['starting-after'];
  const read = kind === 'deals' ? client.history.deals(query) : client.history.orders(query);
  const first = await read;
  const items: Array<HistoryDeal | HistoryOrder> = [];
  if (flags.all) for await (const item of read) items.push(item);
  else items.push(...first.data);
  const unread = first.accounts.filter((account) => account.status !== 'ok');
  print(flags.all ? { data: items, accounts: first.accounts } : first, () => {
    const rows = items as Array<HistoryDeal & HistoryOrder>;
    const table =
      rows.length === 0
        ? `no ${kind} in the range\n`
        : renderTable(
            [
              { header: 'ACCOUNT', value: (row: HistoryDeal & HistoryOrder) => row.account_id },
              { header: 'TICKET', value: (row) => row.ticket },
              { header: 'TIME', value: (row) => row.time ?? row.time_done },
              { header: 'SYMBOL', value: (row) => row.symbol },
              { header: 'TYPE', value: (row) => row.type },
              { header: kind === 'deals' ? 'ENTRY' : 'STATE', value: (row) => row.entry ?? row.state },
              { header: 'VOLUME', value: (row) => row.volume ?? row.volume_initial },
              { header: 'PRICE', value: (row) => row.price ?? row.price_open },
              ...(kind === 'deals' ? [{ header: 'PROFIT', value: (row: HistoryDeal & HistoryOrder) => row.profit }] : []),
            ],
            rows,
          );
    const more = !flags.all && first.has_more ? `more: --starting-after ${first.next_cursor}\n` : '';
    return `${table}${more}${unread.map((account) => `${account.account_id}: ${account.status} (${account.message})\n`).join('')}`;
  });
  return unread.length > 0 ? 3 : 0;
}
