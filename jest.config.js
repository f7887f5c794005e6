// Jest runs TypeScript through @swc/jest (type-checking is `npm run build`'s job, so tests stay fast).
const { availableParallelism } = require('node:os');

/** @type {import('jest').Config} */
module.exports = {
  // At least two workers: most test files wait on child processes, sockets and timers, so on a 2-core host
  // (where jest's default of cores - 1 runs them one at a time) two workers take the suite from ~10 to ~7 min.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  testTimeout: 30000,
  // The run's directory for the test PostgreSQL server, which the first test file that needs it starts.
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};
