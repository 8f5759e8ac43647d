import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/** Packages whose README lists their reviewed public API (`src/index.ts`). */
const PACKAGES = [
  "core",
  "metrics",
  "tool-executor",
  "observation-cleaner",
  "redis-store",
  "otel",
  "agent-middleware",
  "loop-control",
  "react-agent",
  "react-output-parser",
];

const packagesDirectory = resolve(__dirname, "../..");

/** Every name `src/index.ts` re-exports (values and types), read from its `export { … } from` lists. */
function exportedNames(indexSource: string): string[] {
  const source = indexSource.replace(/\/\/[^\n]*/g, "");
  return [...source.matchAll(/export (?:type )?\{([^}]*)\} from "[^"]+";/g)].flatMap((match) =>
    match[1]
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item.length > 0)
      .map((item) => item.replace(/^type\s+/, "").split(/\s+as\s+/).pop() as string),
  );
}

describe.each(PACKAGES)("@reins/%s README", (packageName) => {
  const indexSource = readFileSync(resolve(packagesDirectory, packageName, "src/index.ts"), "utf8");
  const readme = readFileSync(resolve(packagesDirectory, packageName, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Exports (`src/index.ts`)"));

  it("re-exports only through named lists (no export *), so the list below is complete", () => {
    expect(indexSource).not.toMatch(/export \*/);
    expect(exportedNames(indexSource).length).toBeGreaterThan(0);
  });

  it("lists every index.ts export in its Exports section, and nothing more", () => {
    expect(readme).toContain("## Exports (`src/index.ts`)");
    const listed = [...section.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((match) => match[1]);
    const exported = exportedNames(indexSource);
    for (const name of exported) expect(listed).toContain(name);
    const modules = new Set([...indexSource.matchAll(/from "\.\/([^"]+)"/g)].map((match) => match[1]));
    for (const name of listed) if (!modules.has(name)) expect(exported).toContain(name);
  });
});
