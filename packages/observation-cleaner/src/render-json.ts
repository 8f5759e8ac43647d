/** Writes a condensed tree as compact JSON (numbers as written in the source). */
import { moreFieldsMarker, moreItemsMarker, moreRowsMarker } from "./messages";
import { isScalar, scalarText, type ListGap, type ScalarNode, type TreeNode } from "./tree";
import { listWindow, shortenString, stringLimit, type RenderLimits, type RenderOutput } from "./render";
import { tableSummaryLine } from "./table-summary";

class JsonRenderer {
  private readonly parts: string[] = [];
  private length = 0;
  overflow = false;
  cut = false;

  constructor(
    private readonly limits: RenderLimits,
    private readonly cap: number,
  ) {}

  private push(text: string): void {
    if (this.overflow) return;
    this.parts.push(text);
    this.length += text.length;
    if (this.length > this.cap) this.overflow = true;
  }

  private scalar(node: ScalarNode, priority: boolean): void {
    if (node.kind === "string") {
      const max = stringLimit(this.limits, node.value, priority);
      if (node.value.length > max) this.cut = true;
      this.push(JSON.stringify(shortenString(node.value, max)));
    } else this.push(scalarText(node));
  }

  private list(count: number, gap: ListGap, priority: boolean, each: (index: number) => void, marker: (omitted: number) => string): void {
    const { head, tailStart, omitted } = listWindow(count, gap, this.limits, priority);
    this.push("[");
    for (let index = 0; index < head && !this.overflow; index += 1) {
      if (index > 0) this.push(",");
      each(index);
    }
    if (omitted > 0) {
      this.cut = true;
      this.push(`,${JSON.stringify(marker(omitted))}`);
      for (let index = tailStart; index < count && !this.overflow; index += 1) {
        this.push(",");
        each(index);
      }
    }
    this.push("]");
  }

  value(node: TreeNode, depth: number, priority: boolean): void {
    if (this.overflow) return;
    if (isScalar(node)) {
      this.scalar(node, priority);
      return;
    }
    if (depth >= this.limits.maxDepth) {
      this.cut = true;
      this.push(JSON.stringify(node.kind === "object" ? `[${node.entries.length} fields omitted]` : "[omitted]"));
      return;
    }
    if (node.kind === "array") {
      this.list(node.items.length, node, priority, (index) => this.value(node.items[index] as TreeNode, depth + 1, priority), moreItemsMarker);
      return;
    }
    if (node.kind === "table") {
      this.push(`{"columns":${JSON.stringify(node.columns)}`);
      if (node.constants.length > 0) {
        this.push(',"inEveryRow":{');
        node.constants.forEach(([name, value], index) => {
          this.push(`${index > 0 ? "," : ""}${JSON.stringify(name)}:`);
          this.scalar(value, false);
        });
        this.push("}");
      }
      this.push(',"rows":');
      this.list(
        node.rows.length,
        node,
        false,
        (index) => {
          const cells = node.rows[index] as ScalarNode[];
          this.push("[");
          cells.forEach((cell, cellIndex) => {
            if (cellIndex > 0) this.push(",");
            this.scalar(cell, false);
          });
          this.push("]");
        },
        moreRowsMarker,
      );
      const window = listWindow(node.rows.length, node, this.limits, false);
      if (window.omitted > 0) this.push(`,"summary":${JSON.stringify(tableSummaryLine(node, window.head + (node.rows.length - window.tailStart), this.limits.summaryMax + 40))}`);
      this.push("}");
      return;
    }
    const shown = Math.min(node.entries.length, this.limits.maxFields);
    this.push("{");
    for (let index = 0; index < shown && !this.overflow; index += 1) {
      const [key, value] = node.entries[index] as [string, TreeNode];
      this.push(`${index > 0 ? "," : ""}${JSON.stringify(key)}:`);
      this.value(value, depth + 1, /^(?:errors?|status|state|code|message)$/i.test(key));
    }
    if (shown < node.entries.length) {
      this.cut = true;
      this.push(`,${JSON.stringify("…")}:${JSON.stringify(moreFieldsMarker(node.entries.length - shown))}`);
    }
    this.push("}");
  }

  text(): string {
    return this.parts.join("");
  }
}

/** Renders a tree as compact JSON (numbers as written in the source). */
export function renderJson(node: TreeNode, limits: RenderLimits, cap: number): RenderOutput {
  const renderer = new JsonRenderer(limits, cap);
  renderer.value(node, 0, false);
  return { text: renderer.text(), overflow: renderer.overflow, cut: renderer.cut };
}
