/**
 * Every deal of the last day on every account, newest first: `history.deals` answers one page, and iterating
 * it with `for await` fetches the next pages (each asked with the previous page's cursor) as the loop reaches
 * them. Paging neither skips nor repeats a deal, even while the accounts trade.
 *
 * Run against `npm start`: `npx tsx services/client/examples/history.ts`
 * Elsewhere set MTX_BASE_URL and MTX_API_KEY (a read-only key is enough). EXAMPLE_HOURS (default 24) sets how
 * far back; EXAMPLE_PAGE (default 10) the page size.
 */
import { MtxClient, loadSettings } from '../src';

async function main(): Promise<void> {
  const settings = loadSettings();
  const client = new MtxClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey });
  const hours = Number(process.env.EXAMPLE_HOURS ?? 24);
  const query = { from: new Date(Date.now() - hours * 3_600_000).toISOString(), limit: Number(process.env.EXAMPLE_PAGE ?? 10) };

  const first = await client.history.deals(query);
  for (const account of first.accounts)
    if (account.status !== 'ok') console.log(`${account.account_id}: ${account.status} (${account.message})`);
  let count = 0;
  const profit = new Map<string, number>();
  for await (const deal of client.history.deals(query)) {
    count += 1;
    profit.set(deal.account_id, (profit.get(deal.account_id) ?? 0) + deal.profit + deal.swap + deal.commission);
    console.log(
      `${deal.time}  ${deal.account_id}  ${deal.platform}  #${deal.ticket}  ${deal.type.padEnd(4)} ${deal.entry.padEnd(3)}  ${deal.volume} ${deal.symbol} @ ${deal.price}  profit ${deal.profit}`,
    );
  }
  console.log(`${count} deal(s) in the last ${hours} h`);
  for (const [account, total] of profit) console.log(`${account}: result ${total.toFixed(2)}`);
}

main().catch((error: unknown) => {
  console.error(`history example failed: ${(error as { describe?: () => string }).describe?.() ?? (error as Error).message}`);
  process.exitCode = 1;
});
