import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool, DynamicTool, StructuredTool, Tool, tool, type StructuredToolInterface } from "@langchain/core/tools";
import { z as zodV3Static } from "zod/v3";
import { RunContextStore, type ReinsEvent, type ToolCallEvent } from "@reins/core";
import { z } from "zod";
import { never, settleWithFakeTimers } from "./__fixtures__/fake-time";
import {
  BulkheadFullError,
  CallLimitExceededError,
  CircuitOpenError,
  DuplicateCallError,
  InMemoryToolResultStore,
  StoppedRunCallError,
  ToolExecutionError,
  ToolExecutor,
  ToolExecutorOptionsError,
  ToolResultCheckError,
  ToolTimeoutError,
  ToolValidationError,
  type ToolExecutorOptions,
} from "./index";

class NoopHandler extends BaseCallbackHandler {
  name = "noop";
}

function recorder(): { events: ReinsEvent[]; toolCalls: () => ToolCallEvent[]; options: Pick<ToolExecutorOptions, "onEvent"> } {
  const events: ReinsEvent[] = [];
  return {
    events,
    toolCalls: () => events.filter((event): event is ToolCallEvent => event.type === "tool_call"),
    options: { onEvent: (event) => events.push(event) },
  };
}

/** A string tool whose behaviour per call is scripted. */
function scriptedStringTool(name: string, behaviours: Array<(input: string, signal?: AbortSignal) => unknown>): { tool: DynamicTool; calls: string[]; signals: Array<AbortSignal | undefined> } {
  const calls: string[] = [];
  const signals: Array<AbortSignal | undefined> = [];
  const stringTool = new DynamicTool({
    name,
    description: `${name} tool`,
    func: async (input, _runManager, config) => {
      calls.push(input);
      signals.push(config?.signal);
      const behaviour = behaviours[Math.min(calls.length - 1, behaviours.length - 1)];
      return (await behaviour(input, config?.signal)) as string;
    },
  });
  return { tool: stringTool, calls, signals };
}

function expectModelFacing(observation: unknown): void {
  expect(typeof observation).toBe("string");
  const text = observation as string;
  expect(text.trim()).not.toBe("");
  expect(text).not.toMatch(/undefined|\[object Object\]|\n\s+at /);
}

afterEach(() => {
  jest.useRealTimers();
});

/** A tool body that hangs until its AbortSignal aborts, then rejects (a well-behaved slow tool). */
function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise<never>((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
}

/** One registered run and the config that puts a call in it (a token is bound to its run). */
function oneRun(runId = "run-1"): { runContext: RunContextStore; config: { runId: string } } {
  const runContext = new RunContextStore();
  runContext.start(runId);
  return { runContext, config: { runId } };
}

describe("ToolExecutor", () => {
  describe("wrapping", () => {
    it("keeps name, description, schema kind and returnDirect", () => {
      const stringTool = new DynamicTool({ name: "lookup", description: "Looks up a word.", func: async () => "x", returnDirect: true });
      const objectTool = tool(async ({ a }: { a: number }) => String(a), {
        name: "double",
        description: "Doubles a number.",
        schema: z.object({ a: z.number().describe("the number") }),
      });
      const [wrappedString, wrappedObject] = new ToolExecutor().wrap([stringTool, objectTool]);
      expect(wrappedString.name).toBe("lookup");
      expect(wrappedString.description).toBe("Looks up a word.");
      expect(wrappedString.returnDirect).toBe(true);
      expect(wrappedString.schema).toBe(stringTool.schema);
      expect(wrappedObject.name).toBe("double");
      expect(wrappedObject.schema).toBe(objectTool.schema);
    });

    it("adds an optional confirm field to object-schema side-effect tools", async () => {
      const sendEmail = tool(async () => "sent", {
        name: "send_email",
        description: "Sends an email.",
        schema: z.object({ to: z.string() }),
      });
      const [wrapped] = new ToolExecutor({ policies: { send_email: { sideEffects: true } } }).wrap([sendEmail]);
      const shape = (wrapped.schema as unknown as { shape: Record<string, unknown> }).shape;
      expect(Object.keys(shape).sort()).toEqual(["confirm", "to"]);
    });

    it.each(["constructor", "toString", "hasOwnProperty", "__proto__"])("wraps a tool named %s without a policy of that name", async (name) => {
      const named = scriptedStringTool(name, [(input) => `ok ${input}`]);
      const [wrapped] = new ToolExecutor({ policies: { other: { timeoutMs: 5 } } }).wrap([named.tool]);
      await expect(wrapped.invoke("x")).resolves.toBe("ok x");
    });

    it("fails fast naming the bad policy field", () => {
      expect(() => new ToolExecutor({ policies: { search: { retry: { maxAttempts: 0 } } } })).toThrow(ToolExecutorOptionsError);
      try {
        new ToolExecutor({ policies: { search: { retry: { maxAttempts: 0 } } } });
      } catch (error) {
        expect(ToolExecutorOptionsError.isInstance(error) && error.field).toBe("policies.search.retry.maxAttempts");
      }
    });
  });

  describe("timeout", () => {
    it("abandons a never-resolving tool at timeoutMs, aborts its signal and answers with a timeout observation", async () => {
      jest.useFakeTimers();
      const { events, toolCalls, options } = recorder();
      const hanging = scriptedStringTool("slow_search", [() => never()]);
      const [wrapped] = new ToolExecutor({ ...options, defaults: { timeoutMs: 2000, retry: false } }).wrap([hanging.tool]);
      const { value, elapsedMs } = await settleWithFakeTimers(wrapped.invoke("query"));
      expectModelFacing(value);
      expect(value).toContain('"slow_search" did not answer within 2 s');
      expect(elapsedMs).toBeGreaterThanOrEqual(2000);
      expect(elapsedMs).toBeLessThanOrEqual(2010);
      expect(hanging.signals[0]?.aborted).toBe(true);
      expect(toolCalls()[0]).toMatchObject({ toolName: "slow_search", outcome: "timeout" });
      expect(ToolTimeoutError.isInstance(toolCalls()[0].error)).toBe(true);
      expect(events.some((event) => event.type === "tool_retry")).toBe(false);
    });

    it("survives a tool whose abort listener throws: the deadline still answers and the failure is logged, not thrown", async () => {
      jest.useFakeTimers();
      const warnings: string[] = [];
      const faulty = scriptedStringTool("faulty", [
        (_input, signal) => {
          signal?.addEventListener("abort", () => {
            throw new Error("listener exploded");
          });
          return never();
        },
      ]);
      const [wrapped] = new ToolExecutor({ logger: { warn: (message) => warnings.push(message) }, defaults: { timeoutMs: 1000, retry: false } }).wrap([faulty.tool]);
      const { value } = await settleWithFakeTimers(wrapped.invoke("q"));
      expect(value).toMatch(/"faulty" did not answer within 1 s/);
      expect(faulty.signals[0]?.aborted).toBe(true);
      expect(warnings.some((message) => message.includes('An abort listener of tool "faulty" threw'))).toBe(true);
    });

    it("settles within timeoutMs × attempts + total backoff when an idempotent tool keeps hanging (and honours its signal)", async () => {
      jest.useFakeTimers();
      const { events, toolCalls, options } = recorder();
      const hanging = scriptedStringTool("slow", [(_input, signal) => untilAborted(signal)]);
      const [wrapped] = new ToolExecutor({
        ...options,
        defaults: { timeoutMs: 1000, idempotent: true, retry: { maxAttempts: 3, initialDelayMs: 100, maxDelayMs: 400, jitter: "none" } },
      }).wrap([hanging.tool]);
      const { value, elapsedMs } = await settleWithFakeTimers(wrapped.invoke("q"), { stepMs: 5 });
      expect(hanging.calls).toHaveLength(3);
      expect(elapsedMs).toBeLessThanOrEqual(1000 * 3 + 100 + 200 + 15);
      expect(value).toContain("tried 3 times");
      expect(events.filter((event) => event.type === "tool_retry")).toHaveLength(2);
      expect(toolCalls()[0].outcome).toBe("timeout");
    });
  });

  describe("thrown values", () => {
    it.each([
      ["a string", "quota exceeded", /quota exceeded/],
      ["a plain object with a message", { message: "bad gateway upstream" }, /bad gateway upstream/],
      ["a plain object without a message", { foo: 1 }, /threw an object: \{"foo":1\}/],
      ["undefined", undefined, /threw no error details|no error details/],
      ["null", null, /no error details/],
      ["an Error with an empty message", new Error(""), /Error with no message/],
      ["an Error with a stack-like multi-line message", new Error("first line\n    at Object.<anonymous> (file.ts:1:1)"), /first line/],
      ["an Error built from an object (message \"[object Object]\")", new Error({ code: 1 } as unknown as string), /failed: no details/],
      ["an Error whose message is \"undefined\"", new Error(String(undefined)), /failed: no details/],
      ["an Error quoting an object mid-message", new Error("upstream said [object Object] twice"), /upstream said \(an object\) twice/],
    ])("turns %s into a non-empty, meaningful observation and a ToolExecutionError", async (_label, thrown, expected) => {
      const { toolCalls, options } = recorder();
      const failing = scriptedStringTool("flaky", [
        () => {
          throw thrown;
        },
      ]);
      const [wrapped] = new ToolExecutor({ ...options, defaults: { retry: false } }).wrap([failing.tool]);
      const observation = await wrapped.invoke("x");
      expectModelFacing(observation);
      expect(observation).toMatch(/Tool "flaky" failed/);
      expect(observation).toMatch(expected);
      const event = toolCalls()[0];
      expect(event.outcome).toBe("error");
      expect(ToolExecutionError.isInstance(event.error)).toBe(true);
      expect((event.error as ToolExecutionError).cause).toBeInstanceOf(Error);
    });

    it("treats a returned Error as a failure", async () => {
      const returning = scriptedStringTool("returns_error", [() => new Error("upstream said no")]);
      const [wrapped] = new ToolExecutor({ defaults: { retry: false } }).wrap([returning.tool]);
      await expect(wrapped.invoke("x")).resolves.toMatch(/failed: upstream said no/);
    });
  });

  describe("retry", () => {
    it("succeeds on the third attempt after 503, 503", async () => {
      jest.useFakeTimers();
      const { events, toolCalls, options } = recorder();
      const flaky = scriptedStringTool("weather", [
        () => {
          throw Object.assign(new Error("Service Unavailable"), { status: 503 });
        },
        () => {
          throw { response: { status: 503 }, message: "Service Unavailable" };
        },
        () => "18 °C and sunny",
      ]);
      const [wrapped] = new ToolExecutor({ ...options, defaults: { retry: { maxAttempts: 3, initialDelayMs: 100, jitter: "none" } } }).wrap([flaky.tool]);
      const { value } = await settleWithFakeTimers(wrapped.invoke("Paris"));
      expect(value).toBe("18 °C and sunny");
      expect(flaky.calls).toHaveLength(3);
      expect(events.filter((event) => event.type === "tool_retry").map((event) => (event.type === "tool_retry" ? event.attempt : 0))).toEqual([2, 3]);
      expect(toolCalls()[0].outcome).toBe("success");
    });

    it.each([
      ["ECONNRESET", Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }), 2],
      ["HTTP 429", { statusCode: 429, message: "Too Many Requests" }, 2],
      ["HTTP 404", { status: 404, message: "Not Found" }, 1],
      ["a plain error", new Error("division by zero"), 1],
    ])("retries %s only when retryable (%p, expected calls %i)", async (_label, thrown, expectedCalls) => {
      jest.useFakeTimers();
      const flaky = scriptedStringTool("api", [
        () => {
          throw thrown;
        },
        () => "ok",
      ]);
      const [wrapped] = new ToolExecutor({ defaults: { retry: { maxAttempts: 2, initialDelayMs: 10, jitter: "none" } } }).wrap([flaky.tool]);
      await settleWithFakeTimers(wrapped.invoke("x"));
      expect(flaky.calls).toHaveLength(expectedCalls);
    });

    it("never retries a side-effect tool that is not declared idempotent", async () => {
      jest.useFakeTimers();
      const flaky = scriptedStringTool("charge_card", [
        () => {
          throw { status: 503, message: "unavailable" };
        },
        () => "charged",
      ]);
      // approve lets the call through at once (no dry run), so the retry rule is what is tested.
      const [wrapped] = new ToolExecutor({ policies: { charge_card: { sideEffects: true, approve: () => true } } }).wrap([flaky.tool]);
      const { value } = await settleWithFakeTimers(wrapped.invoke("10 EUR"));
      expect(flaky.calls).toHaveLength(1);
      expect(value).toMatch(/temporary error/);
    });

    it("retries a thrown 503 of a tool not declared idempotent: the attempt has ended, so nothing runs twice at once", async () => {
      jest.useFakeTimers();
      const flaky = scriptedStringTool("lookup", [
        () => {
          throw { status: 503, message: "unavailable" };
        },
        () => "found",
      ]);
      const [wrapped] = new ToolExecutor({ defaults: { retry: { jitter: "none", initialDelayMs: 10 } } }).wrap([flaky.tool]);
      const { value } = await settleWithFakeTimers(wrapped.invoke("q"));
      expect(flaky.calls).toHaveLength(2);
      expect(value).toBe("found");
    });

    it("uses retryOn instead of the default classification", async () => {
      jest.useFakeTimers();
      const flaky = scriptedStringTool("custom", [
        () => {
          throw new Error("try again please");
        },
        () => "done",
      ]);
      const [wrapped] = new ToolExecutor({
        defaults: { retry: { maxAttempts: 2, initialDelayMs: 1, jitter: "none", retryOn: (error) => /try again/.test(error.message) } },
      }).wrap([flaky.tool]);
      const { value } = await settleWithFakeTimers(wrapped.invoke("x"));
      expect(value).toBe("done");
    });
  });

  describe("circuit breaker", () => {
    it("answers at once without calling the tool after failureThreshold failures, and a half-open probe closes it", async () => {
      jest.useFakeTimers();
      const { events, toolCalls, options } = recorder();
      let healthy = false;
      const flaky = scriptedStringTool("inventory", [
        () => {
          if (healthy) return "42 in stock";
          throw { status: 500, message: "Internal Server Error" };
        },
      ]);
      const executor = new ToolExecutor({
        ...options,
        defaults: { retry: false, circuitBreaker: { failureThreshold: 3, halfOpenAfterMs: 10_000 } },
      });
      const [wrapped] = executor.wrap([flaky.tool]);
      for (let index = 0; index < 3; index += 1) await wrapped.invoke("sku-1");
      expect(flaky.calls).toHaveLength(3);
      expect(executor.circuitStateOf("inventory")).toBe("open");

      const whileOpen = await wrapped.invoke("sku-1");
      expect(flaky.calls).toHaveLength(3);
      expectModelFacing(whileOpen);
      expect(whileOpen).toMatch(/"inventory" is unavailable right now/);
      expect(whileOpen).toMatch(/use another tool/);
      expect(toolCalls()[3].outcome).toBe("circuit_open");
      expect(CircuitOpenError.isInstance(toolCalls()[3].error)).toBe(true);

      healthy = true;
      await jest.advanceTimersByTimeAsync(10_001);
      const probe = await wrapped.invoke("sku-1");
      expect(probe).toBe("42 in stock");
      expect(flaky.calls).toHaveLength(4);
      expect(executor.circuitStateOf("inventory")).toBe("closed");
      const states = events.filter((event) => event.type === "circuit_state").map((event) => (event.type === "circuit_state" ? event.state : ""));
      expect(states).toEqual(["open", "half_open", "closed"]);
    });
  });

  describe("fallback", () => {
    const failing = (): DynamicTool =>
      scriptedStringTool("primary", [
        () => {
          throw { status: 503, message: "down" };
        },
      ]).tool;

    it.each([
      ["a message", "Service degraded, using historical average: 17 °C.", "Service degraded, using historical average: 17 °C."],
      ["a value", { value: { temperature: 17 } }, '{"temperature":17}'],
      ["a function of the error and input", (error: Error, toolInput: unknown) => `fallback for ${String(toolInput)} after: ${error.name}`, "fallback for Berlin after: ToolExecutionError"],
    ])("answers with %s and reports outcome fallback with the cause", async (_label, fallback, expected) => {
      const { toolCalls, options } = recorder();
      const [wrapped] = new ToolExecutor({ ...options, defaults: { retry: false, fallback } }).wrap([failing()]);
      await expect(wrapped.invoke("Berlin")).resolves.toBe(expected);
      expect(toolCalls()[0].outcome).toBe("fallback");
      expect(ToolExecutionError.isInstance(toolCalls()[0].error)).toBe(true);
    });

    it("sends the same input to a backup tool", async () => {
      const { toolCalls, options } = recorder();
      const backup = scriptedStringTool("weather_history", [(input) => `historical average for ${input}: 16 °C`]);
      const [wrapped] = new ToolExecutor({ ...options, defaults: { retry: false }, policies: { primary: { fallback: { tool: "weather_history" } } } }).wrap([
        failing(),
        backup.tool,
      ]);
      const observation = await wrapped.invoke("Oslo");
      expect(observation).toContain('comes from "weather_history"');
      expect(observation).toContain("historical average for Oslo: 16 °C");
      expect(toolCalls().map((event) => event.outcome)).toEqual(["fallback"]);
    });
  });

  describe("fallback to a side-effect tool", () => {
    it("never calls the backup (it would skip dry run and confirmation), answers the original failure and logs the bad policy", async () => {
      const errors: string[] = [];
      const { toolCalls, options } = recorder();
      const refund = scriptedStringTool("refund", [(input) => `refunded ${input}`]);
      const primary = scriptedStringTool("charge", [
        () => {
          throw { status: 503, message: "gateway down" };
        },
      ]);
      const [wrapped] = new ToolExecutor({
        ...options,
        logger: { error: (message) => errors.push(message) },
        defaults: { retry: false },
        policies: { charge: { fallback: { tool: "refund" } }, refund: { sideEffects: true } },
      }).wrap([primary.tool, refund.tool]);
      const observation = await wrapped.invoke("order 7");
      expect(refund.calls).toEqual([]);
      expect(observation).toMatch(/^Tool "charge" failed with a temporary error: gateway down/);
      expect(toolCalls().map((event) => event.outcome)).toEqual(["error"]);
      expect(errors.some((message) => message.includes('"refund" has sideEffects'))).toBe(true);
    });
  });

  describe("cache", () => {
    it("serves an identical call within ttlMs from the cache and calls again after expiry", async () => {
      jest.useFakeTimers();
      const { toolCalls, options } = recorder();
      const counting = scriptedStringTool("search", [(input) => `results for ${input}`]);
      const [wrapped] = new ToolExecutor({ ...options, defaults: { cache: { ttlMs: 60_000, scope: "global" } } }).wrap([counting.tool]);
      expect(await wrapped.invoke("capital of France")).toBe("results for capital of France");
      expect(await wrapped.invoke("capital of France")).toBe("results for capital of France");
      expect(counting.calls).toHaveLength(1);
      expect(toolCalls().map((event) => event.outcome)).toEqual(["success", "cached"]);
      await jest.advanceTimersByTimeAsync(60_001);
      await wrapped.invoke("capital of France");
      expect(counting.calls).toHaveLength(2);
    });

    it("never caches failures and respects cacheable", async () => {
      const behaviours = [
        () => {
          throw new Error("nope");
        },
        () => "empty",
        () => "full",
      ];
      const counting = scriptedStringTool("search", behaviours);
      const [wrapped] = new ToolExecutor({
        defaults: { retry: false, cache: { ttlMs: 60_000, scope: "global", cacheable: (result) => result !== "empty" } },
      }).wrap([counting.tool]);
      await wrapped.invoke("q");
      await wrapped.invoke("q");
      await wrapped.invoke("q");
      await wrapped.invoke("q");
      expect(counting.calls).toHaveLength(3);
    });

    it("uses a custom store", async () => {
      const store = new InMemoryToolResultStore({ maxEntries: 10 });
      const counting = scriptedStringTool("search", [(input) => `r:${input}`]);
      const [wrapped] = new ToolExecutor({ defaults: { cache: { store, scope: "global" } } }).wrap([counting.tool]);
      await wrapped.invoke("a");
      expect(store.size).toBe(1);
    });
  });

  describe("cache with a store that keeps entries past their TTL", () => {
    it("does not serve an entry older than ttlMs", async () => {
      let clock = 1_000_000;
      const entries = new Map<string, { value: unknown; storedAtMs: number }>();
      const forgetfulStore = { get: (key: string) => entries.get(key), set: (key: string, entry: { value: unknown; storedAtMs: number }) => void entries.set(key, entry) };
      const counting = scriptedStringTool("search", [(input) => `r:${input}`]);
      const [wrapped] = new ToolExecutor({ now: () => clock, defaults: { cache: { ttlMs: 1000, scope: "global", store: forgetfulStore } } }).wrap([counting.tool]);
      await wrapped.invoke("a");
      clock += 999;
      await wrapped.invoke("a");
      expect(counting.calls).toEqual(["a"]);
      clock += 1;
      await wrapped.invoke("a");
      expect(counting.calls).toEqual(["a", "a"]);
    });
  });

  describe("cache with a key hook that throws", () => {
    it("calls the tool without the cache and logs a warning", async () => {
      const warnings: string[] = [];
      const counting = scriptedStringTool("search", [(input) => `r:${input}`]);
      const [wrapped] = new ToolExecutor({
        logger: { warn: (message) => warnings.push(message) },
        defaults: {
          cache: {
            scope: "global",
            key: () => {
              throw new Error("bad key");
            },
          },
        },
      }).wrap([counting.tool]);
      await expect(wrapped.invoke("a")).resolves.toBe("r:a");
      expect(counting.calls).toEqual(["a"]);
      expect(warnings.some((message) => message.includes("cache.key or cache.scope threw"))).toBe(true);
    });
  });

  describe("side effects", () => {
    /** The confirmation token a dry-run observation asks for. */
    function tokenOf(observation: unknown): string {
      const token = /"confirm": "(ok-[0-9a-f]{8})"/.exec(String(observation))?.[1];
      if (token === undefined) throw new Error(`no confirmation token in ${String(observation)}`);
      return token;
    }

    function emailTool(): { tool: DynamicStructuredTool; sent: unknown[] } {
      const sent: unknown[] = [];
      const sendEmail = tool(
        async (input: { to: string; subject: string }) => {
          sent.push(input);
          return `sent to ${input.to}`;
        },
        { name: "send_email", description: "Sends an email.", schema: z.object({ to: z.string(), subject: z.string() }) },
      ) as DynamicStructuredTool;
      return { tool: sendEmail, sent };
    }

    it("returns a dry-run preview and never runs the tool without confirmation", async () => {
      const { toolCalls, options } = recorder();
      const email = emailTool();
      const { runContext, config } = oneRun();
      const [wrapped] = new ToolExecutor({ ...options, runContext, policies: { send_email: { sideEffects: true } } }).wrap([email.tool]);
      const observation = await wrapped.invoke({ to: "a@example.com", subject: "Hi" }, config);
      expect(email.sent).toHaveLength(0);
      expect(observation).toMatch(/^DRY RUN: tool "send_email" has side effects and was NOT executed/);
      expect(observation).toMatch(/"confirm": "ok-[0-9a-f]{8}"/);
      expect(toolCalls()[0].outcome).toBe("dry_run");
    });

    it("outside an identifiable run, shows no token and accepts none: only approve runs the call", async () => {
      const { toolCalls, options } = recorder();
      const warnings: string[] = [];
      const email = emailTool();
      const executor = new ToolExecutor({ ...options, logger: { warn: (message) => warnings.push(message) }, policies: { send_email: { sideEffects: true } } });
      const [wrapped] = executor.wrap([email.tool]);
      const observation = String(await wrapped.invoke({ to: "a@example.com", subject: "Hi" }));
      expect(observation).toMatch(/^DRY RUN: tool "send_email" has side effects and was NOT executed/);
      expect(observation).toMatch(/needs the application's approval \(an approve hook\) or a run that can be identified/);
      expect(observation).not.toMatch(/ok-[0-9a-f]{8}/);
      // A token issued in a run, replayed outside any run, never runs the tool.
      const { runContext, config } = oneRun();
      const [inRun] = new ToolExecutor({ runContext, policies: { send_email: { sideEffects: true } } }).wrap([email.tool]);
      const token = tokenOf(await inRun.invoke({ to: "a@example.com", subject: "Hi" }, config));
      expect(String(await wrapped.invoke({ to: "a@example.com", subject: "Hi", confirm: token }))).toMatch(/^DRY RUN.*cannot be confirmed from here/);
      expect(String(await wrapped.invoke({ to: "a@example.com", subject: "Hi", confirm: token }))).toMatch(/^DRY RUN/);
      expect(email.sent).toHaveLength(0);
      expect(toolCalls().map((event) => event.outcome)).toEqual(["dry_run", "dry_run", "dry_run"]);
      expect(warnings.filter((warning) => /outside an identifiable run/.test(warning))).toHaveLength(1);
      const [approved] = new ToolExecutor({ policies: { send_email: { sideEffects: true, approve: () => true } } }).wrap([email.tool]);
      expect(await approved.invoke({ to: "a@example.com", subject: "Hi" })).toBe("sent to a@example.com");
    });

    it("runs with the dry run's token, passes the input without confirm, and drops a repeat in the same run", async () => {
      const { toolCalls, options } = recorder();
      const store = new RunContextStore();
      store.start("run-1");
      store.link("tool-run-0", "run-1");
      store.link("tool-run-1", "run-1");
      store.link("tool-run-2", "run-1");
      const email = emailTool();
      const [wrapped] = new ToolExecutor({ ...options, runContext: store, policies: { send_email: { sideEffects: true } } }).wrap([email.tool]);
      const preview = await wrapped.invoke({ to: "a@example.com", subject: "Hi" }, { runId: "tool-run-0", callbacks: [new NoopHandler()] });
      const input = { to: "a@example.com", subject: "Hi", confirm: tokenOf(preview) };
      expect(await wrapped.invoke(input, { runId: "tool-run-1", callbacks: [new NoopHandler()] })).toBe("sent to a@example.com");
      const repeat = await wrapped.invoke(input, { runId: "tool-run-2", callbacks: [new NoopHandler()] });
      expect(email.sent).toEqual([{ to: "a@example.com", subject: "Hi" }]);
      expect(repeat).toMatch(/already run with this input in this task/);
      expect(repeat).toContain("sent to a@example.com");
      expect(toolCalls().map((event) => [event.outcome, event.runId])).toEqual([
        ["dry_run", "run-1"],
        ["success", "run-1"],
        ["rejected", "run-1"],
      ]);
      expect(DuplicateCallError.isInstance(toolCalls()[2].error)).toBe(true);
    });

    it("confirms a string tool with {input, confirm: token} and runs it with the input alone", async () => {
      const deleter = scriptedStringTool("delete_file", [(input) => `deleted ${input}`]);
      const { runContext, config } = oneRun();
      const [wrapped] = new ToolExecutor({ runContext, policies: { delete_file: { sideEffects: true } } }).wrap([deleter.tool]);
      const preview = await wrapped.invoke("/tmp/a.txt", config);
      expect(preview).toMatch(/DRY RUN.*\{"input": "\/tmp\/a.txt", "confirm": "ok-[0-9a-f]{8}"\}/);
      expect(await wrapped.invoke("CONFIRM: /tmp/a.txt", config)).toMatch(/^DRY RUN/);
      expect(deleter.calls).toHaveLength(0);
      expect(await wrapped.invoke(JSON.stringify({ input: "/tmp/a.txt", confirm: tokenOf(preview) }), config)).toBe("deleted /tmp/a.txt");
    });

    describe("when the confirmed call never reaches the tool", () => {
      function inRun(store: RunContextStore, runId: string): () => { runId: string; callbacks: NoopHandler[] } {
        let n = 0;
        return () => {
          n += 1;
          const config = { runId: `${runId}-tool-${n}`, callbacks: [new NoopHandler()] };
          store.link(config.runId, runId);
          return config;
        };
      }

      it("does not mark the input as done when the call cap rejected it", async () => {
        const { toolCalls, options } = recorder();
        const store = new RunContextStore();
        store.start("run-1");
        const next = inRun(store, "run-1");
        const email = emailTool();
        const [wrapped] = new ToolExecutor({ ...options, runContext: store, policies: { send_email: { sideEffects: true, maxCallsPerRun: 1 } } }).wrap([email.tool]);
        const tokenA = tokenOf(await wrapped.invoke({ to: "a@example.com", subject: "Hi" }, next()));
        await wrapped.invoke({ to: "a@example.com", subject: "Hi", confirm: tokenA }, next());
        const tokenB = tokenOf(await wrapped.invoke({ to: "b@example.com", subject: "Hi" }, next()));
        const capped = await wrapped.invoke({ to: "b@example.com", subject: "Hi", confirm: tokenB }, next());
        const again = await wrapped.invoke({ to: "b@example.com", subject: "Hi", confirm: tokenB }, next());
        expect(capped).toMatch(/already called 1 times in this task, its limit/);
        expect(again).toMatch(/already called 1 times in this task, its limit/);
        expect(again).not.toMatch(/already run with this input/);
        expect(email.sent).toEqual([{ to: "a@example.com", subject: "Hi" }]);
        expect(toolCalls().map((event) => event.error?.name)).toEqual([undefined, undefined, undefined, "CallLimitExceededError", "CallLimitExceededError"]);
      });

      it("lets the same confirmed input run once the open circuit lets calls through again", async () => {
        jest.useFakeTimers();
        const store = new RunContextStore();
        store.start("run-1");
        const next = inRun(store, "run-1");
        let attempts = 0;
        const pay = tool(
          async (input: { amount: number }) => {
            attempts += 1;
            if (input.amount === 1) throw Object.assign(new Error("gateway down"), { status: 503 });
            return `paid ${input.amount}`;
          },
          { name: "pay", description: "Pays.", schema: z.object({ amount: z.number() }) },
        );
        const [wrapped] = new ToolExecutor({
          runContext: store,
          policies: { pay: { sideEffects: true, circuitBreaker: { failureThreshold: 1, halfOpenAfterMs: 1000 } } },
        }).wrap([pay]);
        await wrapped.invoke({ amount: 1, confirm: tokenOf(await wrapped.invoke({ amount: 1 }, next())) }, next());
        const token = tokenOf(await wrapped.invoke({ amount: 2 }, next()));
        const whileOpen = await wrapped.invoke({ amount: 2, confirm: token }, next());
        expect(whileOpen).toMatch(/"pay" is unavailable right now/);
        jest.advanceTimersByTime(1000);
        const afterOpen = await wrapped.invoke({ amount: 2, confirm: token }, next());
        expect(afterOpen).toBe("paid 2");
        expect(attempts).toBe(2);
      });

      it("still drops a repeat of a confirmed call that started and then failed (the action may have happened)", async () => {
        const store = new RunContextStore();
        store.start("run-1");
        const next = inRun(store, "run-1");
        const failing = scriptedStringTool("charge", [() => Promise.reject(Object.assign(new Error("reset"), { code: "ECONNRESET" }))]);
        const [wrapped] = new ToolExecutor({ runContext: store, policies: { charge: { sideEffects: true } } }).wrap([failing.tool]);
        const confirmed = JSON.stringify({ input: "card 1", confirm: tokenOf(await wrapped.invoke("card 1", next())) });
        await wrapped.invoke(confirmed, next());
        expect(await wrapped.invoke(confirmed, next())).toMatch(/already run with this input in this task/);
        expect(failing.calls).toEqual(["card 1"]);
      });
    });
  });

  describe("bulkhead", () => {
    it("rejects calls beyond maxConcurrent + maxQueued with a clear observation", async () => {
      const { toolCalls, options } = recorder();
      let release: (value: string) => void = () => undefined;
      const blocking = scriptedStringTool("render", [() => new Promise<string>((resolve) => (release = resolve)), () => "second"]);
      const [wrapped] = new ToolExecutor({ ...options, defaults: { bulkhead: { maxConcurrent: 1, maxQueued: 0 } } }).wrap([blocking.tool]);
      const first = wrapped.invoke("a");
      await new Promise((resolve) => setImmediate(resolve));
      const rejected = await wrapped.invoke("b");
      expectModelFacing(rejected);
      expect(rejected).toMatch(/"render" is busy \(1 calls already running/);
      release("first done");
      expect(await first).toBe("first done");
      expect(blocking.calls).toEqual(["a"]);
      expect(toolCalls().map((event) => event.outcome).sort()).toEqual(["rejected", "success"]);
      expect(BulkheadFullError.isInstance(toolCalls().find((event) => event.outcome === "rejected")?.error)).toBe(true);
    });
  });

  describe("maxCallsPerRun", () => {
    it("rejects calls beyond the cap within one run and starts afresh for another run", async () => {
      const { toolCalls, options } = recorder();
      const store = new RunContextStore();
      store.start("run-a");
      store.start("run-b");
      const counting = scriptedStringTool("search", [(input) => `r:${input}`]);
      const [wrapped] = new ToolExecutor({ ...options, runContext: store, defaults: { maxCallsPerRun: 2 } }).wrap([counting.tool]);
      const inRun = (runId: string) => ({ runId: `${runId}-${Math.random()}`, callbacks: [new NoopHandler()] });
      for (const input of ["1", "2", "3"]) {
        const config = inRun("run-a");
        store.link(config.runId, "run-a");
        await wrapped.invoke(input, config);
      }
      const other = inRun("run-b");
      store.link(other.runId, "run-b");
      await wrapped.invoke("4", other);
      expect(counting.calls).toEqual(["1", "2", "4"]);
      expect(toolCalls().map((event) => event.outcome)).toEqual(["success", "success", "rejected", "success"]);
      expect(CallLimitExceededError.isInstance(toolCalls()[2].error)).toBe(true);
    });
  });

  describe("result checks", () => {
    it("retries a ghost failure (HTTP 200 body with code 500) and reports it with label code_mismatch", async () => {
      jest.useFakeTimers();
      const { toolCalls, options } = recorder();
      const ghost = scriptedStringTool("orders", [() => '{"code":500,"msg":"system busy"}']);
      const [wrapped] = new ToolExecutor({ ...options, defaults: { retry: { maxAttempts: 2, initialDelayMs: 10, jitter: "none" } } }).wrap([ghost.tool]);
      const { value } = await settleWithFakeTimers(wrapped.invoke("list"));
      expect(ghost.calls).toHaveLength(2);
      expect(value).toMatch(/answered, but the result reports a failure \(code_mismatch: code 500: system busy\)/);
      const error = toolCalls()[0].error;
      expect(ToolResultCheckError.isInstance(error) && error.label).toBe("code_mismatch");
    });

    it("awaits an async checkResult and retries a custom failure that carries a 5xx status", async () => {
      jest.useFakeTimers();
      const { toolCalls, options } = recorder();
      const quotes = scriptedStringTool("quotes", [() => "stale", () => "fresh"]);
      const [wrapped] = new ToolExecutor({
        ...options,
        defaults: {
          retry: { maxAttempts: 2, initialDelayMs: 5, jitter: "none" },
          checkResult: async (result) => (result === "stale" ? { label: "stale_data", detail: "quote older than 1 min", status: 503 } : undefined),
        },
      }).wrap([quotes.tool]);
      const { value } = await settleWithFakeTimers(wrapped.invoke("ACME"));
      expect(value).toBe("fresh");
      expect(quotes.calls).toHaveLength(2);
      expect(toolCalls()[0].outcome).toBe("success");
    });

    it("applies requiredFields and a custom checkResult", async () => {
      const objectTool = tool(async () => ({ data: { items: null } }), { name: "list", description: "Lists.", schema: z.object({}) });
      const [wrapped] = new ToolExecutor({ defaults: { retry: false, resultChecks: { requiredFields: ["data.items"] } } }).wrap([objectTool]);
      await expect(wrapped.invoke({})).resolves.toMatch(/missing_field: missing "data.items"/);
      const custom = tool(async () => "n/a", { name: "custom", description: "C." });
      const [wrappedCustom] = new ToolExecutor({ defaults: { retry: false, checkResult: (result) => (result === "n/a" ? "placeholder answer" : undefined) } }).wrap([custom]);
      await expect(wrappedCustom.invoke("x")).resolves.toMatch(/check_failed: placeholder answer/);
    });
  });

  describe("input validation", () => {
    const add = (): DynamicStructuredTool =>
      tool(async ({ a, b }: { a: number; b: number }) => a + b, {
        name: "add",
        description: "Adds.",
        schema: z.object({ a: z.number(), b: z.number() }),
      }) as DynamicStructuredTool;

    it("parses a JSON string (even fenced) for an object-schema tool", async () => {
      const [wrapped] = new ToolExecutor().wrap([add()]);
      await expect(wrapped.invoke('```json\n{"a": 2, "b": 3}\n```')).resolves.toBe("5");
    });

    it("answers field-level messages and outcome invalid_input instead of throwing", async () => {
      const { toolCalls, options } = recorder();
      const [wrapped] = new ToolExecutor(options).wrap([add()]);
      const observation = await wrapped.invoke({ a: "two" });
      expect(observation).toMatch(/^Invalid input for tool "add": a: .*number.*; b: .*number/);
      expect(toolCalls()[0].outcome).toBe("invalid_input");
      expect(ToolValidationError.isInstance(toolCalls()[0].error)).toBe(true);
      await expect(wrapped.invoke("a=2, b=3")).resolves.toMatch(/must be a JSON object \(an object with "a", "b"\)/);
    });

    it("applies the policy's validate schema and sanitize hook", async () => {
      const echo = scriptedStringTool("echo", [(input) => `echo:${input}`]);
      const [wrapped] = new ToolExecutor({
        policies: { echo: { validate: z.string().min(3, "must be at least 3 characters"), sanitize: (input) => String(input).toUpperCase() } },
      }).wrap([echo.tool]);
      await expect(wrapped.invoke("ab")).resolves.toMatch(/must be at least 3 characters/);
      await expect(wrapped.invoke("abc")).resolves.toBe("echo:ABC");
    });
  });

  describe("observations", () => {
    it("applies formatObservation last to successful results and never returns a blank", async () => {
      const objectResult = tool(async () => ({ temperature: 18 }), { name: "weather", description: "W." });
      const blank = tool(async () => "", { name: "blank", description: "B." });
      const executor = new ToolExecutor({ formatObservation: (result, { toolName }) => (toolName === "weather" ? `cleaned:${JSON.stringify(result)}` : "  ") });
      const [weather, blankTool] = executor.wrap([objectResult, blank]);
      await expect(weather.invoke("x")).resolves.toBe('cleaned:{"temperature":18}');
      await expect(blankTool.invoke("x")).resolves.toBe('Tool "blank" returned no data.');
    });

    it("appends and drains the run's pending loop notes after the call settles", async () => {
      const store = new RunContextStore();
      const context = store.start("run-1");
      store.link("tool-run", "run-1");
      context.loop.pendingNotes.push("You already called search with this input.");
      const search = scriptedStringTool("search", [() => "result"]);
      const [wrapped] = new ToolExecutor({ runContext: store }).wrap([search.tool]);
      await expect(wrapped.invoke("q", { runId: "tool-run", callbacks: [new NoopHandler()] })).resolves.toBe(
        "result\n\nYou already called search with this input.",
      );
      expect(context.loop.pendingNotes).toEqual([]);
    });

    describe("when the run's loop controller has decided to stop", () => {
      it("does not call the tool, answers a short stop note and reports rejected with a StoppedRunCallError", async () => {
        const { toolCalls, options } = recorder();
        const store = new RunContextStore();
        const context = store.start("run-1");
        store.link("tool-run", "run-1");
        context.loop.stop = { reason: "repeat", message: "The same action was repeated 3 times." };
        const search = scriptedStringTool("search", [() => "result"]);
        const [wrapped] = new ToolExecutor({ ...options, runContext: store, policies: { search: { cache: true } } }).wrap([search.tool]);
        const observation = await wrapped.invoke("q", { runId: "tool-run", callbacks: [new NoopHandler()] });
        expectModelFacing(observation);
        expect(observation).toMatch(/^Tool "search" was not called: this task is being stopped/);
        expect(observation).toMatch(/give your final answer now/);
        expect(search.calls).toEqual([]);
        expect(toolCalls()).toHaveLength(1);
        expect(toolCalls()[0]).toMatchObject({ toolName: "search", outcome: "rejected", runId: "run-1" });
        const error = toolCalls()[0].error;
        expect(StoppedRunCallError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ toolName: "search", stopReason: "repeat", runId: "run-1" });
      });

      it("still calls the tool in another run of the same store", async () => {
        const store = new RunContextStore();
        store.start("run-1").loop.stop = { reason: "cycle", message: "A cycle." };
        store.start("run-2");
        store.link("tool-run-2", "run-2");
        const search = scriptedStringTool("search", [() => "result"]);
        const [wrapped] = new ToolExecutor({ runContext: store }).wrap([search.tool]);
        await expect(wrapped.invoke("q", { runId: "tool-run-2", callbacks: [new NoopHandler()] })).resolves.toBe("result");
        expect(search.calls).toEqual(["q"]);
      });
    });

    it("keeps the artifact of a content_and_artifact tool and observes its content", async () => {
      const search = tool(async (query: string) => [`2 results for ${query}`, { hits: [1, 2] }], {
        name: "search",
        description: "S.",
        responseFormat: "content_and_artifact",
      });
      const [wrapped] = new ToolExecutor({ defaults: { cache: true } }).wrap([search]);
      await expect(wrapped.invoke("cats")).resolves.toBe("2 results for cats");
      const message = await wrapped.invoke({ name: "search", args: { input: "dogs" }, id: "call_9", type: "tool_call" });
      expect(message).toBeInstanceOf(ToolMessage);
      expect((message as ToolMessage).content).toBe("2 results for dogs");
      expect((message as ToolMessage).artifact).toEqual({ hits: [1, 2] });
    });

    it("declares content_and_artifact: a cut observation's ToolMessage carries the whole raw result", async () => {
      const rows = Array.from({ length: 2000 }, (_, index) => ({ id: index, name: `row ${index}` }));
      const list = tool(async () => ({ rows }), { name: "list", description: "L.", schema: z.object({ page: z.number() }) });
      const [wrapped] = new ToolExecutor({ formatObservation: (value) => JSON.stringify(value).slice(0, 100) }).wrap([list]);
      expect((wrapped as { responseFormat?: string }).responseFormat).toBe("content_and_artifact");
      const message = (await wrapped.invoke({ name: "list", args: { page: 1 }, id: "call_7", type: "tool_call" })) as ToolMessage;
      // The cut JSON ends inside its objects: the neutraliser quotes the unclosed openings (and the
      // cut `"name"` key), so a following result cannot complete it into a call; nothing else changes.
      const content = String(message.content);
      expect(content.replace(/[«»]/g, "")).toBe(JSON.stringify({ rows }).slice(0, 100));
      expect(content.startsWith('«{»"rows":«[»')).toBe(true);
      expect(message.artifact).toEqual({ rows });
    });

    it("returns a ToolMessage with status error when called with a ToolCall (ToolNode, createAgent)", async () => {
      const failing = scriptedStringTool("search", [
        () => {
          throw new Error("index offline");
        },
      ]);
      const [wrapped] = new ToolExecutor({ defaults: { retry: false } }).wrap([failing.tool]);
      const message = await wrapped.invoke({ name: "search", args: { input: "q" }, id: "call_1", type: "tool_call" });
      expect(message).toBeInstanceOf(ToolMessage);
      expect((message as ToolMessage).status).toBe("error");
      expect((message as ToolMessage).tool_call_id).toBe("call_1");
      expect(String((message as ToolMessage).content)).toMatch(/index offline/);
    });
  });
});

describe("ToolExecutor callbacks", () => {
  class ToolRunRecorder extends BaseCallbackHandler {
    name = "tool-run-recorder";
    readonly starts: Array<{ runId: string; parentRunId?: string }> = [];

    async handleToolStart(_tool: unknown, _input: string, runId: string, parentRunId?: string): Promise<void> {
      this.starts.push({ runId, parentRunId });
    }
  }

  describe("by default", () => {
    it("reports exactly one tool run per call", async () => {
      const handler = new ToolRunRecorder();
      const [wrapped] = new ToolExecutor().wrap([new DynamicTool({ name: "t", description: "T.", func: async () => "ok" })]);
      await wrapped.invoke("x", { callbacks: [handler] });
      expect(handler.starts).toHaveLength(1);
    });
  });

  describe("with forwardCallbacks", () => {
    it("nests the original tool's run under the wrapper's run", async () => {
      const handler = new ToolRunRecorder();
      const [wrapped] = new ToolExecutor({ forwardCallbacks: true }).wrap([new DynamicTool({ name: "t", description: "T.", func: async () => "ok" })]);
      await wrapped.invoke("x", { callbacks: [handler] });
      expect(handler.starts).toHaveLength(2);
      expect(handler.starts[1].parentRunId).toBe(handler.starts[0].runId);
    });
  });
});

describe("ToolExecutor cancellation", () => {
  describe("when the caller's signal aborts mid-call", () => {
    it("stops without retrying and tells the model the call was cancelled", async () => {
      const { toolCalls, options } = recorder();
      const hanging = scriptedStringTool("slow", [() => never()]);
      const [wrapped] = new ToolExecutor({ ...options, defaults: { retry: { maxAttempts: 3, initialDelayMs: 1 } } }).wrap([hanging.tool]);
      const controller = new AbortController();
      const pending = wrapped.invoke("x", { signal: controller.signal });
      await new Promise((resolve) => setImmediate(resolve));
      controller.abort();
      const observation = await pending;
      expect(observation).toBe('Tool "slow" was cancelled before it finished.');
      expect(hanging.calls).toHaveLength(1);
      expect(toolCalls()[0].outcome).toBe("error");
    });
  });
});

describe("ToolExecutor tool kinds", () => {
  class EchoObjectTool extends StructuredTool {
    name = "echo_subclass";
    description = "Echoes q.";
    schema = z.object({ q: z.string() });
    protected async _call(input: { q: string }): Promise<string> {
      return `echo ${input.q}`;
    }
  }
  class EchoStringTool extends Tool {
    name = "echo_string_subclass";
    description = "Echoes its input.";
    protected async _call(input: string): Promise<string> {
      return `echo ${input}`;
    }
  }
  const echo = async (input: string | { q: string }): Promise<string> => `echo ${typeof input === "string" ? input : input.q}`;
  const kinds: ReadonlyArray<[string, () => StructuredToolInterface, "string" | "object"]> = [
    ["tool() with a string input", () => tool(echo, { name: "t_string", description: "Echoes." }), "string"],
    ["tool() with a zod v4 object schema", () => tool(echo, { name: "t_v4", description: "Echoes.", schema: z.object({ q: z.string() }) }), "object"],
    ["tool() with a zod v3 object schema", () => tool(echo, { name: "t_v3", description: "Echoes.", schema: zodV3Static.object({ q: zodV3Static.string() }) }), "object"],
    ["DynamicTool", () => new DynamicTool({ name: "dynamic", description: "Echoes.", func: echo }), "string"],
    ["DynamicStructuredTool", () => new DynamicStructuredTool({ name: "dynamic_structured", description: "Echoes.", schema: z.object({ q: z.string() }), func: echo }), "object"],
    ["a StructuredTool subclass", () => new EchoObjectTool(), "object"],
    ["a Tool subclass", () => new EchoStringTool(), "string"],
  ];

  describe.each(kinds)("with %s", (_label, make, kind) => {
    const input = kind === "string" ? "hello" : { q: "hello" };

    it("answers a plain input, a JSON/text input and a LangGraph ToolCall like the original", async () => {
      const original = make();
      const [wrapped] = new ToolExecutor().wrap([original]);
      expect(wrapped.name).toBe(original.name);
      await expect(wrapped.invoke(input as never)).resolves.toBe("echo hello");
      await expect(wrapped.invoke((kind === "string" ? "hello" : '{"q":"hello"}') as never)).resolves.toBe("echo hello");
      const args = kind === "string" ? { input: "hello" } : { q: "hello" };
      const message = await wrapped.invoke({ id: "call-1", name: original.name, args, type: "tool_call" } as never);
      expect(message).toBeInstanceOf(ToolMessage);
      expect(message).toMatchObject({ content: "echo hello", tool_call_id: "call-1", name: original.name });
    });

  });

  describe.each(kinds.filter(([, , kind]) => kind === "object"))("with %s and invalid ToolCall args", (_label, make) => {
    it("answers an error ToolMessage with field-level messages instead of throwing", async () => {
      const original = make();
      const [wrapped] = new ToolExecutor({ defaults: { retry: false } }).wrap([original]);
      const message = (await wrapped.invoke({ id: "call-2", name: original.name, args: { q: 42 }, type: "tool_call" } as never)) as ToolMessage;
      expect(message).toBeInstanceOf(ToolMessage);
      expect(message.status).toBe("error");
      expect(String(message.content)).toMatch(new RegExp(`^Invalid input for tool "${original.name}": q: .*string`));
    });
  });
});

describe("ToolExecutor schema interop", () => {
  describe("with a zod v3 object schema", () => {
    it("adds confirm for side-effect tools and validates field by field", async () => {
      const { z: zodV3 } = await import("zod/v3");
      const ran: unknown[] = [];
      const book = tool(
        async (input: { room: string }) => {
          ran.push(input);
          return `booked ${input.room}`;
        },
        { name: "book_room", description: "Books a room.", schema: zodV3.object({ room: zodV3.string() }) },
      );
      const { runContext, config } = oneRun();
      const [wrapped] = new ToolExecutor({ runContext, policies: { book_room: { sideEffects: true } } }).wrap([book]);
      expect(Object.keys((wrapped.schema as unknown as { shape: Record<string, unknown> }).shape).sort()).toEqual(["confirm", "room"]);
      await expect(wrapped.invoke({ room: 7 } as never, config)).resolves.toMatch(/^Invalid input for tool "book_room": room: /);
      const preview = String(await wrapped.invoke({ room: "A1" } as never, config));
      const token = /"confirm": "(ok-[0-9a-f]{8})"/.exec(preview)?.[1];
      await expect(wrapped.invoke({ room: "A1", confirm: token } as never, config)).resolves.toBe("booked A1");
      expect(ran).toEqual([{ room: "A1" }]);
    });
  });

  describe("with a JSON schema", () => {
    it("adds confirm to the properties and reports the original tool's own validation failure as invalid input", async () => {
      const jsonSchema = { type: "object" as const, properties: { id: { type: "number" as const } }, required: ["id"] };
      const lookup = new DynamicStructuredTool({
        name: "lookup_order",
        description: "Looks up an order.",
        schema: jsonSchema,
        func: async (input: { id: number }) => `order ${input.id}`,
      });
      const { toolCalls, options } = recorder();
      const { runContext, config } = oneRun();
      const [wrapped] = new ToolExecutor({ ...options, runContext, policies: { lookup_order: { sideEffects: true } } }).wrap([lookup]);
      expect(Object.keys((wrapped.schema as { properties: Record<string, unknown> }).properties).sort()).toEqual(["confirm", "id"]);
      const tokenOf = (observation: unknown): string | undefined => /"confirm": "(ok-[0-9a-f]{8})"/.exec(String(observation))?.[1];
      await expect(wrapped.invoke({ id: 5, confirm: tokenOf(await wrapped.invoke({ id: 5 } as never, config)) } as never, config)).resolves.toBe("order 5");
      const invalid = await wrapped.invoke({ id: "five", confirm: tokenOf(await wrapped.invoke({ id: "five" } as never, config)) } as never, config);
      expect(invalid).toMatch(/^Invalid input for tool "lookup_order"/);
      expect(toolCalls().map((event) => event.outcome)).toEqual(["dry_run", "success", "dry_run", "invalid_input"]);
    });

    it("reports the original tool's own validation failure even when a fallback is configured", async () => {
      const lookup = new DynamicStructuredTool({
        name: "lookup_order",
        description: "Looks up an order.",
        schema: { type: "object" as const, properties: { id: { type: "number" as const } }, required: ["id"] },
        func: async (input: { id: number }) => `order ${input.id}`,
      });
      const { toolCalls, options } = recorder();
      const [wrapped] = new ToolExecutor({ ...options, policies: { lookup_order: { fallback: "Orders are unavailable right now." } } }).wrap([lookup]);
      const invalid = await wrapped.invoke({ id: "five" } as never);
      expect(invalid).toMatch(/^Invalid input for tool "lookup_order"/);
      expect(toolCalls().map((event) => event.outcome)).toEqual(["invalid_input"]);
    });
  });
});

describe("ToolExecutor policy composition", () => {
  describe("retry inside the breaker inside the fallback", () => {
    it("counts each attempt against the circuit, then answers from the fallback without calling the tool", async () => {
      jest.useFakeTimers();
      const { events, toolCalls, options } = recorder();
      const dead = scriptedStringTool("quotes", [
        () => {
          throw { status: 503, message: "unavailable" };
        },
      ]);
      const executor = new ToolExecutor({
        ...options,
        defaults: {
          retry: { maxAttempts: 2, initialDelayMs: 10, jitter: "none" },
          circuitBreaker: { failureThreshold: 2, halfOpenAfterMs: 60_000 },
          fallback: { message: "Quotes are delayed; last known price: 101.2." },
          cache: { ttlMs: 60_000 },
        },
      });
      const [wrapped] = executor.wrap([dead.tool]);
      const first = await settleWithFakeTimers(wrapped.invoke("ACME"));
      const second = await settleWithFakeTimers(wrapped.invoke("ACME"));
      expect(first.value).toBe("Quotes are delayed; last known price: 101.2.");
      expect(second.value).toBe("Quotes are delayed; last known price: 101.2.");
      expect(dead.calls).toHaveLength(2);
      expect(toolCalls().map((event) => event.outcome)).toEqual(["fallback", "fallback"]);
      expect(ToolExecutionError.isInstance(toolCalls()[0].error)).toBe(true);
      expect(CircuitOpenError.isInstance(toolCalls()[1].error)).toBe(true);
      expect(events.filter((event) => event.type === "tool_retry")).toHaveLength(1);
    });
  });

  describe("retry when the failure opens the circuit", () => {
    it("stops retrying at once instead of waiting out a backoff to be refused, and the open-circuit error carries the last failure", async () => {
      jest.useFakeTimers();
      const { events, toolCalls, options } = recorder();
      const dead = scriptedStringTool("quotes", [
        () => {
          throw { status: 503, message: "unavailable" };
        },
      ]);
      const [wrapped] = new ToolExecutor({
        ...options,
        defaults: {
          retry: { maxAttempts: 4, initialDelayMs: 1000, maxDelayMs: 1000, jitter: "none" },
          circuitBreaker: { failureThreshold: 2, halfOpenAfterMs: 60_000 },
        },
      }).wrap([dead.tool]);
      const first = await settleWithFakeTimers(wrapped.invoke("ACME"));
      expect(dead.calls).toHaveLength(2);
      expect(events.filter((event) => event.type === "tool_retry")).toHaveLength(1);
      expect(first.elapsedMs).toBeLessThan(2000);
      expect(first.value).toMatch(/temporary error \(tried 2 times\)/);
      const second = await settleWithFakeTimers(wrapped.invoke("ACME"));
      expect(second.value).toMatch(/"quotes" is unavailable right now/);
      expect(second.elapsedMs).toBe(0);
      const openError = toolCalls()[1].error;
      expect(CircuitOpenError.isInstance(openError)).toBe(true);
      const lastFailure = (openError as CircuitOpenError).cause;
      expect(ToolExecutionError.isInstance(lastFailure)).toBe(true);
      expect((lastFailure as ToolExecutionError).cause.message).toBe("unavailable");
    });
  });

  describe("timeout inside the bulkhead", () => {
    it("keeps the slot of an abandoned call until the tool really settles, then lets the queued call run", async () => {
      jest.useFakeTimers();
      const { toolCalls, options } = recorder();
      // Ignores its AbortSignal and finishes 2.5 s after the 1 s deadline.
      const stubborn = scriptedStringTool("render", [() => new Promise<string>((resolve) => setTimeout(() => resolve("late"), 2500)), () => "second rendered"]);
      const [wrapped] = new ToolExecutor({ ...options, defaults: { timeoutMs: 1000, retry: false, bulkhead: { maxConcurrent: 1, maxQueued: 1 } } }).wrap([stubborn.tool]);
      const first = settleWithFakeTimers(wrapped.invoke("a"));
      const second = wrapped.invoke("b");
      const { value: firstValue, elapsedMs } = await first;
      expect(firstValue).toMatch(/did not answer within 1 s/);
      expect(elapsedMs).toBeLessThanOrEqual(1010);
      expect(stubborn.calls).toEqual(["a"]);
      const { value: secondValue } = await settleWithFakeTimers(second);
      // The queued call waited at most timeoutMs for the slot: it did not start while "a" still ran.
      expect(secondValue).toMatch(/did not answer within 1 s/);
      expect(stubborn.calls).toEqual(["a"]);
      expect(toolCalls().map((event) => event.outcome)).toEqual(["timeout", "timeout"]);
      // "a" still runs and the given-up call still holds the queue place until "a" settles at 2.5 s.
      expect(await wrapped.invoke("c")).toMatch(/"render" is busy/);
      await jest.advanceTimersByTimeAsync(1500);
      await expect(wrapped.invoke("d")).resolves.toBe("second rendered");
      expect(stubborn.calls).toEqual(["a", "d"]);
    });

    it("lets the queued call run as soon as an abandoned tool that honours its signal settles", async () => {
      jest.useFakeTimers();
      const cooperative = scriptedStringTool("render", [
        (_input, signal) => new Promise<string>((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted")))),
        () => "second rendered",
      ]);
      const [wrapped] = new ToolExecutor({ defaults: { timeoutMs: 1000, retry: false, bulkhead: { maxConcurrent: 1, maxQueued: 1 } } }).wrap([cooperative.tool]);
      const { value, elapsedMs } = await settleWithFakeTimers(Promise.all([wrapped.invoke("a"), wrapped.invoke("b")]));
      expect(value[0]).toMatch(/did not answer within 1 s/);
      expect(value[1]).toBe("second rendered");
      expect(elapsedMs).toBeLessThanOrEqual(1020);
    });

    it("frees the slot at the deadline with releaseOnTimeout: true", async () => {
      jest.useFakeTimers();
      const flaky = scriptedStringTool("render", [() => never(), () => "second rendered"]);
      const [wrapped] = new ToolExecutor({ defaults: { timeoutMs: 1000, retry: false, bulkhead: { maxConcurrent: 1, maxQueued: 1, releaseOnTimeout: true } } }).wrap([flaky.tool]);
      const both = Promise.all([wrapped.invoke("a"), wrapped.invoke("b")]);
      const { value, elapsedMs } = await settleWithFakeTimers(both);
      expect(value[0]).toMatch(/did not answer within 1 s/);
      expect(value[1]).toBe("second rendered");
      expect(elapsedMs).toBeLessThanOrEqual(1020);
    });
  });
});

describe("ToolExecutor diagnostics", () => {
  describe("with a metrics recorder and a listener that throws", () => {
    it("records every event and never lets a broken listener break the call", async () => {
      const recorded: ReinsEvent[] = [];
      const warnings: string[] = [];
      const [wrapped] = new ToolExecutor({
        metrics: { record: (event) => recorded.push(event) },
        onEvent: () => {
          throw new Error("listener broke");
        },
        logger: { warn: (message) => warnings.push(message) },
      }).wrap([new DynamicTool({ name: "t", description: "T.", func: async () => "ok" })]);
      await expect(wrapped.invoke("x")).resolves.toBe("ok");
      // One tool_start before the call runs, then its tool_call, paired by callId.
      expect(recorded).toMatchObject([
        { type: "tool_start", toolName: "t", callId: "call-1" },
        { type: "tool_call", toolName: "t", outcome: "success", callId: "call-1" },
      ]);
      expect(recorded[0]).not.toHaveProperty("toolInput");
      expect(warnings).toEqual(Array(2).fill("An event recorder or listener threw; the event was dropped for it."));
    });

    it("emits tool_start once per call (not per attempt), with the input only when content is asked for", async () => {
      const events: ReinsEvent[] = [];
      let attempts = 0;
      const [wrapped] = new ToolExecutor({
        metrics: { record: (event) => events.push(event), captureContent: true },
        defaults: { retry: { maxAttempts: 2, initialDelayMs: 0, maxDelayMs: 0 } },
      }).wrap([
        new DynamicTool({
          name: "t",
          description: "T.",
          func: async () => {
            attempts += 1;
            if (attempts === 1) throw Object.assign(new Error("reset"), { code: "ECONNRESET" });
            return "ok";
          },
        }),
      ]);
      await wrapped.invoke("first");
      await wrapped.invoke("second");
      const starts = events.filter((event) => event.type === "tool_start");
      const ends = events.filter((event) => event.type === "tool_call");
      expect(attempts).toBe(3);
      expect(starts).toMatchObject([{ callId: "call-1", toolInput: "first" }, { callId: "call-2", toolInput: "second" }]);
      expect(ends.map((event) => event.type === "tool_call" && event.callId)).toEqual(["call-1", "call-2"]);
      expect(events.map((event) => event.type)).toEqual(["tool_start", "tool_retry", "tool_call", "tool_start", "tool_call"]);
    });
  });

  describe("when a policy names a tool that is not wrapped", () => {
    it("logs a warning naming the tool and the wrapped ones", () => {
      const warnings: string[] = [];
      new ToolExecutor({ policies: { serch: { timeoutMs: 1000 } }, logger: { warn: (message) => warnings.push(message) } }).wrap([
        new DynamicTool({ name: "search", description: "S.", func: async () => "x" }),
      ]);
      expect(warnings).toEqual(['A policy names tool "serch", but no tool of that name is wrapped (wrapped: search).']);
    });
  });
});
