/**
 * Close by selector instead of by ticket: every open EURUSD position, whatever the broker calls the
 * symbol (`symbol_match: base` accepts EURUSD.xx, EURUSDm, EURUSD-ecn, but never a longer name such as
 * EURUSDPRO), on every account, in one request. The service looks each account up once and closes each
 * match; an account with nothing open reports `nothing_matched`.
 *
 * Run against `npm start`: `npx tsx services/client/examples/close-by-selector.ts`
 * Elsewhere set MTX_BASE_URL, MTX_API_KEY and MTX_ACCOUNTS. EXAMPLE_SYMBOL (default EURUSD) picks the symbol.
 */
import { MtxClient, loadSettings, renderTable } from '../src';

async function main(): Promise<void> {
  const settings = loadSettings();
  const client = new MtxClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey });
  const symbol = process.env.EXAMPLE_SYMBOL ?? 'EURUSD';
  if (settings.accounts.length === 0) throw new Error('no accounts: set MTX_ACCOUNTS or run `npm start`');

  const batch = await client.orders.close({
    defaults: { symbol, symbol_match: 'base', kind: 'position', side: 'any' },
    accounts: settings.accounts.map((account) => ({ account_id: account.id })),
  });

  console.log(`close batch ${batch.batch_id}`);
  process.stdout.write(
    renderTable(
      [
        { header: 'ACCOUNT', value: (account: (typeof batch.results)[number]) => account.account_id },
        { header: 'PLATFORM', value: (account) => account.platform },
        { header: 'STATUS', value: (account) => account.status },
        { header: 'MATCHED', value: (account) => account.matched, align: 'right' },
        { header: 'CLOSED', value: (account) => account.closed, align: 'right' },
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
  const failed = batch.results.filter((account) => account.status !== 'closed' && account.status !== 'nothing_matched');
  if (failed.length > 0) throw new Error(`${failed.length} of ${batch.results.length} accounts did not close cleanly`);
}

main().catch((error: unknown) => {
  console.error(`close example failed: ${(error as { describe?: () => string }).describe?.() ?? (error as Error).message}`);
  process.exitCode = 1;
});
