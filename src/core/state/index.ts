/**
 * The state layer (engine.md §6, §7): paths, system_config.yaml, AGENTS.md, skills, vault, project config
 * with models and command policy, schedules, memory, prompt assembly, approval modes, and the one-call
 * `loadAgentState` that composition builds Sessions from.
 */
export * from './paths';
export { describeValue, fileError, formatPath, type StateFileError, type StateIssue, type StateResult } from './errors';
export * from './placeholders';
export * from './system-config';
export * from './tool-config-schema';
export * from './project-config';
export * from './project-models';
export * from './model-setup';
export * from './model-record';
export * from './command-policy';
export * from './regex-compat';
export * from './approval';
export * from './vault';
export * from './skills';
export * from './use-skills';
export * from './schedules';
export * from './scheduled-task';
export * from './memory';
export * from './prompt-assembly';
export * from './prompt-environment';
export * from './workspace';
export * from './agent-state';
export { DEFAULT_SYSTEM_PROMPT } from './prompts/system-template';
export * from './prompts/section-prompts';
export * from './model-settings';
