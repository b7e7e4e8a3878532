/**
 * Prints one plain closing line, `tests: N passed, N failed[, N skipped]`, after vitest's own
 * summary, so CI logs end with a count any reader (or machine) can parse.
 */
import type { Reporter, TestModule } from "vitest/node"

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>) {
    let passed = 0
    let failed = unhandledErrors.length
    let skipped = 0
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === "passed") passed += 1
        else if (state === "failed") failed += 1
        else skipped += 1
      }
      if (module.state() === "failed" && Array.from(module.children.allTests()).length === 0) failed += 1
    }
    const line = `tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`
    // Written at exit so it follows vitest's own summary as the last line.
    process.once("exit", () => process.stdout.write(`\n${line}\n`))
  }
}
