import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureBuilt } from '../../services/devstack/src/build';
import { startLocalInfrastructure, type LocalInfrastructure } from '../../services/devstack/src/local';
import { serviceNames } from '../../services/devstack/src/services';

declare module 'vitest' {
  export interface ProvidedContext {
    mongodbUrl: string;
    natsUrl: string;
    infrastructureDirectory: string;
  }
}

let infrastructure: LocalInfrastructure | undefined;
let directory: string | undefined;

/**
 * One real FerretDB and one real nats-server for the whole run (provisioned on first use). Test files
 * isolate themselves by database prefix and subject names, so they can share both servers.
 */
export async function setup(project: TestProject): Promise<void> {
  // Every service compiled once, before the test files (in parallel workers) start processes from the bundles.
  await Promise.all(serviceNames.map((name) => ensureBuilt(name)));
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-test-'));
  infrastructure = await startLocalInfrastructure({
    dataDirectory: directory,
    log: (line) => process.stderr.write(`[test-infra] ${line}\n`),
  });
  project.provide('mongodbUrl', infrastructure.mongodbUrl);
  project.provide('natsUrl', infrastructure.natsUrl);
  project.provide('infrastructureDirectory', directory);
}

export async function teardown(): Promise<void> {
  await infrastructure?.stop();
  if (directory) fs.rmSync(directory, { recursive: true, force: true });
}
