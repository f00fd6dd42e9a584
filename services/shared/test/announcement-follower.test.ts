import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startNats } from '@mtx/devstack/local';
import { announce, announcements, followAnnouncements, following } from '../src/messaging/announcements';
import { FreshCache } from '../src/cache/fresh-cache';
import { createLogger } from '../src/telemetry/logger';
import { connectNats } from '../src/messaging/nats';
import { eventually } from '../src/testing';

describe('following announcements', () => {
  it('invalidates on each announcement, and suspends every cache it keeps while NATS is away, until resubscribed', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-follower-'));
    const server = await startNats(directory);
    const logger = createLogger('test', { level: 'silent' });
    const reader = await connectNats(server.url, 'follower-reader', logger);
    const publisher = await connectNats(server.url, 'follower-publisher', logger);
    const views = new FreshCache<string>({ freshMs: 60_000, entriesMax: 100 });
    const accounts = new FreshCache<string>({ freshMs: 60_000, entriesMax: 100 });
    let loads = 0;
    const load = async () => `load ${++loads}`;
    try {
      const follower = await followAnnouncements(
        reader,
        [
          following(announcements.topupsChanged, ({ customerId }) => views.invalidate(customerId)),
          following(announcements.accountChanged, ({ accountId }) => accounts.invalidate(accountId)),
        ],
        [views, accounts],
        logger,
      );
      expect(await views.read('cus_a', load)).toBe('load 1');
      expect(await views.read('cus_a', load)).toBe('load 1');
      await accounts.read('acc_1', load);
      expect(accounts.get('acc_1')).toBe('load 2');

      // Another replica's change reaches this one.
      announce(publisher, announcements.topupsChanged, { customerId: 'cus_a' });
      await publisher.flush();
      await eventually(async () => views.get('cus_a') === undefined, 5_000);
      expect(accounts.get('acc_1')).toBe('load 2');

      // NATS away: announcements could be missed, so no cache serves from memory.
      await views.read('cus_a', load);
      await server.stop();
      await eventually(async () => !views.enabled && !accounts.enabled, 5_000);
      expect(accounts.get('acc_1')).toBeUndefined();
      const before = loads;
      await views.read('cus_a', load);
      await views.read('cus_a', load);
      expect(loads).toBe(before + 2);

      // Back, and resubscribed: caching again, nothing trusted from before.
      await server.start();
      await eventually(async () => views.enabled && accounts.enabled, 15_000);
      expect(accounts.get('acc_1')).toBeUndefined();
      const fresh = await views.read('cus_a', load);
      expect(await views.read('cus_a', load)).toBe(fresh);
      follower.close();
      expect(views.enabled).toBe(false);
    } finally {
      await reader.close().catch(() => undefined);
      await publisher.close().catch(() => undefined);
      await server.stop();
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
