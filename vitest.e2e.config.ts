import { defineConfig } from 'vitest/config';

// End-to-end: starts the built app in web mode and drives it in Debian's Chromium.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 90_000,
    fileParallelism: false,
  },
});
