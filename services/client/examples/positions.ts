/**
 * What is open across every account, in one call: the positions a close with the same selector would take,
 * each valued at the trade server's current price, with profit and swap. An account whose terminal cannot be
 * read comes back `unavailable` or `unknown` without failing the others.
 *
 * Run against `npm start`: `npx tsx services/client/examples/positions.ts`
 * Elsewhere set MTX_BASE_URL and MTX_API_KEY (a read-only `rk_` key is enough). EXAMPLE_SYMBOL (default `*`,
 * every symbol) narrows it, matched by base symbol so EURUSD also finds EURUSD.xx and EURUSDm.
 */
import { MtxClient, loadSettings, renderTable } from '../src';

async function main(): Promise<void> {
  const settings = loadSettings();
  const client = new MtxClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey });
  const symbol = process.env.EXAMPLE_SYMBOL ?? '*';

  const answer = await client.positions.list({ symbol, symbol_match: 'base', kind: 'any' });
  const rows = answer.results.flatMap((account) => account.positions.map((position) => ({ account_id: account.account_id, ...position })));
  process.stdout.write(
    renderTable(
      [
        { header: 'ACCOUNT', value: (row: (typeof rows)[number]) => row.account_id },
        { header: 'TICKET', value: (row) => row.ticket },
        { header: 'SYMBOL', value: (row) => row.symbol },
        { header: 'TYPE', value: (row) => row.type },
        { header: 'VOLUME', value: (row) => row.volume },
        { header: 'NOW', value: (row) => row.current_price },
        { header: 'PROFIT', value: (row) => row.profit },
        { header: 'SWAP', value: (row) => row.swap },
      ],
      rows,
    ),
  );
  const profit = rows.reduce((sum, row) => sum + row.profit + row.swap, 0);
  console.log(`${answer.summary.positions} open on ${answer.summary.accounts} accounts, floating ${profit.toFixed(2)}`);
  for (const account of answer.results.filter((result) => result.status !== 'ok'))
    console.log(`${account.account_id}: ${account.status} (${account.message})`);
  if (answer.summary.unavailable + answer.summary.unknown > 0) process.exitCode = 3;
}

main().catch((error: unknown) => {
  console.error(`positions example failed: ${(error as { describe?: () => string }).describe?.() ?? (error as Error).message}`);
  process.exitCode = 1;
});
