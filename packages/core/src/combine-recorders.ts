import { emitEvent, type ReinsEvent, type ReinsEventRecorder } from "./events";

/**
 * One recorder that sends every event to each of `recorders`, e.g. the Prometheus catalog and the
 * OpenTelemetry recorder together, for a piece's single `metrics` option. It asks for content
 * (`captureContent`) when any of them does, and passes `registerTools` to each that has it. A recorder that throws never stops the others: its
 * error goes to `onError` (default: ignored), as with {@link emitEvent}.
 *
 * @param recorders - the recorders; `undefined` entries are skipped
 * @param onError - called with any error a recorder throws
 * @returns the combined recorder
 * @example
 * ```ts
 * const metrics = combineRecorders(createAgentMetrics({ registry }), createOtelRecorder());
 * const agent = await createReactAgent({ llm, tools, prompt, metrics });
 * ```
 */
export function combineRecorders(
  recorders: ReadonlyArray<ReinsEventRecorder | undefined>,
  onError?: (error: unknown) => void,
): ReinsEventRecorder {
  const targets = recorders.filter((recorder): recorder is ReinsEventRecorder => recorder !== undefined);
  return Object.freeze({
    captureContent: targets.some((recorder) => recorder.captureContent === true),
    record: (event: ReinsEvent) => emitEvent(event, targets, onError),
    registerTools: (toolNames: readonly string[]) => {
      for (const recorder of targets) {
        try {
          recorder.registerTools?.(toolNames);
        } catch (error) {
          onError?.(error);
        }
      }
    },
  });
}
