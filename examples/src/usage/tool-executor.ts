/**
 * @reins/tool-executor, alone: wrap a flaky tool, a hanging tool and a side-effect tool, call them
 * as the AgentExecutor would, and read the observations the model gets. No tool failure throws
 * out, and none becomes an empty observation.
 *
 *   npx tsx examples/src/usage/run.ts tool-executor
 */
import { tool } from "@langchain/core/tools";
import type { ReinsEvent } from "@reins/core";
import { ToolExecutor } from "@reins/tool-executor";
import { z } from "zod";
import { printToStdout, type Print } from "./print";

/** What the example saw. */
export interface ToolExecutorExampleResult {
  readonly observations: Record<"weather" | "slowSearch" | "sendEmail", string>;
  /** Calls that reached the flaky weather service (the first two fail with HTTP 503). */
  readonly weatherAttempts: number;
  readonly events: readonly ReinsEvent[];
}

/** Runs the three calls and prints each observation. */
export async function main(print: Print = printToStdout): Promise<ToolExecutorExampleResult> {
  let weatherAttempts = 0;
  const weather = tool(
    async (city: string) => {
      weatherAttempts += 1;
      if (weatherAttempts <= 2) throw Object.assign(new Error("Service Unavailable"), { status: 503 });
      return `${city}: 22 °C, light rain`;
    },
    { name: "weather", description: "Current weather. Input: a city.", schema: z.string() },
  );
  // Ignores nothing: it stops its timer when the executor aborts the call at the deadline.
  const slowSearch = tool(
    (query: string, config) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => resolve(`results for ${query}`), 10_000);
        config?.signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new Error("aborted"));
        });
      }),
    { name: "slow_search", description: "Search. Input: a query.", schema: z.string() },
  );
  const sendEmail = tool(async ({ to }: { to: string; body: string; confirm?: boolean }) => `sent to ${to}`, {
    name: "send_email",
    description: "Send an email.",
    schema: z.object({ to: z.string(), body: z.string(), confirm: z.boolean().optional() }),
  });

  const events: ReinsEvent[] = [];
  const executor = new ToolExecutor({
    // Short delays so the example runs in a blink; production defaults are 250 ms → 4 s.
    defaults: { retry: { initialDelayMs: 5, maxDelayMs: 20, jitter: "none" } },
    policies: {
      slow_search: { timeoutMs: 50, retry: false },
      send_email: { sideEffects: true },
    },
    onEvent: (event) => events.push(event),
  });
  const [wrappedWeather, wrappedSlowSearch, wrappedSendEmail] = executor.wrap([weather, slowSearch, sendEmail]);

  const observations = {
    weather: String(await wrappedWeather.invoke("Paris")),
    slowSearch: String(await wrappedSlowSearch.invoke("reins")),
    sendEmail: String(await wrappedSendEmail.invoke({ to: "a@example.com", body: "hi" })),
  };
  print(`weather (503, 503, then ok after ${weatherAttempts} attempts): ${observations.weather}`);
  print(`slow_search (timeout 50 ms): ${observations.slowSearch}`);
  print(`send_email (side effects, not confirmed): ${observations.sendEmail}`);
  print(`events: ${events.map((event) => (event.type === "tool_call" ? `${event.type}:${event.toolName}:${event.outcome}` : event.type)).join(", ")}`);
  return { observations, weatherAttempts, events };
}
