import { MongoClient, type Db, type MongoClientOptions, type OptionalUnlessRequiredId } from 'mongodb';
import { isDuplicateKeyError } from './bulk-write';
import { followPrimaryReachability } from './primary-reachability';
import '../patches/mongo-drain-fix';

export type { Db, Collection, MongoClient } from 'mongodb';

/**
 * Storage rules that hold on FerretDB 1.x (SQLite) as well as on MongoDB 7; see docs/architecture.md, "Storage rules":
 * - updates there are read-modify-write without isolation, so a conditional update is NOT a compare-and-set;
 * - inserts are linearised by unique indexes (of 100 racing inserts of one key exactly one wins);
 * - only `_id` equality is answered from an index; any other filter scans the collection.
 * Hence every decision that must be exclusive is an insert, and every hot lookup is by `_id`.
 */
export async function connectMongo(url: string, options: MongoClientOptions = {}): Promise<MongoClient> {
  const client = new MongoClient(url, {
    serverSelectionTimeoutMS: 3_000,
    connectTimeoutMS: 3_000,
    socketTimeoutMS: 10_000,
    maxPoolSize: 32,
    // Retried writes need sessions with transaction numbers, which FerretDB lacks; our writes are idempotent instead.
    retryWrites: false,
    retryReads: true,
    ...options,
  });
  followPrimaryReachability(client);
  await client.connect();
  return client;
}

/**
 * Which server answers: FerretDB names its version in `buildInfo` (`ferretdbVersion`). For store adapters that lay
 * data out differently for FerretDB's scans; the domain never asks.
 */
export async function detectStoreEngine(database: Db): Promise<'mongodb' | 'ferretdb'> {
  const info = await database.admin().command({ buildInfo: 1 });
  return typeof info.ferretdbVersion === 'string' ? 'ferretdb' : 'mongodb';
}

export function databaseName(prefix: string, service: string): string {
  return `${prefix}${service.replace(/-/g, '_')}`;
}

export { isDuplicateKeyError } from './bulk-write';

/** Inserts a document; returns false when a unique index already holds its key (the insert lost the race). */
export async function insertIfAbsent<T extends { _id: unknown }>(
  collection: import('mongodb').Collection<T>,
  document: T,
): Promise<boolean> {
  try {
    await collection.insertOne(document as OptionalUnlessRequiredId<T>);
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}

/** Cheap liveness probe of the store, used by /readyz. */
export async function pingMongo(database: Db, deadlineMs = 1_000): Promise<boolean> {
  // With the store down the driver waits for server selection (serverSelectionTimeoutMS) whatever timeoutMS says,
  // and a readiness probe that hangs that long is itself a failure; the timer bounds it.
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), deadlineMs);
  });
  const ping = database.command({ ping: 1 }, { timeoutMS: deadlineMs }).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([ping, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
