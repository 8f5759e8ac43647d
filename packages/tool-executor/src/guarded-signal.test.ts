import { guardAbortListeners } from "./guarded-signal";

describe("guardAbortListeners", () => {
  describe("when the signal aborts", () => {
    it("reports what listeners threw or rejected with instead of letting it escape, and still calls every listener", async () => {
      const controller = new AbortController();
      const reported: unknown[] = [];
      const signal = guardAbortListeners(controller.signal, (error) => reported.push(error));
      const heard: string[] = [];
      signal.addEventListener("abort", () => {
        heard.push("function");
        throw new Error("sync listener");
      });
      signal.addEventListener("abort", {
        handleEvent: () => {
          heard.push("object");
        },
      });
      signal.addEventListener("abort", async () => {
        heard.push("async");
        throw new Error("async listener");
      });
      signal.onabort = () => {
        heard.push("onabort");
        throw new Error("onabort listener");
      };
      controller.abort(new Error("deadline"));
      await new Promise((resolve) => setImmediate(resolve));
      expect(signal.aborted).toBe(true);
      expect((signal.reason as Error).message).toBe("deadline");
      expect(signal instanceof AbortSignal).toBe(true);
      expect(heard.sort()).toEqual(["async", "function", "object", "onabort"]);
      expect(reported.map((error) => (error as Error).message).sort()).toEqual(["async listener", "onabort listener", "sync listener"]);
    });

    it("does not call a listener that was removed, nor an onabort that was cleared", () => {
      const controller = new AbortController();
      const signal = guardAbortListeners(controller.signal, () => undefined);
      const listener = jest.fn();
      const handler = jest.fn();
      signal.addEventListener("abort", listener);
      signal.removeEventListener("abort", listener);
      signal.onabort = handler;
      expect(signal.onabort).toBe(handler);
      signal.onabort = null;
      controller.abort();
      expect(listener).not.toHaveBeenCalled();
      expect(handler).not.toHaveBeenCalled();
    });

    it("works with AbortSignal.any and once listeners", () => {
      const controller = new AbortController();
      const signal = guardAbortListeners(controller.signal, () => undefined);
      const combined = AbortSignal.any([signal]);
      const once = jest.fn();
      signal.addEventListener("abort", once, { once: true });
      controller.abort("why");
      expect(combined.aborted).toBe(true);
      expect(combined.reason).toBe("why");
      expect(once).toHaveBeenCalledTimes(1);
    });
  });
});
