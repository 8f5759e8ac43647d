/**
 * Cold start of `@reins/observation-cleaner`, run in a fresh process by `cleaner-bench.ts`
 * (`node --expose-gc --import tsx bench/cleaner-cold-start.ts`): module import time, the first
 * call's time and the heap it leaves (with the default estimated token counts, and with
 * `exactTokens`, which builds the cl100k ranks), and the heap retained after cleaning a 10 MB
 * input. Prints one JSON line.
 */
import { performance } from "node:perf_hooks";

const gc = (globalThis as { gc?: () => void }).gc;

/** Heap in use after full collections; a turn of the event loop between them lets V8 finish sweeping. */
async function heapMb(): Promise<number> {
  for (let round = 0; round < 3; round += 1) {
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return Math.round((process.memoryUsage().heapUsed / 1024 / 1024) * 10) / 10;
}

async function main(): Promise<void> {
  const heapBefore = await heapMb();
  const importStart = performance.now();
  const { cleanObservation } = await import("@reins/observation-cleaner");
  const importMs = performance.now() - importStart;
  const heapAfterImport = await heapMb();
  const firstStart = performance.now();
  cleanObservation('{"berth":4,"status":"free","from":"14:00"}');
  const firstCallMs = performance.now() - firstStart;
  const heapAfterFirstCall = await heapMb();
  const exactStart = performance.now();
  cleanObservation('{"berth":4,"status":"free","from":"14:00"}', { exactTokens: true });
  const firstExactCallMs = performance.now() - exactStart;
  const heapAfterExact = await heapMb();
  // In its own function, so no stack slot of this one still holds the input when the heap is measured.
  const cleanBig = (): { bigChars: number; kept: { cleanChars: number } } => {
    const big = JSON.stringify({ items: Array.from({ length: 60_000 }, (_, index) => ({ id: index, title: `Item ${index}`, price: `${index % 500}.00`, html_url: `https://example.com/items/${index}` })) });
    return { bigChars: big.length, kept: cleanObservation(big) };
  };
  const { bigChars, kept } = cleanBig();
  const heapRetained = Math.round(((await heapMb()) - heapAfterExact) * 10) / 10;
  process.stdout.write(
    `${JSON.stringify({ importMs, firstCallMs, firstExactCallMs, heapBefore, heapAfterImport, heapAfterFirstCall, heapAfterExact, bigChars, retainedAfterBigMb: heapRetained, keptChars: kept.cleanChars, gc: gc !== undefined })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
