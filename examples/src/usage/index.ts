import { main as core } from "./core";
import { main as loopControl } from "./loop-control";
import { main as metrics } from "./metrics";
import { main as observationCleaner } from "./observation-cleaner";
import type { Print } from "./print";
import { main as reactAgent } from "./react-agent";
import { main as reactOutputParser } from "./react-output-parser";
import { main as toolExecutor } from "./tool-executor";

/** Every usage example by package name (without the `@reins/` scope). */
export const USAGE_EXAMPLES: Readonly<Record<string, (print?: Print) => Promise<unknown>>> = Object.freeze({
  core,
  "react-output-parser": reactOutputParser,
  "tool-executor": toolExecutor,
  "observation-cleaner": observationCleaner,
  "loop-control": loopControl,
  metrics,
  "react-agent": reactAgent,
});
