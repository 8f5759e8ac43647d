/**
 * One way to send a raw command to the Redis clients `@reins/redis-store` accepts: ioredis
 * (`Redis`, `Cluster`: `call(command, ...args)`) and node-redis (`createClient`, v4+:
 * `sendCommand([command, ...args])`). Scripts and `SET … NX PX` go through it, so both clients
 * get the same commands.
 */

/** A client that can send raw commands (ioredis or node-redis). */
export type RedisCommandClient = { call(command: string, ...args: (string | number)[]): Promise<unknown> } | { sendCommand(args: string[]): Promise<unknown> };

/** True when `client` can send raw commands (ioredis `call` or node-redis `sendCommand`). */
export function canSendCommands(client: unknown): client is RedisCommandClient {
  if (typeof client !== "object" || client === null) return false;
  return typeof (client as { call?: unknown }).call === "function" || typeof (client as { sendCommand?: unknown }).sendCommand === "function";
}

/**
 * Sends `command` with `args` (all as strings) on `client`.
 * @throws {TypeError} when the client can send no raw command; whatever the client rejects with
 */
export function sendCommand(client: unknown, command: string, args: readonly (string | number)[]): Promise<unknown> {
  const strings = args.map(String);
  // ioredis has both (its sendCommand takes a Command object), so `call` is tried first.
  if (typeof (client as { call?: unknown }).call === "function") return (client as { call(command: string, ...args: string[]): Promise<unknown> }).call(command, ...strings);
  if (typeof (client as { sendCommand?: unknown }).sendCommand === "function") return (client as { sendCommand(args: string[]): Promise<unknown> }).sendCommand([command, ...strings]);
  return Promise.reject(new TypeError("the Redis client has neither call() (ioredis) nor sendCommand() (node-redis)"));
}

/**
 * Runs `work` bounded by `timeoutMs`: the timer is always cleared, a late rejection is swallowed
 * (the caller already got the timeout).
 * @throws {Error} `no answer within N ms` on timeout; whatever `work` rejects with
 */
export async function withinMs<T>(timeoutMs: number, work: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const pending = work();
    pending.catch(() => undefined);
    return await Promise.race([pending, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/** A client's connection facts, as ioredis (`status`) and node-redis (`isOpen`, `isReady`) expose them. */
interface ConnectionFacts {
  readonly status?: unknown;
  readonly isOpen?: unknown;
  readonly isReady?: unknown;
  once?(event: string, listener: () => void): unknown;
  removeListener?(event: string, listener: () => void): unknown;
}

/**
 * When `client` is still making its connection (ioredis `connecting` or `connect`, i.e. before its
 * ready check answered; node-redis open but not ready), a promise that settles once it is ready or
 * the attempt ended, or after `maxWaitMs`; otherwise `undefined`. A command sent before that would
 * fail at once on a client without an offline queue, and a busy start-up would read as a Redis
 * outage. Listens only for `ready`, `end` and `close`, once each, removed when settled: never
 * `error`, which stays the app's.
 */
export function whileConnecting(client: unknown, maxWaitMs: number): Promise<void> | undefined {
  const facts = client as ConnectionFacts;
  const connecting = facts.status === "connecting" || facts.status === "connect" || (facts.isOpen === true && facts.isReady === false);
  if (!connecting || typeof facts.once !== "function") return undefined;
  return new Promise<void>((resolve) => {
    const events = ["ready", "end", "close"] as const;
    const done = (): void => {
      clearTimeout(timer);
      for (const event of events) facts.removeListener?.(event, done);
      resolve();
    };
    const timer = setTimeout(done, maxWaitMs);
    for (const event of events) facts.once?.(event, done);
  });
}
