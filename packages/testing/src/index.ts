export {
  REPO_ROOT,
  REQUIRE_ALL_VARIABLE,
  SHARED_DIR,
  describeRequiring,
  describeWithShared,
  sharedPath,
  unmetReason,
  type Requirement,
} from "./requirements";
export {
  ReplayChatModel,
  ScriptExhaustedError,
  ScriptedChatModel,
  actionReply,
  applyStopSequences,
  finalReply,
  promptTextOf,
  type ReplayUsage,
  type ScriptedCall,
  type ScriptedChatModelOptions,
  type ScriptedReply,
} from "./chat-models";
