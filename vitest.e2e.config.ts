import { defineConfig } from 'vitest/config';

// End-to-end: starts the built app in web mode and drives it in Debian's Chromium.
export default defineConfig({
  test: {
    // Browser tests of the security suite (issue 8) need the built app too.
    include: ['test/e2e/**/*.test.ts', 'test/security/**/*.e2e.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 90_000,
    fileParallelism: false,
  },
});
