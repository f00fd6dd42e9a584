import type { Collection, Db } from '@mtx/shared/mongo';
import type { MovementKind } from '../domain/movement';

/**
 * One applied movement. `_id` is `<wallet_id>:<sequence>` with sequences contiguous from 1, so claiming the
 * next slot is an insert that the `_id` index linearises, and `entry_id` is unique, so a movement applies at
 * most once. The document is never updated.
 */
export interface LedgerEntryDocument {
  _id: string;
  wallet_id: string;
  seq: number;
  entry_id: string;
  kind: MovementKind;
  reason: string;
  reference: string;
  amount_eur_cents: number;
  balance_delta_eur_cents: number;
  held_delta_eur_cents: number;
  balance_after_eur_cents: number;
  held_after_eur_cents: number;
  created_at: Date;
}

/** Every wallet that has (or is about to have) ledger entries, so the recovery pass can enumerate them. Never updated. */
export interface WalletRegistrationDocument {
  _id: string;
  created_at: Date;
}

/**
 * The head after entry `block × checkpointInterval`, inserted once that entry was announced. Insert-only
 * (FerretDB scans the whole collection on every update), so a cold reader finds a recent head by galloping over
 * block numbers instead of reading one document that every movement rewrites. Invariant: when checkpoint b
 * exists, every entry up to `b × checkpointInterval` was announced.
 */
export interface CheckpointDocument {
  _id: string;
  wallet_id: string;
  block: number;
  seq: number;
  balance_eur_cents: number;
  held_eur_cents: number;
  created_at: Date;
}

export const checkpointInterval = 16;

export interface LedgerStore {
  database: Db;
  ledger: Collection<LedgerEntryDocument>;
  wallets: Collection<WalletRegistrationDocument>;
  checkpoints: Collection<CheckpointDocument>;
}

export function createLedgerStore(database: Db): LedgerStore {
  return {
    database,
    ledger: database.collection<LedgerEntryDocument>('ledger'),
    wallets: database.collection<WalletRegistrationDocument>('wallets'),
    checkpoints: database.collection<CheckpointDocument>('wallet_checkpoints'),
  };
}

export async function ensureLedgerIndexes(store: LedgerStore): Promise<void> {
  for (const collection of [store.ledger, store.wallets, store.checkpoints]) {
    await store.database.createCollection(collection.collectionName).catch((error: { code?: number }) => {
      if (error?.code !== 48) throw error; // 48: NamespaceExists
    });
  }
  // The uniqueness that makes a movement apply at most once, and how a replay finds its original: MongoDB's
  // index, and on the local FerretDB our build's pushdown of an equality on an indexed field (a scan otherwise).
  await store.ledger.createIndex({ entry_id: 1 }, { unique: true, name: 'entry_id_unique' });
}
