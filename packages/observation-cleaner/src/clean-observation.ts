/**
 * `cleanObservation`: any tool result → a short, safe observation that keeps the facts.
 * Pipeline: normalise (bytes, escapes, mojibake, control characters) → detect (JSON, XML, HTML,
 * text) → condense (JSON/XML) or convert (HTML) → fit the budget (structure-aware) → neutralise
 * ReAct control lines → count tokens and fingerprint.
 */
import { fingerprintObservation, neutralizeUntrustedText } from "@reins/core";
import { condenseTree } from "./condense";
import { condenseLog } from "./condense-log";
import { looksLikeLog } from "./log-lines";
import { keyPriority } from "./noise";
import { PathMatcher } from "./path-matcher";
import { Notes, decodeText, normalizeControlCharacters } from "./decode";
import {
  EMPTY_TEXT,
  KEY_FIELDS_HEADER,
  emptyContainerText,
  unreadableValueText,
} from "./messages";
import { grammarFor } from "./neutralize";
import { measureRawChars, previewOf, rawTextOf, treeToPlain } from "./raw-value";
import { ContentReader } from "./read-content";
import {
  resolveCleanObservationOptions,
  type CleanObservationOptions,
  type ObservationContext,
} from "./observation-cleaner-options";
import { RENDER_LEVELS, shortenString, type RenderLimits } from "./render";
import { renderJson } from "./render-json";
import { renderText } from "./render-text";
import { countTokensCl100k, estimateTokens, utf8Length } from "./tokens";
import { truncateDocument } from "./truncate-document";
import { truncateText } from "./truncate-text";
import { isScalar, scalarText, type ScalarNode, type TreeNode } from "./tree";

/** A cleaned observation and what was done to produce it. */
export interface CleanedObservation {
  /** The observation text for the model. Never empty; within `maxChars` (and `maxTokens`). */
  readonly text: string;
  /** True when anything was cut to fit the budget (lists, strings, text, fields). */
  readonly truncated: boolean;
  /** Size of the raw value in characters: string length, byte length, or length of its JSON. */
  readonly rawChars: number;
  /** `text.length`. */
  readonly cleanChars: number;
  /**
   * Tokens of `text`: counted with `countTokens` when given, else with gpt-tokenizer
   * `cl100k_base` when `exactTokens` is set or `maxTokens` was near; else estimated
   * (`tokensExact` says which).
   */
  readonly tokens: number;
  /** True when `tokens` was counted by a tokenizer, false when it is an estimate. */
  readonly tokensExact: boolean;
  /** `@reins/core`'s `fingerprintObservation(text)`, the one loop control compares. */
  readonly fingerprint: string;
  /** Short operator-facing notes: decoding, conversions, dropped noise, cuts, neutralised labels. */
  readonly notes: readonly string[];
  /** The id of the artifact holding the full result, when an `ObservationCleaner` with `artifacts` stored it. */
  readonly artifactId?: string;
}

/** What one cleaning produced, before the result object is frozen. */
interface CleanResult {
  readonly text: string;
  readonly truncated: boolean;
  readonly tokens: number;
  readonly tokensExact: boolean;
}

class Cleaner {
  readonly notes = new Notes();
  private readonly reader: ContentReader;

  constructor(
    private readonly options: Readonly<CleanObservationOptions>,
    private readonly context: ObservationContext,
    /** Size of the raw value (`measureRawChars`): no observation is longer. */
    private readonly rawChars = Number.MAX_SAFE_INTEGER,
  ) {
    this.reader = new ContentReader(this.notes, options.maxDepth);
  }

  /** The last exact count, so the budget check and the result never count one text twice. */
  private lastExact: { text: string; tokens: number } | undefined;

  /** Tokens of `text` with `countTokens`, else `cl100k_base` (its ranks load on first use). */
  private exactTokens(text: string): number {
    if (this.lastExact?.text === text) return this.lastExact.tokens;
    const counter = this.options.countTokens ?? countTokensCl100k;
    let tokens = estimateTokens(text);
    try {
      const count = counter(text);
      if (typeof count === "number" && Number.isFinite(count) && count >= 0) tokens = count;
      else this.notes.add("countTokens returned no usable number; estimated");
    } catch {
      this.notes.add("countTokens threw; estimated");
    }
    this.lastExact = { text, tokens };
    return tokens;
  }

  /**
   * Tokens of `text` for the `maxTokens` check: a text with no more UTF-8 bytes than the budget
   * fits (no token is shorter than a byte) and one estimated at twice the budget does not, both
   * without a tokenizer; in between, and with a `countTokens`, the count is exact.
   */
  private budgetTokens(text: string, maxTokens: number): number {
    if (this.options.countTokens !== undefined) return this.exactTokens(text);
    if (text.length <= maxTokens && utf8Length(text) <= maxTokens) return Math.min(estimateTokens(text), maxTokens);
    const estimate = estimateTokens(text);
    if (estimate >= maxTokens * 2) return estimate;
    return this.exactTokens(text);
  }

  /** The `tokens` of the result, and whether it was counted rather than estimated. */
  private resultTokens(text: string): { tokens: number; exact: boolean } {
    if (this.options.countTokens !== undefined || this.options.exactTokens || this.lastExact?.text === text) return { tokens: this.exactTokens(text), exact: true };
    return { tokens: estimateTokens(text), exact: false };
  }

  private neutralize(text: string): string {
    if (!this.options.neutralizeLabels) return text;
    const { text: neutralized, found } = neutralizeUntrustedText(text, grammarFor(this.options.labels, this.options.toolNames));
    const labels = found.filter((item) => item.startsWith("label ")).map((item) => item.slice(6));
    if (labels.length > 0) {
      const names = [...new Set(labels)].slice(0, 5).join(", ");
      this.notes.add(`neutralised ${labels.length} line(s) that read as ReAct control lines (${names})`);
    }
    const others = found.filter((item) => !item.startsWith("label "));
    if (others.length > 0) {
      const names = [...new Set(others)].slice(0, 5).join(", ");
      this.notes.add(`neutralised ${others.length} JSON action blob(s), tag(s) or call(s) (${names})`);
    }
    return neutralized;
  }

  /** Final guard: neutralise again (a cut can start a line mid-text) and never exceed the budget. */
  finish(text: string, truncated: boolean): CleanResult {
    let result = this.neutralize(text);
    let cut = truncated;
    if (result.length > this.options.maxChars) {
      // The cut starts new lines (after its marker): neutralise them too, then bound the length.
      result = this.neutralize(truncateText(result, this.options.maxChars, 0).text);
      if (result.length > this.options.maxChars) result = result.slice(0, this.options.maxChars);
      cut = true;
    }
    const maxTokens = this.options.maxTokens;
    if (maxTokens !== undefined) {
      let tokens = this.budgetTokens(result, maxTokens);
      for (let attempt = 0; tokens > maxTokens && attempt < 6; attempt += 1) {
        const target = Math.max(40, Math.floor(result.length * (maxTokens / tokens) * 0.92));
        result = this.neutralize(truncateText(result, target, 0.1).text);
        if (result.length > target) result = result.slice(0, target);
        cut = true;
        tokens = this.budgetTokens(result, maxTokens);
      }
      if (tokens > maxTokens) {
        // A counter that disagrees with itself: cut by the worst case of one token per character.
        result = result.slice(0, maxTokens);
      }
    }
    if (result.trim().length === 0) result = EMPTY_TEXT;
    const { tokens, exact } = this.resultTokens(result);
    return { text: result, truncated: cut, tokens, tokensExact: exact };
  }

  private fitText(text: string, tailShare: number): { text: string; truncated: boolean } {
    // Cut first: only what is kept is neutralised (finish does it), not all of a 50 MB text.
    const cut = truncateDocument(text, this.options.maxChars, tailShare);
    if (cut.truncated) this.notes.add(`cut text to ${this.options.maxChars} characters (head, outline, tail)`);
    return cut;
  }

  private keyFields(tree: TreeNode): string[] {
    const lines: string[] = [];
    const visit = (node: TreeNode, path: string, depth: number): void => {
      if (lines.length >= 20 || depth > 12) return;
      if (node.kind === "object") {
        for (const [key, value] of node.entries) {
          const childPath = path ? `${path}.${key}` : key;
          if (keyPriority(key) > 0 && isScalar(value)) lines.push(`${childPath}: ${shortenString(scalarText(value as ScalarNode), 300)}`);
          else visit(value, childPath, depth + 1);
        }
      } else if (node.kind === "array") {
        node.items.slice(0, 10).forEach((item, index) => visit(item, `${path}[${index}]`, depth + 1));
      }
    };
    visit(tree, "", 0);
    return lines;
  }

  private fitTree(tree: TreeNode): { text: string; truncated: boolean } {
    const render = this.options.style === "json" ? renderJson : renderText;
    const { maxChars, maxTokens } = this.options;
    const fits = (limits: RenderLimits): { text: string; truncated: boolean } | undefined => {
      const output = render(tree, limits, maxChars + 1);
      if (output.overflow) return undefined;
      const text = this.neutralize(output.text);
      if (text.length > maxChars) return undefined;
      if (maxTokens !== undefined && this.budgetTokens(text, maxTokens) > maxTokens) return undefined;
      return { text, truncated: output.cut };
    };
    for (const limits of RENDER_LEVELS) {
      let fitted = fits(limits);
      if (fitted === undefined) continue;
      // A document cut to the level's string length may use what the level left of the budget.
      const slack = maxChars - fitted.text.length;
      if (fitted.truncated && slack > 300 && limits.stringMax < maxChars) {
        for (const share of [0.9, 0.6]) {
          const wider = fits({ ...limits, documentMax: Math.min(maxChars, limits.stringMax + Math.floor(slack * share)) });
          if (wider !== undefined && wider.text.length > fitted.text.length) {
            fitted = wider;
            break;
          }
        }
      }
      if (fitted.truncated) this.notes.add("shortened long lists, texts or nesting to fit the budget");
      return fitted;
    }
    // Even the tightest limits do not fit: status and error fields first, then the start and end.
    const last = RENDER_LEVELS[RENDER_LEVELS.length - 1] as (typeof RENDER_LEVELS)[number];
    const body = this.neutralize(render(tree, last, maxChars * 8).text);
    const keyFields = this.keyFields(tree);
    const header = keyFields.length > 0 ? `${KEY_FIELDS_HEADER}:\n${keyFields.map((line) => `  ${line}`).join("\n")}\n\n` : "";
    const headerText = this.neutralize(header.length > maxChars / 2 ? truncateText(header, Math.floor(maxChars / 2), 0).text : header);
    const rest = truncateText(body, maxChars - headerText.length, 0.15).text;
    this.notes.add("cut the condensed structure to fit the budget (key fields first)");
    return { text: headerText + rest, truncated: true };
  }

  private fromTemplate(tree: TreeNode): string | undefined {
    const template = this.options.template;
    if (template === undefined) return undefined;
    try {
      const text = template(treeToPlain(tree), this.context);
      if (typeof text === "string" && text.trim().length > 0) {
        this.notes.add("formatted with the tool's template");
        return decodeText(text, this.notes);
      }
      this.notes.add("the template returned no text; used the default style");
    } catch (error) {
      this.notes.add(`the template threw (${error instanceof Error ? error.message : String(error)}); used the default style`);
    }
    return undefined;
  }

  /** The observation is one of this package's sentences (nothing came back, an empty list). */
  wroteOwnSentence = false;

  clean(value: unknown): CleanResult {
    const content = this.reader.read(value);
    if (content.kind === "empty") {
      this.wroteOwnSentence = true;
      return this.finish(content.text, false);
    }
    if (content.kind === "text") {
      if (content.tailShare >= 0.25 && looksLikeLog(content.text)) {
        const log = condenseLog(content.text, this.options.maxChars, this.notes);
        return this.finish(log.text, log.truncated);
      }
      const fitted = this.fitText(content.text, content.tailShare);
      return this.finish(fitted.text, fitted.truncated);
    }
    const fromTemplate = this.fromTemplate(content.tree);
    if (fromTemplate !== undefined) {
      const fitted = this.fitText(fromTemplate, 0.2);
      return this.finish(fitted.text, fitted.truncated);
    }
    const matchers = { keep: new PathMatcher(this.options.keep), drop: new PathMatcher(this.options.drop) };
    let condensed = condenseTree(content.tree, { ...matchers, dropNoise: this.options.dropNoise, dropNulls: this.options.dropNulls }, this.notes);
    if (condensed === undefined) {
      condensed = condenseTree(content.tree, { ...matchers, dropNoise: false, dropNulls: false }, this.notes);
      if (condensed !== undefined) this.notes.add("nothing was left after dropping noise; showing every field");
    }
    if (condensed === undefined) {
      const kind = content.tree.kind === "array" ? "list" : content.tree.kind === "table" ? "table" : "object";
      this.wroteOwnSentence = true;
      return this.finish(emptyContainerText(kind), false);
    }
    let fitted = this.fitTree(condensed);
    if (fitted.text.length > this.rawChars && this.options.style === "text") {
      // Never longer than the input: a small payload whose lines come out longer than its JSON
      // (deep nesting, short values) is written as compact JSON instead.
      const compact = this.neutralize(renderJson(condensed, RENDER_LEVELS[0] as RenderLimits, this.options.maxChars + 1).text);
      if (compact.length < fitted.text.length && compact.length <= this.options.maxChars) {
        fitted = { text: compact, truncated: fitted.truncated };
        this.notes.add("wrote compact JSON, shorter than the lines");
      }
    }
    return this.finish(fitted.text, fitted.truncated);
  }
}

/**
 * Cleans with options already resolved (what {@link ObservationCleaner} calls per tool).
 * Never throws.
 */
export function cleanWithResolvedOptions(
  value: unknown,
  options: Readonly<CleanObservationOptions>,
  context: ObservationContext = {},
): CleanedObservation {
  const rawChars = measureRawChars(value);
  // No token is longer than a few characters in practice: with a token budget, never render (and
  // so never count) more than 8 characters per allowed token.
  const effective =
    options.maxTokens !== undefined && options.maxTokens * 8 < options.maxChars
      ? { ...options, maxChars: Math.max(200, options.maxTokens * 8) }
      : options;
  // Only plain data has a JSON that says what it holds (a Map's JSON is "{}"): only its size bounds the observation.
  const rawText = rawChars > 0 && rawChars <= effective.maxChars ? rawTextOf(value) : undefined;
  const cleaner = new Cleaner(effective, context, rawText !== undefined ? rawChars : Number.MAX_SAFE_INTEGER);
  let result: CleanResult;
  try {
    result = cleaner.clean(value);
    if (rawText !== undefined && result.text.length > rawChars && !cleaner.wroteOwnSentence) {
      // Never longer than the input: a small payload stays as it is.
      if (rawText.trim().length > 0) {
        const asIs = cleaner.finish(normalizeControlCharacters(rawText.trim(), cleaner.notes), false);
        if (asIs.text.length < result.text.length) {
          result = asIs;
          cleaner.notes.add("kept the input as it was (the cleaned form was longer)");
        }
      }
    }
  } catch (error) {
    cleaner.notes.add(`cleaning failed (${error instanceof Error ? error.message : String(error)}); kept a preview`);
    const text = truncateText(unreadableValueText(previewOf(value)), options.maxChars, 0).text;
    result = { text, truncated: true, tokens: estimateTokens(text), tokensExact: false };
  }
  return Object.freeze({
    text: result.text,
    truncated: result.truncated || cleaner.notes.cut,
    rawChars,
    cleanChars: result.text.length,
    tokens: result.tokens,
    tokensExact: result.tokensExact,
    fingerprint: fingerprintObservation(result.text),
    notes: Object.freeze(cleaner.notes.list()),
  });
}

/**
 * Turns any tool result into a short, safe observation that keeps the facts. Pure and
 * synchronous; never throws on any value (only on invalid options).
 *
 * @param value - what the tool returned: a string (JSON, XML, HTML or text), an object, array,
 *   `Buffer`/`Uint8Array`, `Date`, `BigInt`, `Map`, `Set`, `Error`, circular structures, `null`…
 * @param options - partial {@link CleanObservationOptions} over {@link DEFAULT_CLEAN_OBSERVATION_OPTIONS}
 * @param context - the tool name and input, passed to a `template`
 * @returns the observation text and what was done to it
 * @throws {ObservationCleanerOptionsError} when an option is invalid
 * @example
 * ```ts
 * const { text, truncated, notes } = cleanObservation(await fetch(url).then((r) => r.text()));
 * ```
 */
export function cleanObservation(
  value: unknown,
  options?: Partial<CleanObservationOptions>,
  context?: ObservationContext,
): CleanedObservation {
  return cleanWithResolvedOptions(value, resolveCleanObservationOptions(options), context);
}
