export { ReplayOptionsError } from "./errors";
export { MAX_BODY_BYTES } from "./http";
export { applyStopSequences } from "./stop";
export {
  isScriptedHttpError,
  startReplayServer,
  type RecordedChatRequest,
  type ReplayRequestView,
  type ReplayResponder,
  type ReplayServer,
  type ReplayServerOptions,
  type ScriptedHttpError,
  type ScriptedOutput,
  type ScriptedToolCall,
  type ScriptedToolTurn,
} from "./replay-server";
export {
  startToolCallReplayServer,
  type ScriptedTurn,
  type ToolCallReplayServer,
  type ToolCallReplayServerOptions,
  type ToolCallRequestMessage,
} from "./tool-call-replay-server";
export { FALLBACK_OUTPUT, runWithReplayServer, type RunWithReplayServerOptions } from "./run-with-server";
export { parseScript, readTrajectory, type JsonScriptedOutput, type TrajectoryScript } from "./script";
export type { WireApi, WireMessage } from "./wire";
