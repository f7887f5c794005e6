/** Agent and Session composition: what hosts (gateway, SDK users) create and drive. */
export { createAgent, type Agent, type CreateSessionOptions, type ResumeError, type ResumeErrorCode, type ResumeResult } from './agent';
export { Session } from './session';
export {
  validateAgentOptions,
  type AgentOptions, type EngineSettings, type EnvironmentContext, type ModelDescriptor, type ModelFactoryContext, type SystemPromptContext, type TracedSessionInfo,
} from './options';
export { SessionSubagentRunner, SUBAGENT_DEPTH_LIMIT } from './subagents';
export { fallbackTitle, cleanTitle, TITLE_MAX } from './title';
export { SessionBusyError } from '../engine/reserved-stream';
