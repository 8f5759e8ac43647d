export {
  REPO_ROOT,
  REQUIRE_ALL_VARIABLE,
  SHARED_DIR,
  describeRequiring,
  describeWithShared,
  findProgram,
  sharedPath,
  unmetReason,
  type Requirement,
} from "./requirements";
export {
  ReplayChatModel,
  ScriptExhaustedError,
  ScriptedChatModel,
  ScriptedLLM,
  actionReply,
  applyStopSequences,
  finalReply,
  promptTextOf,
  type ReplayUsage,
  type ScriptedCall,
  type ScriptedChatModelOptions,
  type ScriptedLLMOptions,
  type ScriptedReply,
} from "./chat-models";
export { freePort, postgresBinDirs, startPostgres, startRedis, type TestPostgres, type TestRedis } from "./services";
export { SECRET_SHAPES, leakedFragments, secretTail, type SecretShape } from "./secret-shapes";
export { never, seededRandom, settleWithFakeTimers } from "./fake-time";
