import * as core from "@reins/core";
import { ReinsError, reinsErrorMarker, reinsErrorMarkerOf } from "@reins/core";
import * as metrics from "@reins/metrics";
import * as observationCleaner from "@reins/observation-cleaner";
import * as otel from "@reins/otel";
import * as redisStore from "@reins/redis-store";
import * as toolExecutor from "@reins/tool-executor";

/**
 * Every package on the one error scheme (`brandReinsError`, `ReinsError.isInstance`), by its
 * package name. @reins/loop-control, @reins/react-agent and @reins/react-output-parser join this
 * list once their errors.ts is branded.
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
  ...(agentMiddleware === undefined ? {} : { "agent-middleware": agentMiddleware }),
};

/** Exports whose name differs from their class's, kept for a deprecation period. */
const DEPRECATED_ALIASES: Readonly<Record<string, string>> = { "tool-executor.RunStoppedError": "StoppedRunCallError" };

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
    it("is exported under its own name (or a listed deprecated alias)", () => {
      expect(errorClass.name).toBe(DEPRECATED_ALIASES[`${packageName}.${exportName}`] ?? exportName);
    });

    it("is branded reins.<package>.<Name> and extends ReinsError", () => {
      expect(reinsErrorMarkerOf(errorClass)).toBe(reinsErrorMarker(packageName, errorClass.name));
      expect(errorClass === ReinsError || errorClass.prototype instanceof ReinsError).toBe(true);
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
        const related = other.errorClass.prototype instanceof errorClass;
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
