import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";

/**
 * Tampering with a saved thread the way a writer of the checkpoint store would: the latest
 * checkpoint read through the saver's API, edited, and written back under the same checkpoint id
 * (so the paused run's pending interrupt stays), as `signed-state*.test.ts` do in one process and
 * in another.
 */

/** The tamperings of issue 33, by name. */
export const TAMPERINGS = {
  /** `metadata.reinsOutcome` stripped from every saved ToolMessage. */
  stripOutcomes: (values: Record<string, unknown>): void => {
    for (const message of values.messages as BaseMessage[]) {
      if (!ToolMessage.isInstance(message)) continue;
      const { reinsOutcome: _outcome, ...rest } = (message.metadata ?? {}) as Record<string, unknown>;
      message.metadata = rest;
    }
  },
  /** `reinsRun.inputMessageId` moved to the last saved message (the run's earlier calls fall outside it). */
  moveInputMessageId: (values: Record<string, unknown>): void => {
    const messages = values.messages as BaseMessage[];
    (values.reinsRun as Record<string, unknown>).inputMessageId = messages.at(-1)?.id;
  },
  /** `reinsRun.steps` cleared (the loop detectors' history). */
  clearSteps: (values: Record<string, unknown>): void => {
    (values.reinsRun as Record<string, unknown>).steps = [];
  },
  /** `reinsRun.modelCalls` set to 0 (the step budget's count). */
  resetModelCalls: (values: Record<string, unknown>): void => {
    (values.reinsRun as Record<string, unknown>).modelCalls = 0;
  },
  /** The whole record removed (its messages stay). */
  removeRecord: (values: Record<string, unknown>): void => {
    delete values.reinsRun;
  },
} as const;

/** Name of a tampering in {@link TAMPERINGS}. */
export type TamperingName = keyof typeof TAMPERINGS;

/** Edits the thread's latest checkpoint through the saver's API (`getTuple`, then `put` under the same id). */
export async function tamperCheckpoint(saver: BaseCheckpointSaver, threadId: string, edit: (values: Record<string, unknown>) => void): Promise<void> {
  const tuple = await saver.getTuple({ configurable: { thread_id: threadId } });
  if (tuple === undefined) throw new Error(`thread ${threadId} has no checkpoint`);
  edit(tuple.checkpoint.channel_values as Record<string, unknown>);
  const parentId = tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
  await saver.put({ configurable: { thread_id: threadId, checkpoint_ns: "", ...(parentId !== undefined ? { checkpoint_id: parentId } : {}) } }, tuple.checkpoint, tuple.metadata ?? { source: "loop", step: 0, parents: {} }, {});
}

/**
 * Adds a confirmed call to the paused AI message: `toolName` with `args` plus the confirmation
 * token read from the checkpoint (the last dry run's ToolMessage).
 * @returns the token used
 */
export function addConfirmedCall(values: Record<string, unknown>, toolName: string, args: Record<string, unknown>, id: string): string {
  const messages = values.messages as BaseMessage[];
  const dryRun = [...messages].reverse().find((message) => ToolMessage.isInstance(message) && message.metadata?.reinsOutcome === "dry_run");
  const token = /"confirm": "([^"]+)"/.exec(String(dryRun?.content ?? ""))?.[1];
  if (token === undefined) throw new Error("no dry-run token in the checkpoint");
  const paused = [...messages].reverse().find((message): message is AIMessage => AIMessage.isInstance(message));
  if (paused === undefined) throw new Error("no AI message in the checkpoint");
  paused.tool_calls = [...(paused.tool_calls ?? []), { name: toolName, args: { ...args, confirm: token }, id, type: "tool_call" }];
  return token;
}
