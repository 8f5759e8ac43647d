import * as core from "@reins/core";
import { ReinsError, hasReinsErrorMarker, reinsErrorMarker, reinsErrorMarkerOf } from "@reins/core";
import * as loopControl from "@reins/loop-control";
import * as metrics from "@reins/metrics";
import * as observationCleaner from "@reins/observation-cleaner";
import * as otel from "@reins/otel";
import * as reactAgent from "@reins/react-agent";
import * as reactOutputParser from "@reins/react-output-parser";
import * as redisStore from "@reins/redis-store";
import * as toolExecutor from "@reins/tool-executor";

/**
 * Every package on the one error scheme (`brandReinsError`, `ReinsError.isInstance`), by its
 * package name.
 */
/**
 * @reins/agent-middleware is built on langchain 1.x's `createAgent`: the LangChain 0.3 compat run
 * (REINS_LANGCHAIN_LINE=0.3, compat/setup-line.cjs) has no langchain 1.x to load it with, so there
 * its classes are not walked and a skipped test says so.
 */
const ON_LANGCHAIN_03 = process.env.REINS_LANGCHAIN_LINE === "0.3";
// eslint-disable-next-line @typescript-eslint/no-require-imports
const agentMiddleware = ON_LANGCHAIN_03 ? undefined : (require("@reins/agent-middleware") as Record<string, unknown>);

const BRANDED_PACKAGES: Readonly<Record<string, Record<string, unknown>>> = {
  core,
  metrics,
  "tool-executor": toolExecutor,
  "observation-cleaner": observationCleaner,
  "redis-store": redisStore,
  otel,
  "loop-control": loopControl,
  "react-agent": reactAgent,
  "react-output-parser": reactOutputParser,
  ...(agentMiddleware === undefined ? {} : { "agent-middleware": agentMiddleware }),
};

/**
 * Packages whose errors must extend a LangChain class instead of `ReinsError` (AgentExecutor
 * recognises parse failures with `instanceof OutputParserException`): their classes carry
 * `ReinsError`'s marker on the prototype, so `ReinsError.isInstance` still answers for them.
 */
const LANGCHAIN_BASED_PACKAGES: ReadonlySet<string> = new Set(["react-output-parser"]);

const REINS_ERROR_MARKER = reinsErrorMarker("core", "ReinsError");

/** Whether instances of `errorClass` count as instances of `base` under the error scheme. */
function isSubclassOf(errorClass: ErrorClass, base: ErrorClass): boolean {
  if (errorClass.prototype instanceof base) return true;
  return base === ReinsError && hasReinsErrorMarker(errorClass.prototype, REINS_ERROR_MARKER);
}

/** Names cockatiel exports for its own errors; a Reins error must not reuse one. */
const COCKATIEL_ERROR_NAMES = ["BrokenCircuitError", "BulkheadRejectedError", "IsolatedCircuitError", "TaskCancelledError"];

type ErrorClass = (abstract new (...args: never[]) => Error) & { isInstance(error: unknown): boolean };

function isErrorClass(value: unknown): value is ErrorClass {
  return typeof value === "function" && (value === Error || value.prototype instanceof Error);
}

const classes = Object.entries(BRANDED_PACKAGES).flatMap(([packageName, exports]) =>
  Object.entries(exports)
    .filter((entry): entry is [string, ErrorClass] => isErrorClass(entry[1]))
    .map(([exportName, errorClass]) => ({ packageName, exportName, errorClass })),
);

describe("the Reins error scheme", () => {
  (ON_LANGCHAIN_03 ? it.skip : it)("walks @reins/agent-middleware's error classes too (needs langchain 1.x, not on the 0.3 line)", () => {
    expect(classes.some((entry) => entry.packageName === "agent-middleware")).toBe(true);
  });

  it("finds the error classes of every branded package", () => {
    for (const packageName of Object.keys(BRANDED_PACKAGES)) {
      expect(classes.filter((entry) => entry.packageName === packageName).length).toBeGreaterThan(0);
    }
  });

  describe.each(classes)("$packageName $exportName", ({ packageName, exportName, errorClass }) => {
    it("is exported under its own name", () => {
      expect(errorClass.name).toBe(exportName);
    });

    it("is branded reins.<package>.<Name> and extends ReinsError (or carries its marker)", () => {
      expect(reinsErrorMarkerOf(errorClass)).toBe(reinsErrorMarker(packageName, errorClass.name));
      if (LANGCHAIN_BASED_PACKAGES.has(packageName)) expect(hasReinsErrorMarker(errorClass.prototype, REINS_ERROR_MARKER)).toBe(true);
      else expect(errorClass === ReinsError || errorClass.prototype instanceof ReinsError).toBe(true);
    });

    it("recognises its instances and a foreign copy's by the marker, and nothing else", () => {
      const instance = Object.create(errorClass.prototype) as Error;
      expect(errorClass.isInstance(instance)).toBe(true);
      expect(ReinsError.isInstance(instance)).toBe(true);
      const foreign = { [reinsErrorMarker(packageName, errorClass.name)]: true };
      expect(errorClass.isInstance(foreign)).toBe(true);
      expect(errorClass.isInstance(new Error("plain"))).toBe(false);
      expect(errorClass.isInstance(undefined)).toBe(false);
      expect(errorClass.isInstance("reins")).toBe(false);
      for (const other of classes) {
        if (other.errorClass === errorClass) continue;
        const related = isSubclassOf(other.errorClass, errorClass);
        expect(errorClass.isInstance(Object.create(other.errorClass.prototype))).toBe(related);
      }
    });
  });

  it("gives no two classes the same name, and none a name of cockatiel's errors", () => {
    const names = [...new Set(classes.map((entry) => entry.errorClass))].map((errorClass) => errorClass.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of COCKATIEL_ERROR_NAMES) expect(names).not.toContain(name);
  });
});
