import diagnosticsChannel from 'node:diagnostics_channel';

/**
 * Patch of: Node's http2 module as @grpc/grpc-js 1.14 uses it, checked on Node 24.21; nothing is changed but a
 * closed stream's listeners. Upstream: no issue found (grpc/grpc-node#2184 is a different leak of unclosed
 * streams). Goes when a finished stream no longer survives scavenges: test/http2-stream-release.test.ts.
 *
 * A finished HTTP/2 stream (every gRPC call, client and server side) stays reachable for V8's scavenges until the
 * next major collection: Node keeps it through a weak handle, which a scavenge treats as strong once JavaScript has
 * set a property on the object. Whatever its listeners reference survives with it: grpc-js's call objects, and
 * through their callbacks a whole crediting batch (inbox deliveries, records, the answer). In payments at 1,000
 * postbacks/s that was ~10 % of everything allocated, copied twice by the scavenges and left to die in the old
 * generation. Dropping a stream's listeners once it has closed lets that graph die young; the stream itself still
 * waits for the major collection.
 *
 * `close` is a stream's last event: Node emits it once the stream is destroyed, which for a stream whose reader
 * has not taken all the data yet waits for `end`. The listeners go in the turn after it, once every `close`
 * listener has run; an `error` listener stays, so a late error could never be an unhandled one.
 */
const streamCreatedChannels = ['http2.client.stream.created', 'http2.server.stream.created'];

function ignoreError(): void {}

function releaseAfterClose(message: unknown): void {
  const { stream } = message as { stream: NodeJS.EventEmitter };
  stream.once('close', () =>
    setImmediate(() => {
      stream.removeAllListeners();
      stream.on('error', ignoreError);
    }),
  );
}

// On import, once per process (a module runs once): every module that makes or serves gRPC calls imports this one.
for (const name of streamCreatedChannels) diagnosticsChannel.subscribe(name, releaseAfterClose);
