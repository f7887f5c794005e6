/** Append-only JSONL traces: layout, writer, tolerant reader. */
export * from './paths';
export * from './writer';
export * from './reader';
