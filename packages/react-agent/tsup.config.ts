import { defineConfig, reinsPackageConfig } from "../../tsup.base";

export default defineConfig(reinsPackageConfig());
