import diagnosticsChannel from 'node:diagnostics_channel';

/**
 * A finished HTTP/2 stream (every gRPC call, client and server side) stays reachable for V8's scavenges until the
 * next major collection: Node keeps it through a weak handle, which a scavenge treats as strong once JavaScript has
 * set a property on the object. Whatever its listeners reference survives with it: grpc-js's call objects, and
 * through their callbacks a whole crediting batch (inbox deliveries, records, the answer). In payments at 1,000
 * postbacks/s that was ~10 % of everything allocated, copied twice by the scavenges and left to die in the old
 * generation. Dropping a stream's listeners once it has closed lets that graph die young; the stream itself still
 * waits for the major collection. A stream emits nothing after `close`; an `error` listener stays, so a late
 * error could never be an unhandled one.
 */
const streamCloseChannels = ['http2.client.stream.close', 'http2.server.stream.close'];

interface ClosedStream {
  stream: NodeJS.EventEmitter;
}

function ignoreError(): void {}

function releaseListeners(message: unknown): void {
  const { stream } = message as ClosedStream;
  // After every listener of this `close` has run.
  setImmediate(() => {
    stream.removeAllListeners();
    stream.on('error', ignoreError);
  });
}

let subscribed = false;

/** Subscribes once per process (idempotent). */
export function applyHttp2StreamRelease(): void {
  if (subscribed) return;
  subscribed = true;
  for (const name of streamCloseChannels) diagnosticsChannel.subscribe(name, releaseListeners);
}

applyHttp2StreamRelease();
