import type { ModelPrice } from "./loop-control-options";

/**
 * The price of the first model name with an entry: exact names first (in the order given: the
 * provider's reported name, then the requested one), then the longest table key a name starts
 * with at a `-`, `:`, `@`, `/` or `.` boundary (`gpt-4o-mini` prices `gpt-4o-mini-2024-07-18`),
 * then the `"*"` entry.
 *
 * @param prices - price table keyed by model name (see `LoopControlOptions.prices`)
 * @param models - candidate model names, most authoritative first; `undefined` entries are skipped
 * @returns the price, or `undefined` when no entry applies
 */
export function findModelPrice(
  prices: Readonly<Record<string, ModelPrice>>,
  models: ReadonlyArray<string | undefined>,
): ModelPrice | undefined {
  const names = models.filter((model): model is string => model !== undefined && model.length > 0);
  for (const name of names) if (Object.hasOwn(prices, name)) return prices[name];
  for (const name of names) {
    let best: string | undefined;
    for (const key of Object.keys(prices)) {
      if (key === "*" || !name.startsWith(key) || !/^[-:@/.]/.test(name.slice(key.length))) continue;
      if (best === undefined || key.length > best.length) best = key;
    }
    if (best !== undefined) return prices[best];
  }
  return Object.hasOwn(prices, "*") ? prices["*"] : undefined;
}

/**
 * The cost of one model call in US dollars.
 * @param usage - tokens in and out
 * @param price - per-million-token prices
 */
export function costUsdOf(usage: { readonly inputTokens: number; readonly outputTokens: number }, price: ModelPrice): number {
  return (usage.inputTokens * price.inputUsdPerMillionTokens + usage.outputTokens * price.outputUsdPerMillionTokens) / 1e6;
}
