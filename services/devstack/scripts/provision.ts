import { provisionTools } from '../src/provision';

provisionTools().then(
  (paths) => {
    for (const [name, file] of Object.entries(paths)) process.stderr.write(`[provision] ${name}: ${file}\n`);
  },
  (error: unknown) => {
    process.stderr.write(`[provision] failed: ${(error as Error).message}\n${(error as { stderr?: string }).stderr ?? ''}\n`);
    process.exit(1);
  },
);
