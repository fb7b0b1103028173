import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Two cores: two workers keep the suites fast without starving the database servers.
    maxWorkers: 2,
  },
});
