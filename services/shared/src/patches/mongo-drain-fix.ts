import { Socket } from 'node:net';
import { MongoNetworkError } from 'mongodb';

/**
 * Patch of: mongodb (node-mongodb-native) 6.x, checked on 6.22.0 and 7.8. Upstream: no issue for this race found
 * (NODE-6370, fixed in 6.10, was a different drain hang: the response listener attached too late). Goes when a
 * release settles writeCommand's `drain` wait on the socket's `close`: test/mongo-drain-fix.test.ts, which hangs
 * on an unpatched driver, then passes without this module.
 *
 * A fix for a hang in the mongodb driver (6.x and 7.8 alike): when `socket.write` answers false, the driver's
 * Connection.writeCommand awaits the socket's `drain` (or `error`) event. A socket the server closed with a FIN
 * (a killed store process) is ended and destroyed before its `close` event is handled; a write in that window
 * answers false, and neither `drain` nor `error` ever comes, while the connection's own close handler finds no
 * read in progress to fail. The command then never settles. When it is the server monitor's heartbeat, the monitor
 * stops for good: the server stays Unknown and every operation of the client fails server selection until the
 * process restarts (seen in the fault suite's store restart, about one run in two on two cores).
 *
 * The driver looks `once` up on its utils module at each call, so wrapping it there fixes the wait in place: for
 * `drain` on a socket, a socket already destroyed, or closed while waiting, fails the write as a network error,
 * which the driver handles as any other (the pool is cleared, the monitor checks again). Nothing else changes, and
 * nothing runs on a write the socket took at once.
 */
type Once = (emitter: NodeJS.EventEmitter, name: string, options?: { signal?: AbortSignal }) => Promise<unknown>;

interface DriverUtilities {
  once: Once;
  [patched]?: true;
}

const patched = Symbol('mtx.drainFix');

function closedError(): MongoNetworkError {
  return new MongoNetworkError('the connection closed before the command was written');
}

/** Wraps the driver's `once` (idempotent). Exported for its test; importing ./mongo applies it. */
export function applyDrainFix(utilities: DriverUtilities): void {
  if (utilities[patched]) return;
  const original = utilities.once;
  utilities.once = (emitter, name, options) => {
    if (name !== 'drain' || !(emitter instanceof Socket)) return original(emitter, name, options);
    if (emitter.destroyed) return Promise.reject(closedError());
    return new Promise((resolve, reject) => {
      const onClose = () => reject(closedError());
      emitter.once('close', onClose);
      original(emitter, name, options)
        .then(resolve, reject)
        .finally(() => emitter.off('close', onClose));
    });
  };
  utilities[patched] = true;
}

// The driver's internal module: its path is stable across 6.x and 7.x, and the package has no exports map.
// eslint-disable-next-line @typescript-eslint/no-require-imports
applyDrainFix(require('mongodb/lib/utils') as DriverUtilities);
