import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['services/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/setup/global-infrastructure.ts'],
    // Two cores: more workers only make the real servers and the test processes fight for CPU.
    poolOptions: { forks: { minForks: 1, maxForks: 2 } },
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 240_000,
    teardownTimeout: 30_000,
    reporters: ['default'],
  },
});
