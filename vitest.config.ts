import { defineConfig } from 'vitest/config';

// Unit and integration tests: plain Node, real SQLite files, real HTTP on loopback, real keychain.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/emulator/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
