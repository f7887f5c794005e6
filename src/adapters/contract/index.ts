/** The adapter contract: what every chat platform implements and the neutral types it exchanges with the gateway. */
export * from './clock';
export * from './thread-ref';
export * from './delivery-target';
export * from './messages';
export * from './limits';
export * from './errors';
export * from './rate';
export * from './surface';
export * from './adapter';
export * from './binding';
export * from './place';
export * from './inbound-dispatcher';
export * from './action-payload';
export * from './approval-card';
export * from './diff-preview';
