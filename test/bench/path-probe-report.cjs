/**
 * `node test/bench/path-probe-report.cjs <dir> [POST|GET]`: where a request alone (c=1) spends its time, per hop,
 * from the events path-probe-preload.cjs wrote during `npm run bench:execution` (POST: the REST batches, GET: the
 * positions reads). A request is the load generator's write, the gateway's request and answer, execution's handler
 * and everything between; only requests with no other one in flight count. Then the fan-out (execution's NATS
 * requests written → its last reply read) split by what else ran meanwhile: execution's store writes (a previous
 * batch's outcomes), notifications, a garbage collection.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const directory = process.argv[2];
const method = process.argv[3] ?? 'POST';
const events = [];
for (const file of fs.readdirSync(directory)) {
  const processName = file.split('.')[0];
  for (const line of fs.readFileSync(path.join(directory, file), 'utf8').split('\n')) {
    if (!line) continue;
    try {
      const [t, e, a, b, cpu, idle] = JSON.parse(line);
      events.push({ t, e, a, b, cpu, idle, p: processName });
    } catch {
      // A line cut short by a process's end.
    }
  }
}
events.sort((left, right) => left.t - right.t);
const loadGenerator = 'execution_ts';
const remotePort = (event) => String(event.a).split('>')[1];
const mostFrequent = (values) => {
  const counts = new Map();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((left, right) => right[1] - left[1]).map(([value]) => value);
};
const natsPort = mostFrequent(events.filter((x) => x.p === 'connector-mt4' && x.e[0] === 'w').map(remotePort))[0];
const storePort = mostFrequent(events.filter((x) => x.p === 'execution' && x.e[0] === 'w').map(remotePort)).find(
  (port) => port !== natsPort,
);
const quantile = (values, fraction) => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
};
const figures = new Map();
const add = (name, value) => {
  if (value === undefined || Number.isNaN(value)) return;
  if (!figures.has(name)) figures.set(name, []);
  figures.get(name).push(value);
};
const between = (name, from, to) => from && to && add(name, to.t - from.t);

for (const start of events.filter((x) => x.p === 'gateway' && x.e === 'http.in' && x.a === method && x.b.startsWith('/v1/'))) {
  const index = events.indexOf(start);
  let sent;
  for (let i = index; i >= 0 && i > index - 400; i--) {
    if (events[i].p === loadGenerator && events[i].e[0] === 'w') {
      sent = events[i];
      break;
    }
  }
  let answered;
  let read;
  for (let i = index + 1; i < events.length; i++) {
    const event = events[i];
    if (event.p === 'gateway' && event.e === 'http.in') break;
    if (!answered && event.p === 'gateway' && event.e === 'http.out') answered = event;
    if (answered && event.p === loadGenerator && event.e === 'rd') {
      read = event;
      break;
    }
  }
  if (!sent || !read) continue;
  const execution = events.slice(events.indexOf(sent), events.indexOf(read) + 1).filter((x) => x.p === 'execution');
  const handled = execution.find((x) => x.e === 'grpc.srv.in');
  const answeredByExecution = execution.find((x) => x.e === 'grpc.srv.out');
  if (!handled || !answeredByExecution || execution.filter((x) => x.e === 'grpc.srv.in').length !== 1) continue;
  const inside = execution.filter((x) => x.t >= handled.t && x.t <= answeredByExecution.t);
  const storeWrite = inside.find((x) => x.e[0] === 'w' && remotePort(x) === storePort);
  const natsWrite = inside.find((x) => x.e[0] === 'w' && remotePort(x) === natsPort);
  const acked =
    storeWrite &&
    natsWrite &&
    inside.filter((x) => x.e === 'rd' && remotePort(x) === storePort && x.t > storeWrite.t && x.t < natsWrite.t).at(-1);
  const lastReply = inside.filter((x) => x.e === 'rd' && remotePort(x) === natsPort).at(-1);
  between('00 total (load generator write → its read)', sent, read);
  between('01 load generator → gateway request', sent, start);
  between('02 gateway request → execution handler (gateway work, gRPC)', start, handled);
  if (acked) {
    between('03 execution handler → write-ahead sent', handled, storeWrite);
    between('04 write-ahead round trip', storeWrite, acked);
    between('05 write-ahead acked → NATS requests written', acked, natsWrite);
  } else between('03 execution handler → NATS requests written', handled, natsWrite);
  between('06 NATS requests written → last reply read (fan-out)', natsWrite, lastReply);
  between('07 last reply → execution answers', lastReply, answeredByExecution);
  between('08 execution answers → gateway reply written (gRPC, gateway work)', answeredByExecution, answered);
  between('09 gateway reply written → load generator reads it', answered, read);
}
// The floor's own hop: the load generator's NATS requests to a connector reading them.
for (const write of events.filter((x) => x.p === loadGenerator && x.e[0] === 'w' && remotePort(x) === natsPort)) {
  const index = events.indexOf(write);
  const next = events.slice(index + 1, index + 50).find((x) => x.p.startsWith('connector') && x.e === 'rd');
  if (next && next.t - write.t < 50) add('F  floor: load generator NATS write → first connector read', next.t - write.t);
}
const print = (name, values) =>
  console.log(
    `${name.padEnd(78)} p50 ${quantile(values, 0.5).toFixed(2)}  p25 ${quantile(values, 0.25).toFixed(2)}  p90 ${quantile(values, 0.9).toFixed(2)}  n ${values.length}`,
  );
for (const [name, values] of [...figures].sort((left, right) => left[0].localeCompare(right[0]))) print(name, values);

const fanOuts = new Map();
const executionEvents = events.filter((x) => x.p === 'execution');
for (const handled of executionEvents.filter(
  (x) => x.e === 'grpc.srv.in' && x.a === (method === 'POST' ? 'PlaceOrders' : 'GetPositions'),
)) {
  const answered = executionEvents.find((x) => x.t > handled.t && x.e === 'grpc.srv.out');
  if (!answered) continue;
  const inside = executionEvents.filter((x) => x.t >= handled.t && x.t <= answered.t);
  if (inside.some((x) => x.e === 'grpc.srv.in' && x !== handled)) continue;
  const natsWrite = inside.find((x) => x.e[0] === 'w' && remotePort(x) === natsPort);
  const lastReply = inside.filter((x) => x.e === 'rd' && remotePort(x) === natsPort).at(-1);
  if (!natsWrite || !lastReply) continue;
  const meanwhile = events.filter((x) => x.t > natsWrite.t && x.t < lastReply.t);
  const storeWrites = meanwhile.some((x) => x.p === 'execution' && x.e[0] === 'w' && remotePort(x) === storePort);
  const notifications = meanwhile.some((x) => x.p === 'notifications' && x.e !== 'gc');
  const collected = meanwhile.some((x) => x.e === 'gc');
  const name = `fan-out meanwhile: store writes ${storeWrites ? 'yes' : 'no '}, notifications ${notifications ? 'yes' : 'no '}, gc ${collected ? 'yes' : 'no '}`;
  if (!fanOuts.has(name)) fanOuts.set(name, []);
  fanOuts.get(name).push(lastReply.t - natsWrite.t);
}
for (const [name, values] of [...fanOuts].sort()) print(name, values);
