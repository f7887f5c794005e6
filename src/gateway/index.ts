/** Gateway internals for the process, the CLI and tests: configuration and the store. */
export * from './config';
export * from './store';
export * from './admin';
export * from './logger';
export * from './cli/index';
