/**
 * Microsoft's SARIF validator (`@microsoft/sarif-multitool`, a devDependency) over a log, with its
 * SARIF and GitHub code-scanning rules: the errors and warnings it reports.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "@effect/vitest"

const root = join(import.meta.dirname, "..", "..")

export interface Validation {
  readonly errors: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
  readonly output: string
}

export const validateSarif = (log: unknown, name: string): Validation => {
  const dir = mkdtempSync(join(tmpdir(), "svc-sarif-"))
  const file = join(dir, `${name}.sarif`)
  const out = join(dir, `${name}.validation.sarif`)
  writeFileSync(file, typeof log === "string" ? log : JSON.stringify(log, null, 2))
  // The package's bin runs the tool through a shell: the rule-kind list is quoted for it.
  const result = spawnSync("npx", ["sarif-multitool", "validate", file, "--output", out, "--log", "ForceOverwrite", "--rule-kind", "\"Sarif;Gh\""], {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000
  })
  const output = `${result.stdout}${result.stderr}`
  expect(result.status, output).toBe(0)
  expect(output, output).toContain("Analysis completed successfully")
  const report: unknown = JSON.parse(readFileSync(out, "utf8"))
  const errors: Array<string> = []
  const warnings: Array<string> = []
  const runs = typeof report === "object" && report !== null && "runs" in report && Array.isArray(report.runs) ? report.runs : []
  for (const run of runs) {
    const results: unknown = typeof run === "object" && run !== null && "results" in run ? run.results : []
    for (const item of Array.isArray(results) ? results : []) {
      const level = typeof item === "object" && item !== null && "level" in item ? String(item.level) : "warning"
      const rule = typeof item === "object" && item !== null && "ruleId" in item ? String(item.ruleId) : "?"
      const text = JSON.stringify(typeof item === "object" && item !== null && "message" in item ? item.message : item)
      ;(level === "error" ? errors : warnings).push(`${rule}: ${text}`)
    }
  }
  for (const line of output.split("\n")) if (/: error [A-Z]+\d+/.test(line)) errors.push(line)
  return { errors, warnings, output }
}
