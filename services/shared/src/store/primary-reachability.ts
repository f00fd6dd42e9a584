import type { MongoClient } from 'mongodb';
import { createObservableGauge, instruments } from '../telemetry/instruments';

/** Each open client's view: whether its topology holds a writable server now. */
const writable = new Map<MongoClient, boolean>();
let observing = false;

/**
 * Follows a client's server monitoring into `mtx.store.primary.reachable`: 0 once the driver's heartbeat (every
 * 10 s) has lost every writable server (MongoDB's primary, FerretDB itself), 1 while one answers. Every service
 * connects through connectMongo, so every service exports it; with several clients in a process (tests), the
 * process reports 0 while any of them has lost its primary.
 */
export function followPrimaryReachability(client: MongoClient): void {
  writable.set(client, true);
  client.on('topologyDescriptionChanged', (event) => {
    if (!writable.has(client)) return;
    const servers = [...event.newDescription.servers.values()];
    writable.set(
      client,
      servers.some((server) => server.isWritable),
    );
  });
  client.on('topologyClosed', () => writable.delete(client));
  if (observing) return;
  observing = true;
  createObservableGauge(instruments.storePrimaryReachable).addCallback((observer) => {
    if (writable.size > 0) observer.observe([...writable.values()].every(Boolean) ? 1 : 0);
  });
}
