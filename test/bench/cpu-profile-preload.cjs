/**
 * Preloaded with NODE_OPTIONS="--require …/cpu-profile-preload.cjs" by `BENCH_EXECUTION_PROFILE=<dir> npm run
 * bench:execution` or `BENCH_PROFILE_DIR=<dir> npm run bench:wallet` (node refuses --cpu-prof in NODE_OPTIONS):
 * profiles the process with the inspector and writes CPU.<pid>.cpuprofile into BENCH_PROFILE_DIR. With
 * BENCH_PROFILE_ON_SIGNAL=1 each profile covers only the span between two SIGUSR2 (a benchmark's phase), written
 * at the second as CPU.<pid>.<n>.cpuprofile (n = 1, 2, … per phase); otherwise it covers the whole process and is
 * written when it exits.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const inspector = require('node:inspector');

const directory = process.env.BENCH_PROFILE_DIR;
if (directory) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  let phase = 0;
  const write = (name) =>
    // An in-thread inspector session answers synchronously, so this completes before the process ends.
    session.post('Profiler.stop', (error, result) => {
      if (error || !result) return;
      fs.mkdirSync(directory, { recursive: true });
      fs.writeFileSync(path.join(directory, name), JSON.stringify(result.profile));
    });
  if (process.env.BENCH_PROFILE_ON_SIGNAL === '1') {
    let running = false;
    process.on('SIGUSR2', () => {
      if (running) write(`CPU.${process.pid}.${++phase}.cpuprofile`);
      else session.post('Profiler.start');
      running = !running;
    });
  } else {
    session.post('Profiler.start');
    process.on('exit', () => write(`CPU.${process.pid}.cpuprofile`));
  }
}
