import { defineConfig } from 'vitest/config';

// End-to-end: starts the built app in web mode and drives it in Debian's Chromium.
export default defineConfig({
  test: {
    // Browser tests of the security suite (issue 8) need the built app too.
    include: ['test/e2e/**/*.test.ts', 'test/security/**/*.e2e.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 90_000,
    // A browser on a loaded 2-core machine can take seconds to show what a poll waits for; the
    // default (1 s) made a passing screen fail in CI. A poll that never succeeds still fails.
    expect: { poll: { timeout: 10_000 } },
    // Two files at a time: each starts its own app and browser and spends most of its time waiting.
    maxWorkers: 2,
    // A PostgreSQL server for web-start.test.ts's --database case (the machine's, or a private cluster).
    globalSetup: ['test/setup/postgres.ts'],
  },
});
