import { defineConfig } from "vitest/config"

/**
 * The heavy suites run one file at a time, in a worker thread of their own beside the suite's two
 * forks, so they neither starve each other nor wait for the suite to end (docs/testing.md):
 * - many processes each: the built service killed and restarted, replicas, the bench's CI-size runs;
 * - PostgreSQL: each file starts an ephemeral cluster (initdb, a server and its workers);
 * - browsers: Chromium driven over CDP;
 * - packaging: `npm pack`, installs into scratch projects, a TypeScript consumer, other Node lines;
 * - a backlog of 10,000 traces and 20,000 runs whose turns on the event loop are what is measured.
 */
const HEAVY = [
  // many processes, SIGKILL
  "test/runs/kill.test.ts",
  "test/runs/replicas.test.ts",
  "test/runs/bench.test.ts",
  "test/otlp/kill.test.ts",
  "test/otlp/replicas.test.ts",
  "test/problems/alerts-kill.test.ts",
  "test/operations/drain.test.ts",
  "test/operations/redis.test.ts",
  // PostgreSQL
  "test/runs/postgres.test.ts",
  "test/runs/api-postgres.test.ts",
  "test/problems/regroup.test.ts",
  "test/store/*.test.ts",
  // browsers
  "test/ui/dashboard.test.ts",
  "test/ui/pages.test.ts",
  "test/docs/docs.test.ts",
  // packaging
  "test/packaging/*.test.ts",
  // the event loop's turns under a backlog
  "test/otlp/yielding.test.ts"
]

export default defineConfig({
  test: {
    globalSetup: ["test/setup/global.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two forks for the suite: vitest's default is one fewer than the cores, which on the 2-core CI
    // machine ran every file one after another while the second core waited on the tests' sleeps
    // and child processes. The heavy files run one at a time in a worker thread (`threads` is their
    // pool alone): vitest starts a pool's files beside another pool's, whereas a forks pool runs its
    // single-fork files only after the rest (so the heavy files' 400 s came after the suite's 330 s).
    poolOptions: { forks: { execArgv: ["--expose-gc"], maxForks: 2 }, threads: { singleThread: true } },
    reporters: ["default", "./test/setup/summary-reporter.ts"],
    projects: [
      { extends: true, test: { name: "suite", include: ["test/**/*.test.ts"], exclude: HEAVY } },
      { extends: true, test: { name: "heavy", include: HEAVY, pool: "threads" } }
    ]
  }
})
