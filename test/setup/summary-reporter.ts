/**
 * Prints the slowest test files (their tests' and hooks' time, plus collecting them, per file) and
 * then one plain closing line, `tests: N passed, N failed[, N skipped]`, after vitest's own
 * summary, so CI logs end with a count any reader (or machine) can parse, and the files to look at
 * when the suite grows slow are named in every run (docs/testing.md). A file that fails outside
 * its tests (its import or a hook) counts as one failure.
 */
import { relative } from "node:path"
import type { Reporter, TestModule } from "vitest/node"

/** How many of the slowest files are listed. */
const SLOWEST = 15

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>) {
    let passed = 0
    let failed = unhandledErrors.length
    let skipped = 0
    for (const module of testModules) {
      let failedHere = 0
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === "passed") passed += 1
        else if (state === "failed") failedHere += 1
        else skipped += 1
      }
      // A file that failed outside its tests (its import, a beforeAll or afterAll hook) is one
      // failure more: its tests show as skipped, and the line must not say 0 failed.
      failed += failedHere + (module.state() === "failed" && failedHere === 0 ? 1 : 0)
    }
    const timed = testModules.map((module) => {
      const diagnostic = module.diagnostic()
      return { file: relative(process.cwd(), module.moduleId), project: module.project.name, ms: diagnostic.duration + diagnostic.collectDuration }
    })
    const slowest = [...timed].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST)
    const total = timed.reduce((sum, one) => sum + one.ms, 0)
    const table = slowest.map((one) => `  ${(one.ms / 1000).toFixed(1).padStart(7)} s  ${one.file} (${one.project})`).join("\n")
    const report = `\nslowest test files (of ${timed.length}, ${(total / 1000).toFixed(0)} s in all):\n${table}\n`
    const line = `tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`
    // Written at exit so it follows vitest's own summary, the count as the last line.
    process.once("exit", () => process.stdout.write(`${report}\n${line}\n`))
  }
}
