/** The account and trading commands. */
import { batchIsSettled } from '../client';
import { createProgress } from '../progress';
import { renderTable } from '../table';
import { timeoutMs, type CommandContext } from './context';
import { accountsFrom, closeBody, placeBody, type ListedAccount } from './batches';
import {
  type AccountCloseResult,
  type LegResult,
  renderCloses,
  renderLegs,
  successfulCloseStatuses,
  successfulLegStatuses,
} from './render';

export async function accounts({ client, print }: CommandContext): Promise<number> {
  const listing = await client.accounts.list();
  print(listing, () => {
    const accounts = accountsFrom(listing);
    if (accounts.length === 0) return 'no accounts\n';
    return renderTable(
      [
        { header: 'ACCOUNT', value: (account: ListedAccount) => account.id },
        { header: 'PLATFORM', value: (account) => account.platform },
        { header: 'SERVER', value: (account) => account.server },
        { header: 'LOGIN', value: (account) => account.login },
        { header: 'SUFFIX', value: (account) => account.symbol_suffix },
        { header: 'LABEL', value: (account) => account.label, maxWidth: 32 },
        { header: 'STATUS', value: (account) => account.status },
      ],
      accounts,
    );
  });
  return 0;
}

export async function ordersPlace({ client, settings, flags, io, print }: CommandContext): Promise<number> {
  const body = await placeBody(client, settings, flags);
  const legs = (body as { orders?: unknown[] }).orders?.length ?? 0;
  const progress = createProgress(io.stderr, { label: 'orders' });
  progress.update(`placing ${legs} leg${legs === 1 ? '' : 's'}`);
  let batch: { batch_id: string; summary?: Record<string, number>; results?: LegResult[] };
  try {
    batch = (await client.orders.place(body, { idempotencyKey: flags['idempotency-key'] })) as typeof batch;
  } catch (error) {
    progress.fail('not placed');
    throw error;
  }
  progress.succeed(
    `batch ${batch.batch_id}: ${Object.entries(batch.summary ?? {})
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')}`,
  );
  print(batch, () => renderLegs(batch));
  return (batch.results ?? []).every((leg) => successfulLegStatuses.has(leg.status)) ? 0 : 3;
}

export async function ordersClose({ client, settings, flags, io, print }: CommandContext): Promise<number> {
  const body = await closeBody(client, settings, flags);
  const accounts = (body as { accounts?: unknown[] }).accounts?.length ?? 0;
  const progress = createProgress(io.stderr, { label: 'close' });
  progress.update(`closing on ${accounts} account${accounts === 1 ? '' : 's'}`);
  let batch: { batch_id: string; summary?: Record<string, number>; results?: AccountCloseResult[] };
  try {
    batch = (await client.orders.close(body, { idempotencyKey: flags['idempotency-key'] })) as typeof batch;
  } catch (error) {
    progress.fail('not closed');
    throw error;
  }
  progress.succeed(
    `batch ${batch.batch_id}: ${Object.entries(batch.summary ?? {})
      .map(([name, count]) => `${name} ${count}`)
      .join(', ')}`,
  );
  print(batch, () => renderCloses(batch));
  return (batch.results ?? []).every((account) => successfulCloseStatuses.has(account.status)) ? 0 : 3;
}

export async function batchShow({ client, flags, io, print, positionalId }: CommandContext): Promise<number> {
  const batchId = positionalId('batch id');
  let batch: unknown;
  if (flags.wait) {
    const progress = createProgress(io.stderr, { label: `batch ${batchId}` });
    try {
      batch = await client.orders.waitForBatch(batchId, {
        deadlineMs: timeoutMs(flags),
        onUpdate: (state) => {
          const unknown = ((state as unknown as { results?: Array<{ status?: string }> }).results ?? []).filter(
            (result) => result.status === 'unknown',
          ).length;
          progress.update(
            batchIsSettled(state)
              ? 'settled'
              : unknown
                ? `${unknown} outcome${unknown === 1 ? '' : 's'} still unknown`
                : 'waiting for late replies',
          );
        },
      });
      progress.succeed('every outcome known');
    } catch (error) {
      progress.fail((error as Error).message);
      throw error;
    }
  } else {
    batch = await client.orders.getBatch(batchId);
  }
  const isClose = (batch as { kind?: string }).kind === 'close';
  print(batch, () =>
    isClose ? renderCloses(batch as Parameters<typeof renderCloses>[0]) : renderLegs(batch as Parameters<typeof renderLegs>[0]),
  );
  return 0;
}
