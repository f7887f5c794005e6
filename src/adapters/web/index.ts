/** The dashboard playground's chat platform: an in-process adapter and its HTTP routes. */
export * from './web-adapter';
export * from './routes';
