import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/setup/global.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    poolOptions: { forks: { execArgv: ["--expose-gc"] } },
    reporters: ["default", "./test/setup/summary-reporter.ts"]
  }
})
