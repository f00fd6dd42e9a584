import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { startStore, type LocalProcess } from '../src/infra/local';
import { toolPath } from '../src/infra/provision';

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-infra-'));
let store: LocalProcess | undefined;

afterAll(async () => {
  await store?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe('local infrastructure', () => {
  it('has the pinned tools in the cache', () => {
    expect(fs.existsSync(toolPath('ferretdb'))).toBe(true);
    expect(fs.existsSync(toolPath('nats-server'))).toBe(true);
  });

  it('restarts the store on the same port and keeps its data', async () => {
    store = await startStore(directory);
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
});
