/**
 * Where a request's time goes between processes: preloaded into every Node process of a benchmark with
 * `PATH_PROBE_DIR=<dir> NODE_OPTIONS="--require $PWD/test/bench/path-probe-preload.cjs" npm run bench:execution`
 * (the stack inherits the environment), it writes one JSON line per event into <dir>/<process>.<pid>.jsonl:
 * [time, event, a, b, cpuMs, loopIdleMs]. Time is `performance.timeOrigin + performance.now()`, the host's
 * monotonic clock, so lines of different processes compare; cpuMs and loopIdleMs are the process's CPU and
 * event-loop idle time so far, so a stretch between two events of one process reads as work or as waiting.
 * Events: `rd` / `wr` / `wv` (a socket's data handed to JavaScript, a write or a gathered write; a = local>remote
 * port, b = bytes; HTTP/2 sessions read and write natively and do not show), `http.in` / `http.out` (a request's
 * headers parsed, its answer handed to the socket), `grpc.srv.in` / `grpc.srv.out` (a unary handler called, its
 * answer given), `gc` (kind, ms). `node test/bench/path-probe-report.cjs <dir>` reads them. Not for production:
 * every socket event costs a few microseconds and memory until the next flush.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const net = require('node:net');
const diagnosticsChannel = require('node:diagnostics_channel');
const { performance, PerformanceObserver } = require('node:perf_hooks');

const directory = process.env.PATH_PROBE_DIR;
if (directory) {
  const service = /services\/([^/]+)\/dist/.exec(process.argv[1] ?? '');
  const name = service ? service[1] : path.basename(process.argv[1] ?? 'node').replace(/\W/g, '_');
  const file = path.join(directory, `${name}.${process.pid}.jsonl`);
  let lines = [];
  const mark = (event, a, b) => {
    const cpu = process.cpuUsage();
    const time = (performance.timeOrigin + performance.now()).toFixed(3);
    const idle = performance.eventLoopUtilization().idle.toFixed(3);
    lines.push(
      `[${time},"${event}",${JSON.stringify(a ?? null)},${JSON.stringify(b ?? null)},${((cpu.user + cpu.system) / 1000).toFixed(3)},${idle}]`,
    );
  };
  const flush = () => {
    if (lines.length === 0) return;
    fs.mkdirSync(directory, { recursive: true });
    fs.appendFileSync(file, `${lines.join('\n')}\n`);
    lines = [];
  };
  setInterval(flush, 500).unref();
  process.on('exit', flush);

  const ports = (socket) => `${socket.localPort}>${socket.remotePort}`;
  const emit = net.Socket.prototype.emit;
  net.Socket.prototype.emit = function (event, ...rest) {
    if (event === 'data') mark('rd', ports(this), rest[0]?.length);
    return emit.call(this, event, ...rest);
  };
  const writeGeneric = net.Socket.prototype._writeGeneric;
  net.Socket.prototype._writeGeneric = function (gathered, data, ...rest) {
    mark(gathered ? 'wv' : 'wr', ports(this), data?.length);
    return writeGeneric.call(this, gathered, data, ...rest);
  };
  diagnosticsChannel.subscribe('http.server.request.start', ({ request }) => mark('http.in', request.method, request.url.slice(0, 20)));
  diagnosticsChannel.subscribe('http.server.response.finish', ({ request }) => mark('http.out', request.method, request.url.slice(0, 20)));

  try {
    // The stack's npm packages are external to the service bundles, so this is the copy the services load.
    const grpc = require(require.resolve('@grpc/grpc-js', { paths: [process.cwd(), __dirname] }));
    const register = grpc.Server.prototype.register;
    grpc.Server.prototype.register = function (method, handler, serialize, deserialize, type) {
      if (type !== 'unary' || method.includes('Health')) return register.call(this, method, handler, serialize, deserialize, type);
      const short = method.split('/').pop();
      const marked = function (call, callback) {
        mark('grpc.srv.in', short);
        return handler.call(this, call, (error, value, trailer, flags) => {
          mark('grpc.srv.out', short);
          return callback(error, value, trailer, flags);
        });
      };
      return register.call(this, method, marked, serialize, deserialize, type);
    };
  } catch (error) {
    mark('probe.error', String(error));
  }

  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) mark('gc', entry.detail?.kind, entry.duration.toFixed(3));
  }).observe({ entryTypes: ['gc'] });
}
