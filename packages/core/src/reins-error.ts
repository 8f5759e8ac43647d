/**
 * The one error scheme of every Reins package, after vercel/ai's `AISDKError.hasMarker`: each
 * error class is branded with a global `Symbol.for("reins.<package>.<Name>")` marker on its
 * prototype, and the static `isInstance` checks for that marker, so an error is recognised even
 * when it comes from another copy of the package (its CJS and ESM builds side by side, or two
 * versions), where `instanceof` fails.
 */

/** Where a branded class keeps its marker (an own, non-enumerable static). */
const CLASS_MARKER = Symbol.for("reins.core.errorClassMarker");

/** A class whose instances are errors (abstract classes too). */
export type ReinsErrorClass<Instance = Error> = abstract new (...args: never[]) => Instance;

/**
 * The marker symbol of error `name` in package `packageName`.
 *
 * @param packageName - the package name without scope, e.g. `tool-executor`
 * @param name - the class name, e.g. `ToolTimeoutError`
 * @returns `Symbol.for("reins.<packageName>.<name>")`
 */
export function reinsErrorMarker(packageName: string, name: string): symbol {
  return Symbol.for(`reins.${packageName}.${name}`);
}

/** True when `value` is an object carrying `marker` (own or inherited). */
export function hasReinsErrorMarker(value: unknown, marker: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
}

/**
 * Brands `errorClass`: puts its `reins.<packageName>.<name>` marker on the prototype (so every
 * instance and every subclass instance carries it) and on the class, where
 * {@link ReinsError.isInstance} finds it. Call it once per class, from a static block:
 *
 * ```ts
 * export class ToolTimeoutError extends ToolExecutorError {
 *   static { brandReinsError(this, "tool-executor", "ToolTimeoutError"); }
 * }
 * ```
 *
 * @returns the marker symbol
 * @throws {TypeError} when `name` is not the class's own name (a copy-paste slip would make
 *   `isInstance` answer for the wrong class)
 */
export function brandReinsError(errorClass: ReinsErrorClass, packageName: string, name: string): symbol {
  if (errorClass.name !== name) {
    throw new TypeError(`brandReinsError: class "${errorClass.name}" was branded as "${name}".`);
  }
  const marker = reinsErrorMarker(packageName, name);
  Object.defineProperty(errorClass.prototype, marker, { value: true, enumerable: false });
  Object.defineProperty(errorClass, CLASS_MARKER, { value: marker, enumerable: false });
  return marker;
}

/** The marker `errorClass` was branded with, or `undefined` when it was not branded itself. */
export function reinsErrorMarkerOf(errorClass: ReinsErrorClass<unknown>): symbol | undefined {
  return Object.prototype.hasOwnProperty.call(errorClass, CLASS_MARKER)
    ? (errorClass as unknown as Record<symbol, symbol>)[CLASS_MARKER]
    : undefined;
}

/**
 * Base class of every Reins error. Each package's base (`ToolExecutorError`, `ReinsMetricsError`,
 * …) extends it, and every class is branded with {@link brandReinsError}.
 * `ReinsError.isInstance(error)` is true for an error of any Reins package.
 */
export class ReinsError extends Error {
  static {
    brandReinsError(this, "core", "ReinsError");
  }

  /**
   * True when `error` is an instance of this class (or a subclass), from any copy of its package.
   *
   * @throws {TypeError} when called on a class that was not branded with {@link brandReinsError}
   */
  static isInstance<Instance>(this: ReinsErrorClass<Instance>, error: unknown): error is Instance {
    const marker = reinsErrorMarkerOf(this);
    if (marker === undefined) throw new TypeError(`${this.name} is not branded: call brandReinsError in its static block.`);
    return hasReinsErrorMarker(error, marker);
  }
}
