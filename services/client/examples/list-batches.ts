/**
 * Every batch of the last day, newest first: `listBatches` answers one page, and iterating it with
 * `for await` fetches the next pages as the loop reaches them (stop early with `break`).
 *
 * Run against `npm start`: `npx tsx services/client/examples/list-batches.ts`
 * Elsewhere set MTX_BASE_URL and MTX_API_KEY (a read-only key is enough). EXAMPLE_KIND (orders or close) keeps
 * one kind; EXAMPLE_HOURS (default 24) sets how far back.
 */
import { MtxClient, loadSettings } from '../src';

async function main(): Promise<void> {
  const settings = loadSettings();
  const client = new MtxClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey });
  const hours = Number(process.env.EXAMPLE_HOURS ?? 24);
  const kind = process.env.EXAMPLE_KIND as 'orders' | 'close' | undefined;

  let count = 0;
  const unsettled: string[] = [];
  for await (const batch of client.orders.listBatches({
    limit: 25,
    created_gte: new Date(Date.now() - hours * 3_600_000).toISOString(),
    ...(kind ? { kind } : {}),
  })) {
    count += 1;
    const figures = Object.entries(batch.summary)
      .filter(([, value]) => value > 0)
      .map(([name, value]) => `${name} ${value}`)
      .join(', ');
    console.log(`${batch.batch_id}  ${batch.kind.padEnd(6)}  ${batch.created_at}  ${batch.settled ? 'settled' : 'unsettled'}  ${figures}`);
    if (!batch.settled) unsettled.push(batch.batch_id);
  }
  console.log(`${count} batch(es) in the last ${hours} h; ${unsettled.length} still being reconciled`);
}

main().catch((error: unknown) => {
  console.error(`list batches example failed: ${(error as { describe?: () => string }).describe?.() ?? (error as Error).message}`);
  process.exitCode = 1;
});
