/**
 * Preloaded with NODE_OPTIONS="--require …/cpu-profile-preload.cjs" by `BENCH_EXECUTION_PROFILE=<dir> npm run
 * bench:execution` (node refuses --cpu-prof in NODE_OPTIONS): profiles the whole process with the inspector and
 * writes CPU.<pid>.cpuprofile into BENCH_PROFILE_DIR when it exits.
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
  session.post('Profiler.start');
  process.on('exit', () => {
    // An in-thread inspector session answers synchronously, so this completes before the process ends.
    session.post('Profiler.stop', (error, result) => {
      if (error || !result) return;
      fs.mkdirSync(directory, { recursive: true });
      fs.writeFileSync(path.join(directory, `CPU.${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
