import { cleanObservation } from "./clean-observation";

const throwingTraps: ProxyHandler<object> = {
  get: () => {
    throw new Error("get");
  },
  has: () => {
    throw new Error("has");
  },
  ownKeys: () => {
    throw new Error("ownKeys");
  },
  getPrototypeOf: () => {
    throw new Error("getPrototypeOf");
  },
  getOwnPropertyDescriptor: () => {
    throw new Error("getOwnPropertyDescriptor");
  },
};

describe("cleanObservation", () => {
  describe("on objects that throw on every read", () => {
    it("does not throw on a Proxy whose every trap throws, and says the value could not be read", () => {
      const result = cleanObservation(new Proxy({}, throwingTraps));
      expect(result.text).toMatch(/could not be read/);
      expect(result.rawChars).toBe(0);
    });

    it("does not throw on a revoked Proxy", () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      expect(cleanObservation(proxy, { maxChars: 200 }).text.length).toBeLessThanOrEqual(200);
    });
  });

  describe("on lists that claim billions of items", () => {
    it("measures a sparse array of length 2^32 - 1 without serialising it", () => {
      const sparse: unknown[] = [];
      sparse.length = 2 ** 32 - 1;
      sparse[7] = "seventh";
      const result = cleanObservation(sparse);
      expect(result.rawChars).toBeGreaterThan(2 ** 32);
      expect(result.text).toContain("seventh");
    });

    it("reads only the head and tail of a Proxy claiming a length of 10^12", () => {
      const huge = new Proxy([1, 2, 3], { get: (target, key) => (key === "length" ? 1e12 : Reflect.get(target, key)) });
      const result = cleanObservation({ items: huge }, { maxChars: 300 });
      expect(result.text.length).toBeLessThanOrEqual(300);
      expect(result.truncated).toBe(true);
    });
  });
});
