/** The context engine: the ReAct loop, its rules (approval, reconnect, carry-over, compaction) and trace replay. */
export { ContextEngine, type ContextEngineOptions, type EngineRunOptions, type EngineStatus } from './context-engine';
export { SessionBusyError } from './reserved-stream';
export { replayTrace, INTERRUPTED_BY_EXIT, type ResumeState } from './replay';
export { systemClock, type Clock } from './clock';
export { decide, withPolicy, DENIED_BY_POLICY, DENIED_BY_USER, type ApprovalVerdict, type CommandPolicy } from './approval';
export { MAX_RECONNECTS, reconnectDelayMs, exhaustionReason } from './reconnect';
export { INTERRUPTED_BY_USER } from './carry-over';
export {
  compactabilityOf, extractSummary, resolveCompaction, usableWindow,
  type Compactability, type CompactionConfig, type CompactionSettings,
} from './compaction';
export { noticeMessage } from './notices';
export { transcribeProduced, unwrapTurnBlock, downgradeGoalText } from './transcript';
export type { TraceSink } from './trace-sink';
