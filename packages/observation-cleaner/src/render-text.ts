/**
 * Writes a condensed tree as `key: value` lines: nested fields indented, lists as `- ` items,
 * tables as `a | b | c` rows with an all-rows summary when rows are cut.
 */
import { moreFieldsMarker, moreItemsMarker, moreRowsMarker, identifiedItemsMarker } from "./messages";
import { isScalar, scalarText, type ListGap, type ScalarNode, type TableNode, type TreeNode } from "./tree";
import { IDENTITY_FIELDS, IDENTITY_SHARE, identityLines } from "./record-identity";
import { cellText, listWindow, pickColumns, pickFields, previewLeaves, shortenString, stringLimit, Writer, type RenderLimits, type RenderOutput } from "./render";
import { tableSummaryLine } from "./table-summary";

class TextRenderer {
  /** Lists being written around the current item; 0 at the outermost list. */
  private listNesting = 0;

  constructor(
    private readonly writer: Writer,
    private readonly limits: RenderLimits,
  ) {}

  scalarLine(prefix: string, continuation: string, node: ScalarNode, priority: boolean): void {
    let text = scalarText(node);
    if (node.kind === "string" && node.value === "" ) text = '""';
    const max = stringLimit(this.limits, text, priority);
    if (text.length > max) {
      text = shortenString(text, max);
      this.writer.cut = true;
    }
    if (!text.includes("\n")) {
      this.writer.line(prefix + text);
      return;
    }
    const lines = text.split("\n");
    this.writer.line(prefix + (lines[0] ?? ""));
    for (let index = 1; index < lines.length && !this.writer.overflow; index += 1) {
      const line = lines[index] ?? "";
      this.writer.line(line.length > 0 ? continuation + line : "");
    }
  }

  entries(entries: ReadonlyArray<[string, TreeNode]>, indent: string, firstPrefix: string, depth: number): void {
    const { shown, rest } = pickFields(entries, this.limits.maxFields);
    shown.forEach(([key, value], index) => {
      if (!this.writer.overflow) this.field(index === 0 ? firstPrefix : indent, indent, key, value, depth);
    });
    if (rest.length > 0) {
      this.writer.cut = true;
      const restNode: TreeNode = { kind: "object", entries: rest };
      this.writer.line(`${indent}${moreFieldsMarker(rest.length)}: ${previewLeaves(restNode, this.limits.stringMax * 10)}`);
    }
  }

  field(linePrefix: string, indent: string, rawKey: string, rawValue: TreeNode, depth: number): void {
    let key = rawKey;
    let value = rawValue;
    for (;;) {
      if (value.kind === "object" && value.entries.length === 1) {
        const [childKey, childValue] = value.entries[0] as [string, TreeNode];
        key = `${key}.${childKey}`;
        value = childValue;
      } else if (value.kind === "array" && value.items.length === 1 && value.skipped === undefined && value.items[0]?.kind === "object") {
        // A list of one record reads as the record.
        value = value.items[0];
      } else break;
    }
    const priority = /(?:^|\.)(?:errors?|status|state|code|message|error_\w+|\w+_error)$/i.test(key);
    if (isScalar(value)) {
      this.scalarLine(`${linePrefix}${key}: `, `${indent}  `, value, priority);
      return;
    }
    if (value.kind === "table") {
      this.table(`${linePrefix}${key}`, `${indent}  `, value);
      return;
    }
    if (depth >= this.limits.maxDepth && !priority) {
      this.writer.cut = true;
      this.writer.line(`${linePrefix}${key}: ${previewLeaves(value, this.limits.stringMax * 4)}`);
      return;
    }
    if (value.kind === "array") {
      const inline = this.inlineList(value.items, priority, value);
      if (inline !== undefined) {
        this.writer.line(`${linePrefix}${key}: ${inline}`);
        return;
      }
      this.writer.line(`${linePrefix}${key}:`);
      this.items(value.items, `${indent}  `, depth + 1, priority, value);
      return;
    }
    const inline = this.inlineRecord(value.entries);
    if (inline !== undefined) {
      this.writer.line(`${linePrefix}${key}: ${inline}`);
      return;
    }
    this.writer.line(`${linePrefix}${key}:`);
    this.entries(value.entries, `${indent}  `, `${indent}  `, depth + 1);
  }

  /** A small record of scalars on one line: `{city: CLOVIS, countryCode: US}`. */
  inlineRecord(entries: ReadonlyArray<[string, TreeNode]>): string | undefined {
    if (entries.length > 8) return undefined;
    const parts: string[] = [];
    let length = 0;
    for (const [key, value] of entries) {
      if (!isScalar(value)) return undefined;
      const text = scalarText(value);
      if (text.includes("\n") || text.length > 60) return undefined;
      const part = `${key}: ${text === "" ? '""' : text}`;
      length += part.length + 2;
      if (length > 160) return undefined;
      parts.push(part);
    }
    return `{${parts.join(", ")}}`;
  }

  inlineList(items: readonly TreeNode[], priority: boolean, gap: ListGap = {}): string | undefined {
    if (!items.every((item) => isScalar(item) && !scalarText(item).includes("\n") && scalarText(item).length <= 120)) return undefined;
    const { head, tailStart, omitted } = listWindow(items.length, gap, this.limits, priority);
    const texts: string[] = [];
    const pushItem = (item: TreeNode): void => {
      const text = scalarText(item as ScalarNode);
      texts.push(text === "" ? '""' : text);
    };
    for (let index = 0; index < head; index += 1) pushItem(items[index] as TreeNode);
    if (omitted > 0) {
      this.writer.cut = true;
      texts.push(moreItemsMarker(omitted));
      for (let index = tailStart; index < items.length; index += 1) pushItem(items[index] as TreeNode);
    }
    return texts.join(", ");
  }

  item(item: TreeNode, indent: string, depth: number, priority: boolean): void {
    if (isScalar(item)) this.scalarLine(`${indent}- `, `${indent}  `, item, priority);
    else if (item.kind === "object") {
      if (depth >= this.limits.maxDepth) {
        this.writer.cut = true;
        this.writer.line(`${indent}- ${previewLeaves(item, this.limits.stringMax * 4)}`);
      } else this.entries(item.entries, `${indent}  `, `${indent}- `, depth + 1);
    } else if (item.kind === "table") this.table(`${indent}-`, `${indent}  `, item);
    else {
      const inline = this.inlineList(item.items, priority, item);
      if (inline !== undefined) this.writer.line(`${indent}- [${inline}]`);
      else {
        this.writer.line(`${indent}-`);
        this.items(item.items, `${indent}  `, depth + 1, priority, item);
      }
    }
  }

  items(items: readonly TreeNode[], indent: string, depth: number, priority: boolean, gap: ListGap = {}): void {
    const { head, tailStart, omitted } = listWindow(items.length, gap, this.limits, priority);
    const outermost = this.listNesting === 0;
    this.listNesting += 1;
    for (let index = 0; index < head && !this.writer.overflow; index += 1) this.item(items[index] as TreeNode, indent, depth, priority);
    if (omitted > 0) {
      this.writer.cut = true;
      // The outermost list of records: the records left out keep their identifying fields
      // (top-down: every record is named before any record's detail).
      // When not all of them fit, the last records' detail gives way to more identities.
      const room = this.writer.capacity * IDENTITY_SHARE;
      let identities = outermost ? identityLines(items.slice(head, tailStart), room) : undefined;
      let detailFrom = tailStart;
      if (identities !== undefined && identities.unlisted > 0) {
        for (const fields of [IDENTITY_FIELDS, IDENTITY_FIELDS - 1, IDENTITY_FIELDS - 2]) {
          const wider = identityLines(items.slice(head), room, fields);
          if (wider !== undefined && wider.unlisted < identities.unlisted) {
            identities = wider;
            detailFrom = items.length;
          }
          if (identities.unlisted === 0) break;
        }
      }
      const shown = detailFrom === items.length ? items.length - head : omitted;
      if (identities === undefined) this.writer.line(`${indent}- ${moreItemsMarker(omitted)}`);
      else {
        this.writer.line(`${indent}- ${identifiedItemsMarker(shown, identities.lines.length)}`);
        for (const line of identities.lines) this.writer.line(`${indent}  - ${line}`);
        if (identities.unlisted > 0) this.writer.line(`${indent}  - ${moreItemsMarker(identities.unlisted)}`);
      }
      for (let index = detailFrom; index < items.length && !this.writer.overflow; index += 1) {
        this.item(items[index] as TreeNode, indent, depth, priority);
      }
    }
    this.listNesting -= 1;
  }

  table(header: string, indent: string, table: TableNode): void {
    const count = table.rows.length;
    const total = count + (table.skipped ?? 0);
    this.writer.line(`${header}${header ? " " : ""}(${total} rows):`);
    if (table.constants.length > 0) {
      const constants = table.constants
        .map(([name, value]) => `${name} = ${cellText(value, this.limits)}`)
        .join("; ");
      this.writer.line(`${indent}in every row: ${constants}`);
    }
    const columns = pickColumns(table, this.limits.maxColumns);
    const hiddenColumns = table.columns.length - columns.length;
    if (hiddenColumns > 0) this.writer.cut = true;
    this.writer.line(`${indent}${columns.map((column) => table.columns[column]).join(" | ")}${hiddenColumns > 0 ? ` | (${hiddenColumns} more columns)` : ""}`);
    const { head, tailStart, omitted } = listWindow(count, table, this.limits, false);
    const row = (index: number): void => {
      const cells = table.rows[index] as ScalarNode[];
      this.writer.line(`${indent}${columns.map((column) => cellText(cells[column] as ScalarNode, this.limits)).join(" | ")}`);
    };
    for (let index = 0; index < head && !this.writer.overflow; index += 1) row(index);
    if (omitted > 0) {
      this.writer.cut = true;
      this.writer.line(`${indent}${moreRowsMarker(omitted)}`);
      for (let index = tailStart; index < count && !this.writer.overflow; index += 1) row(index);
      const shown = head + (count - tailStart);
      this.writer.line(`${indent}${tableSummaryLine(table, shown, this.limits.summaryMax + 40)}`);
    }
  }
}

/** Renders a tree as `key: value` text. */
export function renderText(node: TreeNode, limits: RenderLimits, cap: number): RenderOutput {
  const writer = new Writer(cap);
  const renderer = new TextRenderer(writer, limits);
  if (isScalar(node)) renderer.scalarLine("", "", node, false);
  else if (node.kind === "object") renderer.entries(node.entries, "", "", 0);
  else if (node.kind === "array") {
    const inline = renderer.inlineList(node.items, false, node);
    if (inline !== undefined) writer.line(inline);
    else renderer.items(node.items, "", 0, false, node);
  }
  else renderer.table("", "", node);
  return { text: writer.text(), overflow: writer.overflow, cut: writer.cut };
}
