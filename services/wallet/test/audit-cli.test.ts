import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { repositoryRoot } from '@mtx/shared/infra/paths';
import { databaseName, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { createLedgerStore } from '../src/store/ledger-store';
import { connectTestMongo, startWalletReplica, type WalletReplica } from './helpers';

const run = promisify(execFile);
let mongo: MongoClient;
let prefix: string;
let replica: WalletReplica;

beforeAll(async () => {
  mongo = await connectTestMongo();
  prefix = testDatabasePrefix('walletcli');
  replica = await startWalletReplica({ mongo, prefix });
});

afterAll(async () => {
  await replica?.close();
  await mongo
    ?.db(databaseName(prefix, 'wallet'))
    .dropDatabase()
    .catch(() => undefined);
  await mongo?.close();
});

async function audit(): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(
      path.join(repositoryRoot, 'node_modules', '.bin', 'tsx'),
      [path.join(repositoryRoot, 'services/wallet/scripts/audit-ledger.ts')],
      {
        cwd: repositoryRoot,
        env: { ...process.env, MONGODB_URL: inject('mongodbUrl'), MONGODB_DATABASE_PREFIX: prefix },
        timeout: 60_000,
      },
    );
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

describe('npm run audit:ledger', () => {
  it('passes a sound ledger and exits non-zero printing each breach of a damaged one', async () => {
    const customer = `cus_${crypto.randomBytes(6).toString('hex')}`;
    await replica.client.call('Credit', {
      customer_id: customer,
      entry_id: `t:${customer}:1`,
      amount_eur_cents: 700,
      reason: 'topup',
      reference: '',
    });
    await replica.client.call('Debit', {
      customer_id: customer,
      entry_id: `s:${customer}:1`,
      amount_eur_cents: 200,
      reason: 'seat',
      reference: '',
    });
    const sound = await audit();
    expect(sound.code).toBe(0);
    expect(sound.stdout).toMatch(/^OK: \d+ wallets, 2 entries, 0 breaches/m);

    // A forged third entry that overdraws and breaks the running balance.
    await createLedgerStore(mongo.db(databaseName(prefix, 'wallet'))).ledger.insertOne({
      _id: `${customer}:3`,
      wallet_id: customer,
      seq: 3,
      entry_id: `s:${customer}:forged`,
      kind: 'debit',
      reason: 'seat',
      reference: '',
      amount_eur_cents: 900,
      balance_delta_eur_cents: -900,
      held_delta_eur_cents: 0,
      balance_after_eur_cents: 0,
      held_after_eur_cents: 0,
      created_at: new Date(),
    });
    const damaged = await audit();
    expect(damaged.code).toBe(1);
    expect(damaged.stdout).toMatch(/BREACH wallet .*debit of 900 taken from a balance of 500/);
    expect(damaged.stdout).toMatch(/BREACH wallet .*balance_after 0 != previous 500 \+ delta -900/);
    expect(damaged.stdout).toMatch(/^FAILED: /m);
  });
});
