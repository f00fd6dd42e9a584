/**
 * Place one batch across MT4 and MT5 accounts of different brokers. Each leg names its own symbol,
 * because brokers add suffixes (EURUSD, EURUSD.xx, EURUSDm, EURUSD-ecn); the shared fields sit in
 * `defaults`. The client adds an Idempotency-Key, so a retry can never open a position twice.
 *
 * Run against `npm start`: `npx tsx services/client/examples/place-batch.ts`
 * Elsewhere set MTX_BASE_URL, MTX_API_KEY and MTX_ACCOUNTS (a JSON array of {id, platform, symbol_suffix}).
 * EXAMPLE_SYMBOL (default EURUSD) and EXAMPLE_VOLUME (default 0.1 lots) change the order.
 */
import { MtxClient, loadSettings, renderTable, type AccountInfo } from '../src';

async function main(): Promise<void> {
  const settings = loadSettings();
  const client = new MtxClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey });
  const symbol = process.env.EXAMPLE_SYMBOL ?? 'EURUSD';
  // 0.1 lots is valid everywhere, including brokers whose minimum or step is 0.1.
  const volume = Number(process.env.EXAMPLE_VOLUME ?? 0.1);

  const accounts: AccountInfo[] = settings.accounts.filter((account) => account.symbol_suffix !== undefined);
  const platforms = new Set(accounts.map((account) => account.platform));
  if (!platforms.has('mt4') || !platforms.has('mt5'))
    throw new Error('this example needs at least one MT4 and one MT5 account with a known symbol suffix');

  const batch = await client.orders.place({
    defaults: { operation: 'buy', volume, comment: 'example batch' },
    orders: accounts.map((account) => ({ account_id: account.id, symbol: `${symbol}${account.symbol_suffix}` })),
  });

  console.log(`batch ${batch.batch_id}`);
  process.stdout.write(
    renderTable(
      [
        { header: 'ACCOUNT', value: (leg: (typeof batch.results)[number]) => leg.account_id },
        { header: 'PLATFORM', value: (leg) => leg.platform },
        { header: 'SYMBOL', value: (leg) => leg.symbol },
        { header: 'STATUS', value: (leg) => leg.status },
        { header: 'PRICE', value: (leg) => leg.price, align: 'right' },
        { header: 'DEAL', value: (leg) => leg.deal, align: 'right' },
        { header: 'RESULT', value: (leg) => leg.retcode_description },
        { header: 'MS', value: (leg) => leg.latency_ms, align: 'right' },
        { header: 'MESSAGE', value: (leg) => leg.message, maxWidth: 40 },
      ],
      batch.results,
    ),
  );
  console.log(`summary: ${JSON.stringify(batch.summary)}`);
  // Per-leg failures are not HTTP errors: they come back in the 200 with their own status.
  const failed = batch.results.filter((leg) => leg.status !== 'filled');
  if (failed.length > 0) throw new Error(`${failed.length} of ${batch.results.length} legs were not filled`);
}

main().catch((error: unknown) => {
  console.error(`batch example failed: ${(error as { describe?: () => string }).describe?.() ?? (error as Error).message}`);
  process.exitCode = 1;
});
