import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // Generous: the suites share two cores with PostgreSQL and Redis; timings are measured in bench/, never here.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: two workers keep the suites fast without starving the database servers.
    maxWorkers: 2,
    // A file whose only suites need a server that is not here (Redis, a browser) generates no
    // suite; global setup says which in one line. Under CI=true every server is mandatory, so an
    // empty file there is a mistake and fails.
    passWithNoTests: process.env.CI !== "true",
  },
});
