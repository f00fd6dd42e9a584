import { provisionChromium } from '../src/chromium';
import { provisionTools } from '../src/provision';

// `npm test`'s first step: the pinned FerretDB and nats-server, and the browser the end-to-end tests drive.
provisionTools().then(
  (paths) => {
    for (const [name, file] of Object.entries(paths)) process.stderr.write(`[provision] ${name}: ${file}\n`);
    process.stderr.write(`[provision] chromium: ${provisionChromium()}\n`);
  },
  (error: unknown) => {
    process.stderr.write(`[provision] failed: ${(error as Error).message}\n${(error as { stderr?: string }).stderr ?? ''}\n`);
    process.exit(1);
  },
);
