import { systemClock } from '@mtx/shared/clock';
import type { Logger } from '@mtx/shared/logger';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Broker } from '../src/app/broker';
import { PriceFeed } from '../src/domain/prices';
import { FileJournal } from '../src/store/journal';

/**
 * A zero-latency broker at a fixed mid price over a file journal in a directory of its own: opened before the
 * file's tests, closed and removed after them (after the file's own afterAll hooks, which run first).
 */
export function useJournalBroker(label: string, logger: Logger): { readonly broker: Broker; readonly directory: string } {
  let directory: string;
  let journal: FileJournal;
  let broker: Broker;
  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), `${label}-`));
    journal = await FileJournal.open(path.join(directory, 'journal.ndjson'), logger);
    broker = new Broker({ journal, clock: systemClock, logger, latencyMs: 0, prices: new PriceFeed(() => 0.5) });
    broker.load();
  });
  afterAll(async () => {
    await journal?.close();
    if (directory) fs.rmSync(directory, { recursive: true, force: true });
  });
  return {
    get broker() {
      return broker;
    },
    get directory() {
      return directory;
    },
  };
}
