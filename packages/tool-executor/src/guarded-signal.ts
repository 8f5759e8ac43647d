/**
 * Abort listeners that cannot hurt the process. Node reports an exception thrown by an
 * `EventTarget` listener as an uncaught exception (and a rejected async listener as an unhandled
 * rejection), so a tool with a faulty `abort` listener would crash the agent when the executor
 * aborts it at the deadline. On a guarded signal, listeners added by the tool
 * (`addEventListener`, `onabort`) run inside a guard that reports their failure instead.
 */

type GuardedListener = (this: unknown, event: Event) => void;
type Listener = ((this: unknown, event: Event) => unknown) | { handleEvent(event: Event): unknown };
type ListenerOptions = boolean | { capture?: boolean; once?: boolean; passive?: boolean; signal?: AbortSignal };
type ListenerMethod = (this: AbortSignal, type: string, listener: unknown, options?: ListenerOptions) => void;

interface SignalGuards {
  readonly onListenerError: (error: unknown) => void;
  readonly guards: WeakMap<object, GuardedListener>;
  onabort: Listener | null;
}

const guardsOf = new WeakMap<AbortSignal, SignalGuards>();
const nativeAdd = AbortSignal.prototype.addEventListener as unknown as ListenerMethod;
const nativeRemove = AbortSignal.prototype.removeEventListener as unknown as ListenerMethod;

function guard(state: SignalGuards, listener: Listener): GuardedListener {
  let guarded = state.guards.get(listener);
  if (guarded === undefined) {
    guarded = function guardedListener(this: unknown, event: Event): void {
      try {
        const result: unknown = typeof listener === "function" ? listener.call(this, event) : listener.handleEvent(event);
        if (typeof result === "object" && result !== null && typeof (result as PromiseLike<unknown>).then === "function") {
          (result as PromiseLike<unknown>).then(undefined, state.onListenerError);
        }
      } catch (error) {
        state.onListenerError(error);
      }
    };
    state.guards.set(listener, guarded);
  }
  return guarded;
}

function isListener(listener: unknown): listener is Listener {
  return typeof listener === "function" || (typeof listener === "object" && listener !== null);
}

/**
 * The prototype of guarded signals: `AbortSignal.prototype` with guarded listener methods. Swapping
 * one prototype in is much cheaper per call than defining own properties on each native signal.
 */
const GUARDED_SIGNAL_PROTOTYPE: object = Object.create(AbortSignal.prototype, {
  addEventListener: {
    value: function addEventListener(this: AbortSignal, type: string, listener: unknown, options?: ListenerOptions): void {
      const state = guardsOf.get(this);
      nativeAdd.call(this, type, state !== undefined && isListener(listener) ? guard(state, listener) : listener, options);
    },
    writable: true,
    configurable: true,
  },
  removeEventListener: {
    value: function removeEventListener(this: AbortSignal, type: string, listener: unknown, options?: ListenerOptions): void {
      const state = guardsOf.get(this);
      const guarded = state !== undefined && isListener(listener) ? state.guards.get(listener) : undefined;
      nativeRemove.call(this, type, guarded ?? listener, options);
    },
    writable: true,
    configurable: true,
  },
  onabort: {
    get(this: AbortSignal): Listener | null {
      return guardsOf.get(this)?.onabort ?? null;
    },
    set(this: AbortSignal, handler: unknown): void {
      const state = guardsOf.get(this);
      if (state === undefined) return;
      if (state.onabort !== null) nativeRemove.call(this, "abort", guard(state, state.onabort));
      state.onabort = typeof handler === "function" ? (handler as Listener) : null;
      if (state.onabort !== null) nativeAdd.call(this, "abort", guard(state, state.onabort));
    },
    configurable: true,
  },
});

/**
 * Guards the abort listeners added to `signal` from now on (listeners added before are untouched).
 * Changes the signal's prototype in place, which costs far less per call than a derived signal:
 * use it only on a signal this package owns (cockatiel's per-attempt timeout signal), never on a
 * caller's.
 *
 * @param signal - a signal owned by the caller of this function
 * @param onListenerError - receives what a listener threw or rejected with
 * @returns `signal`
 */
export function guardAbortListeners(signal: AbortSignal, onListenerError: (error: unknown) => void): AbortSignal {
  if (guardsOf.has(signal)) return signal;
  guardsOf.set(signal, { onListenerError, guards: new WeakMap(), onabort: null });
  Object.setPrototypeOf(signal, GUARDED_SIGNAL_PROTOTYPE);
  return signal;
}
