/**
 * `npm run demo -- --serve`: after the demo, keep a bounded background load of the scripted
 * scenarios running against the replay server, so every panel of docs/grafana-dashboard.json and
 * every rate in docs/metrics.md has data while a Prometheus scrapes /metrics on 127.0.0.1.
 */
import type { Server } from "node:http";
import type { AgentMetrics } from "@reins/metrics";
import { runDemo } from "./demo-runner";
import type { DemoScenario } from "./demo-scenarios";

/** Options of {@link startBackgroundLoad}. */
export interface BackgroundLoadOptions {
  /** The demo's metrics: every round records into the same registry. */
  readonly metrics: AgentMetrics;
  /** @default DEMO_SCENARIOS */
  readonly scenarios?: readonly DemoScenario[];
  /**
   * Pause between the end of one round (every scenario once) and the start of the next, in
   * milliseconds. One round runs at a time, so the load is at most one agent run at once.
   * @default 5000
   */
  readonly pauseMs?: number;
  /**
   * Stop after this many rounds (a bound for tests and CI).
   * @default Infinity (until `stop()`)
   */
  readonly maxRounds?: number;
  /** Called with an error a round threw; the load goes on with the next round. @default ignored */
  readonly onError?: (error: unknown) => void;
}

/** A running background load. */
export interface BackgroundLoad {
  /** Rounds finished so far. */
  readonly rounds: number;
  /** Stops after the round in progress (if any) has finished; resolves then. */
  stop(): Promise<void>;
  /** Resolves when the load has stopped (after `maxRounds` or `stop()`). */
  readonly done: Promise<void>;
}

/**
 * Runs the scenarios again and again (silently, replay server only, never a live model) into the
 * demo's registry.
 *
 * @param options - see {@link BackgroundLoadOptions}
 * @returns a handle to stop it
 */
export function startBackgroundLoad(options: BackgroundLoadOptions): BackgroundLoad {
  const pauseMs = options.pauseMs ?? 5_000;
  const maxRounds = options.maxRounds ?? Number.POSITIVE_INFINITY;
  let rounds = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  const loop = async (): Promise<void> => {
    while (!stopped && rounds < maxRounds) {
      try {
        await runDemo({
          write: () => undefined,
          registry: options.metrics.registry,
          ...(options.scenarios !== undefined ? { scenarios: options.scenarios } : {}),
        });
      } catch (error) {
        options.onError?.(error);
      }
      rounds += 1;
      if (stopped || rounds >= maxRounds) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, pauseMs);
      });
    }
  };
  const done = loop();
  return {
    get rounds() {
      return rounds;
    },
    done,
    stop: async () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      wake?.();
      await done;
    },
  };
}

/**
 * What `--serve` prints: the URL and a Prometheus scrape config for it.
 *
 * @param url - the /metrics URL
 * @param scrapeIntervalSeconds - the scrape interval to suggest
 */
export function scrapeInstructions(url: string, scrapeIntervalSeconds = 5): string {
  const { host } = new URL(url);
  return [
    `Serving metrics on ${url} (a background load of the scenarios keeps every counter moving).`,
    "",
    "Prometheus config (save as reins-demo.yml in the repository root):",
    "",
    "  global:",
    `    scrape_interval: ${scrapeIntervalSeconds}s`,
    "  rule_files: [docs/alerts.yml]   # relative to this file: save it in the repository root",
    "  scrape_configs:",
    "    - job_name: reins-demo",
    "      static_configs:",
    `        - targets: ["${host}"]`,
    "",
    "  prometheus --config.file=reins-demo.yml --storage.tsdb.path=/tmp/reins-demo-tsdb --web.listen-address=127.0.0.1:9090",
    "",
    "Then open http://127.0.0.1:9090/graph (or point Grafana at it and import docs/grafana-dashboard.json).",
    "Press Ctrl-C to stop.",
    "",
  ].join("\n");
}

/** Closes `server` and the background load. */
export async function stopServing(server: Server, load: BackgroundLoad | undefined): Promise<void> {
  await load?.stop();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
}
