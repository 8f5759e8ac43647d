import { defineConfig, reinsPackageConfig } from "../../tsup.base";

export default defineConfig(reinsPackageConfig(["src/index.ts", "src/cli.ts"]));
