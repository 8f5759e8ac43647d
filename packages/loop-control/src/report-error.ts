/**
 * Hands an error to the `onError` option. An `onError` that throws must not break the run either:
 * both errors then go to a process warning (code `REINS_LOOP_CONTROL`), naming `source`.
 */
export function reportToOnError(onError: (error: unknown) => void, error: unknown, source: string): void {
  try {
    onError(error);
  } catch (onErrorFailure) {
    const describe = (value: unknown): string => (value instanceof Error ? value.message : String(value));
    process.emitWarning(`${source}: onError threw (${describe(onErrorFailure)}) while reporting: ${describe(error)}`, {
      code: "REINS_LOOP_CONTROL",
    });
  }
}
