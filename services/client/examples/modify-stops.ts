/**
 * Move the stops of every open long EURUSD position on every account in one request: the selector is a
 * close's (`symbol_match: base` takes EURUSD.xx, EURUSDm, EURUSD-ecn too), the change is a stop loss and a take
 * profit around the current price. A field left out stays as it is; 0 would remove a stop.
 *
 * Run against `npm start`: `npx tsx services/client/examples/modify-stops.ts`
 * Elsewhere set MTX_BASE_URL, MTX_API_KEY and MTX_ACCOUNTS. EXAMPLE_SYMBOL (default EURUSD) picks the symbol.
 */
import { MtxClient, loadSettings, renderTable } from '../src';

async function main(): Promise<void> {
  const settings = loadSettings();
  const client = new MtxClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey });
  const symbol = process.env.EXAMPLE_SYMBOL ?? 'EURUSD';
  if (settings.accounts.length === 0) throw new Error('no accounts: set MTX_ACCOUNTS or run `npm start`');
  const selector = { symbol, symbol_match: 'base' as const, side: 'long' as const };

  // The stops are placed around the price a long position closes at now (the bid).
  const open = await client.positions.list(selector);
  const first = open.results.flatMap((account) => account.positions)[0];
  if (!first) throw new Error(`no open long ${symbol} position: run place-batch.ts first`);
  const distance = Number((first.current_price * 0.01).toFixed(5));
  const change = {
    stop_loss: Number((first.current_price - distance).toFixed(5)),
    take_profit: Number((first.current_price + distance).toFixed(5)),
  };

  const batch = await client.orders.modify({
    ...selector,
    ...change,
    accounts: settings.accounts.map((account) => ({ account_id: account.id })),
  });

  console.log(`modify batch ${batch.batch_id}: stop loss ${change.stop_loss}, take profit ${change.take_profit}`);
  process.stdout.write(
    renderTable(
      [
        { header: 'ACCOUNT', value: (account: (typeof batch.results)[number]) => account.account_id },
        { header: 'PLATFORM', value: (account) => account.platform },
        { header: 'STATUS', value: (account) => account.status },
        { header: 'MATCHED', value: (account) => account.matched, align: 'right' },
        { header: 'MODIFIED', value: (account) => account.modified, align: 'right' },
        {
          header: 'TICKETS',
          value: (account) => account.results.map((ticket) => `${ticket.ticket} ${ticket.symbol} ${ticket.status}`).join(', '),
          maxWidth: 60,
        },
      ],
      batch.results,
    ),
  );
  console.log(`summary: ${JSON.stringify(batch.summary)}`);
  if (batch.summary.modified !== batch.summary.matched)
    throw new Error(`${batch.summary.matched - batch.summary.modified} ticket(s) not modified`);
}

main().catch((error: unknown) => {
  console.error(`modify example failed: ${(error as { describe?: () => string }).describe?.() ?? (error as Error).message}`);
  process.exitCode = 1;
});
