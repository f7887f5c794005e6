/**
 * The scheduler (gateway.md §9): schedule files of every routed agent, their slots, the approval rule for
 * unattended runs, the loop that fires them, and the executor that delivers a fire as a chat Task.
 */
export * from './slots';
export * from './approval-rule';
export * from './catalog';
export * from './file-edit';
export * from './fire-lane';
export * from './fire-runs';
export * from './scheduler';
export * from './watcher';
export * from './chat-executor';
export * from './view';
