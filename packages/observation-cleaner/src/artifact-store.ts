/**
 * `ArtifactStore`: keeps the full tool result the cleaner cut, so nothing is destroyed. Opt-in:
 * an `ObservationCleaner` given a store writes every cut result to it and ends the observation
 * with the artifact's id; `createReadArtifactTool` (read-artifact-tool.ts) pages through it.
 *
 * Where results go: a folder (`directory`, one `<id>.txt` file each), or any async
 * `put(key, value)` (`sink`: Redis, S3, a database), or only memory. A bounded in-memory copy
 * serves reads (and a sink's `get` or the folder's file when it is gone).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { ArtifactStoreError } from "./errors";

/** Where an {@link ArtifactStore} writes: any async key–value store. */
export interface ArtifactSink {
  /** Stores `value` (the result as text) under `key` (the artifact id). */
  put(key: string, value: string): Promise<void>;
  /** Reads a value back; without it, only the store's in-memory copy can be read. */
  get?(key: string): Promise<string | undefined>;
  /** Deletes an expired value; without it, expiry is the sink's own (e.g. a Redis `EX`). */
  delete?(key: string): Promise<void>;
}

/** Options of {@link ArtifactStore}; every field has a default. */
export interface ArtifactStoreOptions {
  /** A folder to write each artifact to as `<id>.txt` (created when missing). @default undefined */
  readonly directory?: string;
  /** Any async `put(key, value)` to write each artifact to (also used with `directory`). @default undefined */
  readonly sink?: ArtifactSink;
  /**
   * Longest artifact kept, in characters (UTF-16 code units); a longer result is stored cut to
   * this length and its record says so (`cut: true`).
   * @default 20_000_000 (about 20 MB of ASCII)
   */
  readonly maxArtifactChars?: number;
  /**
   * How long an artifact can be read, in milliseconds from when it was saved. After that, reads
   * answer that it expired, and its file (in `directory`) or key (a sink with `delete`) is
   * deleted on the next save. Files left by an earlier process are not swept: point `directory`
   * at a folder your system cleans (e.g. with `systemd-tmpfiles` or a cron job).
   * @default 86_400_000 (24 hours)
   */
  readonly ttlMs?: number;
  /** Characters of artifacts held in memory for reads; the oldest go first past it. @default 64_000_000 */
  readonly maxMemoryChars?: number;
  /** Artifacts whose record (size, expiry) is kept; the oldest are forgotten past it. @default 10_000 */
  readonly maxArtifacts?: number;
  /** Receives write and delete failures (a failed write is also answered on read). @default undefined (ignored) */
  readonly onError?: (error: ArtifactStoreError) => void;
  /** Clock in milliseconds, for tests. @default Date.now */
  readonly now?: () => number;
}

/** What {@link ArtifactStore.save} stored. */
export interface StoredArtifact {
  /**
   * The artifact id: `art_` and the first 16 hex digits of the SHA-256 of the stored text, so the
   * same result always gets the same id (and the observation naming it the same fingerprint,
   * which loop control compares). The key in the folder or sink.
   */
  readonly id: string;
  /** Characters stored. */
  readonly chars: number;
  /** Lines stored (what `read` ranges count). */
  readonly lines: number;
  /** True when the result was longer than `maxArtifactChars` and was stored cut. */
  readonly cut: boolean;
  /** When reads start answering that it expired (epoch milliseconds). */
  readonly expiresAtMs: number;
  /** The tool that produced it, when known. */
  readonly toolName?: string;
  /** Settles when the write to the folder or sink is done; never rejects (failures go to `onError`). */
  readonly written: Promise<void>;
}

interface ArtifactRecord {
  stored: StoredArtifact;
  failure?: string;
}

/**
 * JSON text on few lines (an API's minified response) laid out two spaces per level, so line
 * ranges and `find` read it entry by entry. Works on the text, never through `JSON.parse`'s
 * numbers: every value stays as written (17-digit ids, `199.00`).
 */
function indentJsonText(text: string): string {
  const parts: string[] = [];
  let depth = 0;
  let inString = false;
  const newline = (): void => void parts.push(`\n${"  ".repeat(depth)}`);
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index] as string;
    if (inString) {
      parts.push(character);
      if (character === "\\") parts.push(text[++index] ?? "");
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') {
      inString = true;
      parts.push(character);
    } else if (character === "{" || character === "[") {
      let next = index + 1;
      while (next < text.length && /\s/.test(text[next] as string)) next += 1;
      const close = text[next];
      if (close === "}" || close === "]") {
        parts.push(character, close);
        index = next;
        continue;
      }
      depth += 1;
      parts.push(character);
      newline();
    } else if (character === "}" || character === "]") {
      depth = Math.max(0, depth - 1);
      newline();
      parts.push(character);
    } else if (character === ",") {
      parts.push(",");
      newline();
    } else if (character === ":") parts.push(": ");
    else if (!/\s/.test(character)) parts.push(character);
  }
  return parts.join("");
}

/** JSON text that is one long line or a few: worth laying out. */
function isDenseJsonText(text: string): boolean {
  const first = text.trimStart()[0];
  if ((first !== "{" && first !== "[") || text.length < 2000) return false;
  let lines = 1;
  for (let index = text.indexOf("\n"); index !== -1 && lines <= 10; index = text.indexOf("\n", index + 1)) lines += 1;
  if (lines > 10) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The text a value is stored as: a string as it is (dense JSON text laid out one entry per line,
 * values untouched), bytes as UTF-8, anything else as JSON
 * indented by two spaces (so a line range reads rows of a long list); BigInts as digits, cycles
 * and values JSON cannot hold as a marker.
 */
export function artifactText(value: unknown): string {
  if (typeof value === "string") return isDenseJsonText(value) ? indentJsonText(value.trim()) : value;
  if (value instanceof Uint8Array) return new TextDecoder("utf-8").decode(value);
  if (value instanceof ArrayBuffer) return new TextDecoder("utf-8").decode(new Uint8Array(value));
  const seen = new WeakSet<object>();
  try {
    const json = JSON.stringify(
      value,
      (_key, item: unknown) => {
        if (typeof item === "bigint") return item.toString();
        if (item instanceof Map) return Object.fromEntries(item);
        if (item instanceof Set) return [...item];
        if (item instanceof Error) return { name: item.name, message: item.message };
        if (typeof item === "object" && item !== null) {
          if (seen.has(item)) return "[circular]";
          seen.add(item);
        }
        return item;
      },
      2,
    );
    return json ?? String(value);
  } catch (error) {
    return `[the result could not be written as text: ${error instanceof Error ? error.message : String(error)}]`;
  }
}

function countLines(text: string): number {
  let lines = 1;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) lines += 1;
  return text.endsWith("\n") ? lines - 1 : lines;
}

function positiveInteger(field: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved < 1) throw new ArtifactStoreError({ reason: "options", message: `Invalid artifact store option "${field}": expected a positive integer, got ${String(value)}.` });
  return resolved;
}

/**
 * Keeps full tool results by id. Safe to share between agents and runs.
 *
 * @example
 * ```ts
 * const artifacts = new ArtifactStore({ directory: "/var/tmp/agent-artifacts", ttlMs: 3_600_000 });
 * const cleaner = new ObservationCleaner({ artifacts });
 * const tools = [...myTools, createReadArtifactTool(artifacts)];
 * ```
 */
export class ArtifactStore {
  private readonly records = new Map<string, ArtifactRecord>();
  private readonly memory = new Map<string, string>();
  private memoryChars = 0;
  private readonly pending = new Set<Promise<void>>();
  private readonly maxArtifactChars: number;
  private readonly ttlMs: number;
  private readonly maxMemoryChars: number;
  private readonly maxArtifacts: number;
  private readonly now: () => number;

  /**
   * @param options - where to write, size limits and TTL
   * @throws {ArtifactStoreError} when a limit is not a positive integer, or `sink` has no `put`
   */
  constructor(private readonly options: ArtifactStoreOptions = {}) {
    this.maxArtifactChars = positiveInteger("maxArtifactChars", options.maxArtifactChars, 20_000_000);
    this.ttlMs = positiveInteger("ttlMs", options.ttlMs, 86_400_000);
    this.maxMemoryChars = positiveInteger("maxMemoryChars", options.maxMemoryChars, 64_000_000);
    this.maxArtifacts = positiveInteger("maxArtifacts", options.maxArtifacts, 10_000);
    if (options.sink !== undefined && typeof options.sink.put !== "function") {
      throw new ArtifactStoreError({ reason: "options", message: 'Invalid artifact store option "sink": expected an object with an async put(key, value).' });
    }
    this.now = options.now ?? Date.now;
  }

  /**
   * Stores a result. Synchronous: the id is known at once (the cleaner writes it into the
   * observation); the write to the folder or sink runs in the background (`written`).
   *
   * @param value - the tool's raw result (see {@link artifactText} for how it is written)
   * @param toolName - the tool that produced it
   */
  save(value: unknown, toolName?: string): StoredArtifact {
    const full = artifactText(value);
    const cut = full.length > this.maxArtifactChars;
    const text = cut ? full.slice(0, this.maxArtifactChars) : full;
    const id = `art_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
    this.sweep();
    const known = this.records.get(id);
    if (known !== undefined && known.failure === undefined) {
      // The same result again: one copy, its expiry renewed.
      const renewed: StoredArtifact = Object.freeze({ ...known.stored, expiresAtMs: this.now() + this.ttlMs, ...(toolName !== undefined ? { toolName } : {}) });
      known.stored = renewed;
      this.records.delete(id);
      this.records.set(id, known);
      return renewed;
    }
    const record: ArtifactRecord = {
      stored: undefined as unknown as StoredArtifact,
    };
    const written = this.write(id, text, record);
    record.stored = Object.freeze({ id, chars: text.length, lines: countLines(text), cut, expiresAtMs: this.now() + this.ttlMs, ...(toolName !== undefined ? { toolName } : {}), written });
    this.records.set(id, record);
    this.remember(id, text);
    while (this.records.size > this.maxArtifacts) this.forget(this.records.keys().next().value as string);
    return record.stored;
  }

  /** What was stored under `id`, or `undefined` when unknown (never saved here, or forgotten). */
  describe(id: string): StoredArtifact | undefined {
    return this.records.get(id)?.stored;
  }

  /**
   * The stored text of an artifact.
   *
   * @throws {ArtifactStoreError} `reason: "unknown"` for an id this store never saved (or forgot),
   *   `"expired"` past its TTL, `"unreadable"` when its write failed or the folder/sink lost it
   */
  async text(id: string): Promise<string> {
    const record = this.records.get(id);
    if (record === undefined) throw new ArtifactStoreError({ reason: "unknown", artifactId: id });
    if (this.now() >= record.stored.expiresAtMs) throw new ArtifactStoreError({ reason: "expired", artifactId: id });
    const inMemory = this.memory.get(id);
    if (inMemory !== undefined) return inMemory;
    await record.stored.written;
    if (record.failure !== undefined) throw new ArtifactStoreError({ reason: "unreadable", artifactId: id, message: `Artifact ${id} could not be stored: ${record.failure}.` });
    try {
      if (this.options.directory !== undefined) return await readFile(this.fileOf(id), "utf8");
      const fromSink = await this.options.sink?.get?.(id);
      if (fromSink !== undefined) return fromSink;
    } catch (error) {
      throw new ArtifactStoreError({ reason: "unreadable", artifactId: id, cause: error });
    }
    throw new ArtifactStoreError({ reason: "unreadable", artifactId: id, message: `Artifact ${id} is no longer in memory and its sink has no get().` });
  }

  /** Waits for every background write started so far. */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private fileOf(id: string): string {
    return path.join(this.options.directory as string, `${id}.txt`);
  }

  private write(id: string, text: string, record: ArtifactRecord): Promise<void> {
    const { directory, sink } = this.options;
    if (directory === undefined && sink === undefined) return Promise.resolve();
    const task = (async () => {
      try {
        if (directory !== undefined) {
          await mkdir(directory, { recursive: true });
          await writeFile(this.fileOf(id), text, "utf8");
        }
        if (sink !== undefined) await sink.put(id, text);
      } catch (error) {
        record.failure = error instanceof Error ? error.message : String(error);
        this.report(new ArtifactStoreError({ reason: "unreadable", artifactId: id, message: `Writing artifact ${id} failed: ${record.failure}.`, cause: error }));
      }
    })();
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
    return task;
  }

  private remember(id: string, text: string): void {
    if (text.length > this.maxMemoryChars) return;
    this.memory.set(id, text);
    this.memoryChars += text.length;
    for (const [oldest, oldText] of this.memory) {
      if (this.memoryChars <= this.maxMemoryChars) break;
      // Memory only: the one copy goes with it, so the record goes too.
      if (this.options.directory === undefined && this.options.sink?.get === undefined) this.records.delete(oldest);
      this.memory.delete(oldest);
      this.memoryChars -= oldText.length;
    }
  }

  private forget(id: string): void {
    const text = this.memory.get(id);
    if (text !== undefined) this.memoryChars -= text.length;
    this.memory.delete(id);
    this.records.delete(id);
  }

  /** Drops expired artifacts from memory, the folder and a sink with `delete`. */
  private sweep(): void {
    const now = this.now();
    for (const [id, record] of this.records) {
      if (now < record.stored.expiresAtMs) continue;
      this.forget(id);
      const { directory, sink } = this.options;
      const removal = (async () => {
        try {
          await record.stored.written;
          if (directory !== undefined) await unlink(this.fileOf(id));
          await sink?.delete?.(id);
        } catch (error) {
          this.report(new ArtifactStoreError({ reason: "unreadable", artifactId: id, message: `Deleting expired artifact ${id} failed.`, cause: error }));
        }
      })();
      this.pending.add(removal);
      void removal.finally(() => this.pending.delete(removal));
    }
  }

  private report(error: ArtifactStoreError): void {
    try {
      this.options.onError?.(error);
    } catch {
      // A failing error hook must not turn a background write into an unhandled rejection.
    }
  }
}
