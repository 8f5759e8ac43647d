import { Registry } from "prom-client";
import type { ReinsEvent } from "@reins/core";
import { createAgentMetrics } from "@reins/metrics";
import { LoopControlHandler, type LoopAuditRecord, type LoopControlOptions } from "./index";
import { RunDriver } from "./__fixtures__/run-driver";

// Built at run time so no secret-looking literal sits in the source.
const OPENAI_KEY = `sk-${"aB3dE5fG7hJ9kL1m".repeat(3)}`;
const BEARER = `Bearer ${"x7Yz".repeat(8)}`;

function setup(options: LoopControlOptions = {}): { events: ReinsEvent[]; records: LoopAuditRecord[]; driver: () => RunDriver } {
  const events: ReinsEvent[] = [];
  const records: LoopAuditRecord[] = [];
  const handler = new LoopControlHandler({ onEvent: (event) => events.push(event), ...options, audit: { ...options.audit, sink: (record) => records.push(record) } });
  return { events, records, driver: () => new RunDriver(handler, "run-1") };
}

describe("LoopControlHandler", () => {
  describe("audit trail with secrets in the tool input and the observation", () => {
    it("redacts them by default and emits one secret_redaction event per record", async () => {
      const { events, records, driver } = setup();
      const run = driver();
      await run.start();
      await run.step({ tool: "search", toolInput: `api key ${OPENAI_KEY}`, observation: `headers: Authorization: ${BEARER}` });
      await run.finish("ok");
      const text = JSON.stringify(records);
      expect(text).not.toContain(OPENAI_KEY);
      expect(text).not.toContain(BEARER);
      expect(text).toContain("[redacted openai_api_key]");
      expect(records[0]?.toolInput).toBe("api key [redacted openai_api_key]");
      const redactions = events.filter((event) => event.type === "secret_redaction");
      expect(redactions).toHaveLength(1);
      expect(redactions[0]).toMatchObject({ type: "secret_redaction", surface: "audit", runId: "run-1" });
      expect((redactions[0] as { kinds: readonly string[] }).kinds).toContain("openai_api_key");
    });

    it("applies the user's redact first, then the secret patterns, extra ones included", async () => {
      const { records, driver } = setup({
        audit: { sink: () => undefined, redact: (record) => ({ ...record, thought: "acme_12345678" }), secretRedaction: { patterns: [{ kind: "acme_token", pattern: /acme_[0-9]{8}/g }] } },
      });
      const run = driver();
      await run.start();
      await run.step({ tool: "search", toolInput: OPENAI_KEY, observation: "ok" });
      expect(records[0]?.thought).toBe("[redacted acme_token]");
      expect(records[0]?.toolInput).toBe("[redacted openai_api_key]");
    });

    it("writes secrets verbatim only when secretRedaction is false", async () => {
      const { events, records, driver } = setup({ audit: { sink: () => undefined, secretRedaction: false } });
      const run = driver();
      await run.start();
      await run.step({ tool: "search", toolInput: OPENAI_KEY, observation: "ok" });
      expect(records[0]?.toolInput).toBe(OPENAI_KEY);
      expect(events.some((event) => event.type === "secret_redaction")).toBe(false);
    });

    it("counts each redacted secret in secrets_redacted_total", async () => {
      const metrics = createAgentMetrics({ registry: new Registry() });
      const { driver } = setup({ metrics });
      const run = driver();
      await run.start();
      await run.step({ tool: "search", toolInput: OPENAI_KEY, observation: BEARER });
      const text = await metrics.registry.metrics();
      expect(text).toContain('react_agent_secrets_redacted_total{kind="openai_api_key",surface="audit"} 1');
      expect(text).toContain('react_agent_secrets_redacted_total{kind="authorization",surface="audit"} 1');
    });
  });

  describe("with an invalid secretRedaction option", () => {
    it("throws naming audit.secretRedaction", () => {
      expect(() => new LoopControlHandler({ audit: { sink: () => undefined, secretRedaction: "on" as never } })).toThrow(expect.objectContaining({ field: "audit.secretRedaction" }));
    });
  });
});
