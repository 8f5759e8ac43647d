import { defineConfig, type Options } from "tsup";

/**
 * The one build every published Reins package uses (called from each package's tsup.config.ts,
 * like TanStack's `modernConfig`): ESM and CJS for Node 20, with declarations and source maps,
 * typed against the package's tsconfig.build.json.
 *
 * @param entry - the package's entry points, relative to the package
 * @returns the tsup configuration
 */
export function reinsPackageConfig(entry: readonly string[] = ["src/index.ts"]): Options {
  return {
    entry: [...entry],
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "node20",
    tsconfig: "tsconfig.build.json",
  };
}

export { defineConfig };
