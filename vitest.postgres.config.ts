import { defineConfig } from 'vitest/config';

// The suites that touch the ledger, again on PostgreSQL (docs/ledger.md, "Tests"): every ledger
// these tests open (test/helpers/ledger.ts, test/helpers/app-core.ts) is a PostgreSQL database of
// its own. Unit tests, the emulator's and the lint and property suites do not depend on the engine.
export default defineConfig({
  test: {
    include: ['test/integration/**/*.test.ts', 'test/reliability/**/*.test.ts', 'test/security/**/*.test.ts'],
    // ledger:copy's test and the comparison of the engines' schemas use both engines already in the
    // first run; opening PostgreSQL ledgers that cannot be opened, and on a private cluster, does not
    // depend on the run's engine.
    exclude: [
      '**/node_modules/**',
      'test/**/*.e2e.test.ts',
      'test/integration/lint-boundaries.test.ts',
      'test/security/**/*.property.test.ts',
      'test/integration/ledger/copy.test.ts',
      'test/integration/ledger/engines-agree.test.ts',
      'test/integration/ledger/postgres-open-problems.test.ts',
      'test/integration/ledger/postgres-pool-size.test.ts',
      'test/integration/ledger/private-cluster.test.ts',
      // Stopping the servers puts their ledgers on PostgreSQL in the first run already.
      'test/reliability/stopping.test.ts',
    ],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time: most of their time is spent waiting (timers, loopback HTTP, fsync, the
    // PostgreSQL server), and vitest's default on a 2-core machine is one.
    maxWorkers: 2,
    globalSetup: ['test/setup/postgres.ts'],
    // Every address a test reaches is on this machine: a look-up of any other host name fails the file.
    setupFiles: ['test/setup/loopback-only.ts'],
    env: { PAYDESK_TEST_ENGINE: 'postgres' },
  },
});
