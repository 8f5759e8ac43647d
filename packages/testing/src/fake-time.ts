/**
 * Time in the unit suite: jest's modern fake timers driven in virtual time, and a seeded PRNG for
 * the pauses that make concurrent runs interleave, so a test never waits on the wall clock and
 * interleaves the same way on every run, on a quiet machine or a loaded one.
 */

/**
 * Drives a promise to completion under jest's modern fake timers (`jest.useFakeTimers()` first),
 * advancing virtual time in small steps, and reports the virtual time it took. Tests assert on
 * virtual time only (no wall-clock timing).
 * @param promise - the work to settle
 * @param options - `stepMs` (virtual ms per step, default 10); `maxVirtualMs` (default 10 min)
 * @returns the promise's value and the virtual ms it took
 * @throws the promise's rejection; an Error when it has not settled after `maxVirtualMs`
 */
export async function settleWithFakeTimers<T>(
  promise: Promise<T>,
  options: { stepMs?: number; maxVirtualMs?: number } = {},
): Promise<{ value: T; elapsedMs: number }> {
  const stepMs = options.stepMs ?? 10;
  const maxVirtualMs = options.maxVirtualMs ?? 10 * 60_000;
  const startedAt = Date.now();
  let settled = false;
  let value: T | undefined;
  let failure: { error: unknown } | undefined;
  promise.then(
    (result) => {
      settled = true;
      value = result;
    },
    (error: unknown) => {
      settled = true;
      failure = { error };
    },
  );
  await jest.advanceTimersByTimeAsync(0);
  while (!settled) {
    if (Date.now() - startedAt > maxVirtualMs) throw new Error(`Promise did not settle within ${maxVirtualMs} ms of virtual time.`);
    await jest.advanceTimersByTimeAsync(stepMs);
  }
  if (failure !== undefined) throw failure.error;
  return { value: value as T, elapsedMs: Date.now() - startedAt };
}

/** A promise that never settles (a hung tool). */
export function never<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}

/**
 * Mulberry32: a small seeded PRNG, so random faults and pauses are the same on every run.
 * @param seed - any 32-bit integer
 * @returns a function giving the next number in [0, 1)
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
