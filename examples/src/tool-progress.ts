/**
 * Progress lines for slow tool calls: fed the `tool_start` / `tool_call` events of a
 * ToolExecutor, it writes `  … stock_quote running 5 s` every `everyMs` while a call runs, so a
 * hanging tool is visible as it hangs. Its timers are unref'd (they never keep the process alive)
 * and cleared when the call settles or {@link ToolProgress.stop} is called.
 */
import type { ReinsEvent } from "@reins/core";

/** Options of {@link ToolProgress}. */
export interface ToolProgressOptions {
  /** Where the lines go. */
  readonly write: (text: string) => void;
  /** Interval of the lines, in milliseconds; the first comes after one interval. @default 5000 */
  readonly everyMs?: number;
  /** Clock for the elapsed time. @default Date.now */
  readonly now?: () => number;
}

interface RunningCall {
  readonly toolName: string;
  readonly startedAtMs: number;
  readonly timer: ReturnType<typeof setInterval>;
}

/** Writes one progress line per running tool call and interval. */
export class ToolProgress {
  private readonly running = new Map<string, RunningCall>();
  private readonly write: (text: string) => void;
  private readonly everyMs: number;
  private readonly now: () => number;

  constructor(options: ToolProgressOptions) {
    const everyMs = options.everyMs ?? 5000;
    if (!Number.isFinite(everyMs) || everyMs <= 0) throw new RangeError(`ToolProgress: everyMs must be a positive number of milliseconds, got ${String(everyMs)}.`);
    this.write = options.write;
    this.everyMs = everyMs;
    this.now = options.now ?? Date.now;
  }

  /** How many calls are running (started, not yet settled). */
  get runningCalls(): number {
    return this.running.size;
  }

  /** Feeds one Reins event; only `tool_start` and `tool_call` (with a `callId`) matter. */
  record(event: ReinsEvent): void {
    if (event.type === "tool_start") {
      this.settle(event.callId);
      const startedAtMs = this.now();
      const timer = setInterval(() => {
        const seconds = Math.floor((this.now() - startedAtMs) / 1000);
        this.write(`  … ${event.toolName} running ${seconds} s\n`);
      }, this.everyMs);
      timer.unref?.();
      this.running.set(event.callId, { toolName: event.toolName, startedAtMs, timer });
    } else if (event.type === "tool_call" && event.callId !== undefined) {
      this.settle(event.callId);
    }
  }

  /** Clears every timer (a run that ended or threw while a call was still running). */
  stop(): void {
    for (const callId of [...this.running.keys()]) this.settle(callId);
  }

  private settle(callId: string): void {
    const call = this.running.get(callId);
    if (call === undefined) return;
    clearInterval(call.timer);
    this.running.delete(callId);
  }
}
