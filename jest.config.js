// TypeScript ESM under jest: @swc/jest strips types; NODE_OPTIONS=--experimental-vm-modules (set by
// the npm scripts) lets jest load ESM-only packages such as MikroORM 7.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2024' }, module: { type: 'es6' } }] },
  testMatch: ['<rootDir>/test/**/*.spec.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  testTimeout: 30000,
  maxWorkers: 2,
  // A worker that has grown past this after a test file is replaced by a fresh one: with some 230
  // files, what module registries, workers and native XML handles leave behind would otherwise add up
  // until a worker runs out of heap mid-suite.
  workerIdleMemoryLimit: '1GB',
};
