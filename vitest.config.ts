import { defineConfig } from "vitest/config"

/**
 * The heavy scenarios (many processes each: the built service killed and restarted, replicas on
 * PostgreSQL, the bench's CI-size runs) run one file at a time in a fork of their own, beside the
 * rest, so they do not starve each other of the machine's two cores.
 */
const HEAVY = [
  "test/runs/kill.test.ts",
  "test/runs/replicas.test.ts",
  "test/runs/bench.test.ts",
  "test/otlp/kill.test.ts",
  "test/otlp/replicas.test.ts",
  "test/problems/alerts-kill.test.ts"
]

export default defineConfig({
  test: {
    globalSetup: ["test/setup/global.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    poolOptions: { forks: { execArgv: ["--expose-gc"] } },
    reporters: ["default", "./test/setup/summary-reporter.ts"],
    projects: [
      { extends: true, test: { name: "suite", include: ["test/**/*.test.ts"], exclude: HEAVY } },
      { extends: true, test: { name: "heavy", include: HEAVY, poolOptions: { forks: { singleFork: true } } } }
    ]
  }
})
