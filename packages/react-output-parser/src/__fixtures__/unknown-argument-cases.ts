import { tool } from "@langchain/core/tools";
import { z } from "zod";

/**
 * The argument-name cases both agent paths are checked on (agent-middleware's and react-agent's
 * `unknown-arguments.test.ts`): a wrong name for a required field, and an extra name the schema
 * would strip silently.
 */
export type Args = Record<string, unknown>;

/** [case, the call's arguments, the unknown name the correction must name]. */
export const UNKNOWN_ARGUMENT_CASES: ReadonlyArray<readonly [string, Args, string]> = [
  ["city_name for the required city", { city_name: "Oslo" }, "city_name"],
  ["days_ahead beside the required city (the schema would strip it)", { city: "Oslo", days_ahead: 3 }, "days_ahead"],
];

/** `get_weather({ city, days? })`, which pushes every input it runs with to `ran`. */
export function recordingWeatherTool(ran: unknown[]) {
  return tool(
    async (input: { city: string; days?: number }) => {
      ran.push(input);
      return "sunny";
    },
    { name: "get_weather", description: "Weather of a city", schema: z.object({ city: z.string(), days: z.number().optional() }) },
  );
}
