/**
 * `npm run infra -- [--data-dir <folder>]`: starts the pinned FerretDB and nats-server on free ports with their
 * data in the folder (default .data/infra), prints the two URLs as JSON once both answer, and stops both on
 * Ctrl-C. Useful to run one service by hand: `MONGODB_URL=… NATS_URL=… tsx services/wallet/src/main.ts`.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startLocalInfrastructure } from '../src/local';
import { defaultDataDirectory } from '@mtx/shared/infra/paths';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' } }, strict: true });
const dataDirectory = path.resolve(values['data-dir'] ?? path.join(defaultDataDirectory, 'infra'));

startLocalInfrastructure({ dataDirectory, log: (line) => process.stderr.write(`[infra] ${line}\n`) }).then(
  (infrastructure) => {
    process.stdout.write(
      `${JSON.stringify({ mongodb_url: infrastructure.mongodbUrl, nats_url: infrastructure.natsUrl, data_directory: dataDirectory })}\n`,
    );
    const stop = () => void infrastructure.stop().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  },
  (error: unknown) => {
    process.stderr.write(`[infra] failed: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
