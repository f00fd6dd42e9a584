import type { Db, Document } from 'mongodb';
import { refusedOnlyDuplicates } from '@mtx/shared/bulk-write';
import type { Logger } from '@mtx/shared/logger';
import { shardedKinds } from './collections';

/** Documents copied per insert: bounded, and well under a store command's size limit. */
const copyBatchSize = 1_000;

export interface ShardMergeReport {
  /** Shard collections folded in and dropped. */
  shards: number;
  /** Documents copied into the single collections. */
  copied: number;
  /** Documents already present in the single collection (a previous, interrupted merge); the present one wins. */
  alreadyPresent: number;
}

function insertedCount(error: unknown): number {
  const result = (error as { result?: { insertedCount?: number }; insertedCount?: number }).result;
  return result?.insertedCount ?? (error as { insertedCount?: number }).insertedCount ?? 0;
}

/**
 * Folds shard collections (`seats_07`, ...) into the single collections, then drops each shard. Earlier versions
 * sharded on every server (STORE_SHARDS, 64 by default); on MongoDB billing now keeps single collections, and this
 * runs at start there. Safe to repeat and to run from several replicas at once: a document is inserted only where
 * its `_id` is absent, so a copy made by an interrupted merge, and since updated through the single collection, is
 * never overwritten by its older shard copy. Replicas of the sharded version must be stopped first: a write they
 * make to a shard after it was copied would be lost with the shard.
 */
export async function mergeShardedLayout(database: Db, logger: Logger): Promise<ShardMergeReport> {
  const report: ShardMergeReport = { shards: 0, copied: 0, alreadyPresent: 0 };
  const names = (await database.listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
  for (const kind of shardedKinds) {
    const shardPattern = new RegExp(`^${kind}_\\d{2,3}$`);
    for (const shardName of names.filter((name) => shardPattern.test(name)).sort()) {
      const target = database.collection(kind);
      let batch: Document[] = [];
      const flush = async () => {
        if (batch.length === 0) return;
        const documents = batch;
        batch = [];
        try {
          report.copied += (await target.insertMany(documents, { ordered: false })).insertedCount;
        } catch (error) {
          if (!refusedOnlyDuplicates(error, documents.length)) throw error;
          const inserted = insertedCount(error);
          report.copied += inserted;
          report.alreadyPresent += documents.length - inserted;
        }
      };
      for await (const document of database.collection(shardName).find({}).batchSize(copyBatchSize)) {
        batch.push(document);
        if (batch.length >= copyBatchSize) await flush();
      }
      await flush();
      await database
        .collection(shardName)
        .drop()
        .catch((error: unknown) => {
          // Another replica merging at the same time dropped it first (NamespaceNotFound).
          if ((error as { code?: number }).code !== 26) throw error;
        });
      report.shards += 1;
    }
  }
  if (report.shards > 0) logger.info(report, 'folded the sharded billing layout into single collections');
  return report;
}
