/**
 * Each account's balance, equity, margin and free margin as its terminal reads them now (equity moves with
 * prices), with a margin-level warning below a threshold.
 *
 * Run against `npm start`: `npx tsx services/client/examples/account-state.ts`
 * Elsewhere set MTX_BASE_URL and MTX_API_KEY (a read-only key is enough). EXAMPLE_MARGIN_LEVEL_WARN (default
 * 200, in percent) sets the warning.
 */
import { MtxClient, loadSettings, renderTable } from '../src';

async function main(): Promise<void> {
  const settings = loadSettings();
  const client = new MtxClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey });
  const warnBelow = Number(process.env.EXAMPLE_MARGIN_LEVEL_WARN ?? 200);

  const { accounts } = await client.accounts.list();
  const states = await Promise.all(accounts.map((account) => client.accounts.state(account.id)));
  process.stdout.write(
    renderTable(
      [
        { header: 'ACCOUNT', value: (state: (typeof states)[number]) => state.account_id },
        { header: 'SERVER', value: (state) => state.server },
        { header: 'CONNECTED', value: (state) => (state.connected ? 'yes' : `no: ${state.reason}`) },
        { header: 'BALANCE', value: (state) => state.balance },
        { header: 'EQUITY', value: (state) => state.equity },
        { header: 'MARGIN', value: (state) => state.margin },
        { header: 'FREE', value: (state) => state.free_margin },
        { header: 'LEVEL %', value: (state) => state.margin_level },
        { header: 'CURRENCY', value: (state) => state.currency },
      ],
      states,
    ),
  );
  const low = states.filter((state) => state.margin_level !== null && state.margin_level < warnBelow);
  for (const state of low) console.log(`warning: ${state.account_id} margin level ${state.margin_level} % is below ${warnBelow} %`);
  const disconnected = states.filter((state) => !state.connected);
  if (disconnected.length > 0) {
    console.log(`${disconnected.length} account(s) not connected`);
    process.exitCode = 3;
  }
}

main().catch((error: unknown) => {
  console.error(`account state example failed: ${(error as { describe?: () => string }).describe?.() ?? (error as Error).message}`);
  process.exitCode = 1;
});
