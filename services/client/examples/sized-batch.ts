/**
 * Trade one plain name on every account, sized by equity and checked for margin before anything is sent. Each
 * account's settings map the name to its broker's symbol and cap the volume of one order; the batch then gives
 * `symbol_match: "base"`, so every leg trades its account's own symbol (EURUSD, EURUSD.xx, EURUSDm, EURUSD-ecn),
 * `sizing` instead of a volume, and `check_margin`. The table shows the symbol each leg used, the volume sent and
 * the equity it was computed from.
 *
 * Run against `npm start`: `npx tsx services/client/examples/sized-batch.ts`
 * Elsewhere set MTX_BASE_URL and MTX_API_KEY (a full key: it changes settings). EXAMPLE_SYMBOL (default EURUSD),
 * EXAMPLE_LOTS_PER_1000 (default 0.01: 0.1 lots on 10,000 of equity) and EXAMPLE_MAX_VOLUME (default 1 lot).
 */
import { MtxClient, loadSettings, renderTable } from '../src';

async function main(): Promise<void> {
  const settings = loadSettings();
  const client = new MtxClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey });
  const symbol = process.env.EXAMPLE_SYMBOL ?? 'EURUSD';
  const lotsPer1000 = Number(process.env.EXAMPLE_LOTS_PER_1000 ?? 0.01);
  const maxVolume = Number(process.env.EXAMPLE_MAX_VOLUME ?? 1);

  const { accounts } = await client.accounts.list();
  if (accounts.length === 0) throw new Error('this example needs at least one connected account');
  // Some brokers list several classes of one symbol (EURUSD and EURUSD.xx): the map says which this account trades.
  for (const account of accounts)
    await client.accounts.settings.update(account.id, {
      symbol_map: { [symbol]: `${symbol}${account.symbol_suffix}` },
      max_volume_per_order: maxVolume,
    });

  const batch = await client.orders.place({
    defaults: {
      symbol,
      symbol_match: 'base',
      operation: 'buy',
      sizing: { mode: 'equity', lots_per_1000: lotsPer1000 },
      check_margin: true,
      comment: 'sized example',
    },
    orders: accounts.map((account) => ({ account_id: account.id })),
  });

  console.log(`batch ${batch.batch_id}`);
  process.stdout.write(
    renderTable(
      [
        { header: 'ACCOUNT', value: (leg: (typeof batch.results)[number]) => leg.account_id },
        { header: 'SYMBOL', value: (leg) => leg.symbol },
        { header: 'STATUS', value: (leg) => leg.status },
        { header: 'VOLUME', value: (leg) => leg.volume, align: 'right' },
        { header: 'EQUITY', value: (leg) => leg.sizing?.equity, align: 'right' },
        { header: 'COMPUTED', value: (leg) => leg.sizing?.computed_volume, align: 'right' },
        { header: 'RESULT', value: (leg) => leg.retcode_description },
        { header: 'MESSAGE', value: (leg) => leg.message, maxWidth: 60 },
      ],
      batch.results,
    ),
  );
  const failed = batch.results.filter((leg) => leg.status !== 'filled' && leg.status !== 'placed');
  if (failed.length > 0) process.exitCode = 3;
}

main().catch((error: unknown) => {
  console.error(`sized batch example failed: ${(error as { describe?: () => string }).describe?.() ?? (error as Error).message}`);
  process.exitCode = 1;
});
