import { defineConfig } from 'vitest/config';

// Unit and integration tests: plain Node, real SQLite files, real HTTP on loopback, real keychain.
export default defineConfig({
  test: {
    include: [
      'test/unit/**/*.test.ts',
      'test/integration/**/*.test.ts',
      'test/emulator/**/*.test.ts',
      // Issue 8: crash, durability and hostile-input suites (each well under 5 minutes by default;
      // PAYDESK_LONG=1 runs the long mode, PAYDESK_SEED=<n> replays a run).
      'test/reliability/**/*.test.ts',
      'test/security/**/*.test.ts',
    ],
    // Browser tests need the built app: they run with the end-to-end suite (vitest.e2e.config.ts).
    exclude: ['**/node_modules/**', 'test/**/*.e2e.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two files at a time: most of their time is spent waiting (timers, loopback HTTP, fsync, the
    // PostgreSQL server), and vitest's default on a 2-core machine is one.
    maxWorkers: 2,
    // A PostgreSQL server for the tests of the second engine (the machine's, or a private cluster).
    globalSetup: ['test/setup/postgres.ts'],
    // Every address a test reaches is on this machine: a look-up of any other host name fails the file.
    setupFiles: ['test/setup/loopback-only.ts'],
  },
});
