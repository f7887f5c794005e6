/** Platform-free rendering: the live-reply view, its Markdown, the message writer, the rate governor, Markdown chunking, secret redaction. */
export * from './live-view';
export * from './live-reply';
export * from './cost';
export * from './message-writer';
export * from './rate-governor';
export * from './token-bucket';
export * from './markdown-chunks';
export * from './fences';
export * from './heal';
export * from './redactor';
export * from './retry-policy';
