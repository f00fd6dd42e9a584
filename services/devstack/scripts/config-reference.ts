/**
 * `npm run docs:config`: regenerates the configuration reference in docs/operations.md from the services' config
 * schemas (services/devstack/src/config-reference.ts). `--check` changes nothing and exits 1 when the document
 * is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import { repositoryRoot } from '@mtx/shared/infra/paths';
import { regeneratedDocument } from '../src/config-reference';

async function main(): Promise<number> {
  const documentFile = path.join(repositoryRoot, 'docs', 'operations.md');
  const current = fs.readFileSync(documentFile, 'utf8');
  const next = await regeneratedDocument(current, repositoryRoot);
  if (process.argv.includes('--check')) {
    if (next === current) return 0;
    process.stderr.write('[docs:config] docs/operations.md is stale: run `npm run docs:config`\n');
    return 1;
  }
  if (next !== current) fs.writeFileSync(documentFile, next);
  process.stdout.write(`[docs:config] docs/operations.md ${next === current ? 'already current' : 'updated'}\n`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`[docs:config] ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);
