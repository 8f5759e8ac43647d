// The scenario counts the docs state are the demo's: every "N … scenarios" in a README or guide
// must equal DEMO_SCENARIOS.length, so a scenario added or removed fails here until the docs follow.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";
import { DEMO_SCENARIOS } from "./demo-scenarios";

const root = path.resolve(__dirname, "..", "..");

function markdownFiles(): string[] {
  const files = ["README.md", "CONTRIBUTING.md"];
  for (const name of readdirSync(path.join(root, "packages"))) {
    if (existsSync(path.join(root, "packages", name, "README.md"))) files.push(path.join("packages", name, "README.md"));
  }
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name !== "api") walk(path.join(dir, entry.name));
      else if (entry.name.endsWith(".md")) files.push(path.join(dir, entry.name));
    }
  };
  walk("docs");
  return files.filter((file) => existsSync(path.join(root, file)));
}

describe("scenario counts in the docs", () => {
  const claims = markdownFiles().flatMap((file) =>
    readFileSync(path.join(root, file), "utf8")
      .split("\n")
      .flatMap((line, index) => [...line.matchAll(/\b(\d+)((?:\s+[\w-]+){0,3})\s+scenarios\b/g)].map((match) => ({ where: `${file}:${index + 1}`, count: Number(match[1]), text: match[0] }))),
  );

  it("finds the counts it checks (the react-agent README states one)", () => {
    expect(claims.some((claim) => claim.where.startsWith(path.join("packages", "react-agent")))).toBe(true);
  });

  it(`states the demo's ${DEMO_SCENARIOS.length} scenarios everywhere`, () => {
    expect(claims.filter((claim) => claim.count !== DEMO_SCENARIOS.length)).toEqual([]);
  });
});
