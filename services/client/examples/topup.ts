/**
 * Top up the prepaid balance with crypto, headlessly:
 *   1. ask which assets a top-up of this size can be paid in, and pick a stablecoin (its quote barely moves);
 *   2. create the top-up: a deposit address and the exact amount to send;
 *   3. pay it (here through the local crypto sandbox; in production, from the customer's wallet);
 *   4. poll the top-up until it is paid. The balance moves when the provider confirms, not on creation.
 *
 * Run against `npm start`: `npx tsx services/client/examples/topup.ts`
 * Elsewhere set MTX_BASE_URL, MTX_API_KEY and MTX_SANDBOX_URL. TOPUP_AMOUNT_EUR_CENTS sets the size (default 2500).
 */
import { MtxClient, formatEurCents, loadSettings, renderDetails } from '../src';

async function main(): Promise<void> {
  const settings = loadSettings();
  const client = new MtxClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey });
  const amountEurCents = Number(process.env.TOPUP_AMOUNT_EUR_CENTS ?? 2500);

  const before = await client.wallet.get();
  console.log(`balance before: ${formatEurCents(before.balance_eur_cents)}`);

  const assets = await client.wallet.listAssets({ amount_eur_cents: amountEurCents });
  const asset = assets.find((row) => row.is_stable) ?? assets[0];
  if (!asset) throw new Error(`no asset is offered for ${formatEurCents(amountEurCents)}`);
  console.log(`paying in ${asset.asset_name} on ${asset.blockchain_name} (${asset.amount} ${asset.asset_code})`);

  // Pass the asset row's pair back unchanged.
  const topup = await client.wallet.createTopup({
    amount_eur_cents: amountEurCents,
    asset_code: asset.asset_code,
    blockchain_code: asset.blockchain_code,
  });
  process.stdout.write(
    renderDetails([
      ['top-up', topup.id],
      ['status', topup.status],
      ['send exactly', `${topup.deposit_amount_decimal} ${topup.asset_code} on ${topup.blockchain_code}`],
      ['to', topup.deposit_address],
      ['quote expires', topup.expires_at],
    ]),
  );

  if (!settings.sandboxUrl) throw new Error('no sandbox address: set MTX_SANDBOX_URL (npm start writes it to .data/dev.json)');
  const deposit = await fetch(`${settings.sandboxUrl.replace(/\/+$/, '')}/sandbox/deposits`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // The amount in the asset's smallest unit, exactly as quoted.
    body: JSON.stringify({
      address: topup.deposit_address,
      asset_code: topup.asset_code,
      blockchain_code: topup.blockchain_code,
      amount: topup.deposit_amount,
    }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!deposit.ok) throw new Error(`the sandbox refused the deposit: ${deposit.status} ${await deposit.text()}`);
  const { transaction_id } = (await deposit.json()) as { transaction_id: string };
  console.log(`deposit sent (transaction ${transaction_id}); waiting for the provider's confirmation…`);

  const settled = await client.wallet.waitForTopup(topup.id, {
    deadlineMs: 60_000,
    intervalMs: 500,
    onUpdate: (state) =>
      console.log(`  ${state.status}: ${formatEurCents(state.credited_eur_cents)} of ${formatEurCents(state.amount_eur_cents)} credited`),
  });
  if (settled.status !== 'paid') throw new Error(`top-up ${topup.id} ended ${settled.status}`);

  const after = await client.wallet.get();
  console.log(`paid: balance ${formatEurCents(before.balance_eur_cents)} → ${formatEurCents(after.balance_eur_cents)}`);
}

main().catch((error: unknown) => {
  console.error(`top-up example failed: ${(error as { describe?: () => string }).describe?.() ?? (error as Error).message}`);
  process.exitCode = 1;
});
