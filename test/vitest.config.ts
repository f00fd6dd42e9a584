import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Two projects: `main` (unit, integration and end-to-end tests) and `faults` (the fault suite, which kills and
 * restarts real processes and so runs its files one at a time, after `main` has finished, so its kills and restarts never share the machine with other tests). `npm test` runs both; `npm run test:faults`
 * runs the second alone.
 */
export default defineConfig({
  test: {
    root,
    pool: 'forks',
    // Two cores: more workers only make the real servers and the test processes fight for CPU.
    poolOptions: { forks: { minForks: 1, maxForks: 2 } },
    testTimeout: 60_000,
    hookTimeout: 240_000,
    teardownTimeout: 30_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          globalSetup: ['test/setup/global-infrastructure.ts'],
          include: ['services/*/test/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['test/faults/**', '**/node_modules/**'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          sequence: { groupOrder: 1 },
          poolOptions: { forks: { singleFork: true } },
          testTimeout: 180_000,
        },
      },
    ],
  },
});
