import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Integration tests share the host's network stack and Docker engine; run files one at a time.
    fileParallelism: false,
  },
});
