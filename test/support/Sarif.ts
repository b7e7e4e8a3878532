/**
 * Microsoft's SARIF validator (`@microsoft/sarif-multitool`, a devDependency) over a log, with its
 * SARIF and GitHub code-scanning rules: the errors and warnings it reports. Run asynchronously: the
 * tool takes seconds (a dozen on a loaded machine), and a test's in-process service must go on
 * serving meanwhile (blocked, its idle keep-alive connections closed under the next request).
 */
import { execFile } from "node:child_process"
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

export const validateSarif = async (log: unknown, name: string): Promise<Validation> => {
  const dir = mkdtempSync(join(tmpdir(), "svc-sarif-"))
  const file = join(dir, `${name}.sarif`)
  const out = join(dir, `${name}.validation.sarif`)
  writeFileSync(file, typeof log === "string" ? log : JSON.stringify(log, null, 2))
  // The package's bin runs the tool through a shell: the rule-kind list is quoted for it.
  const result = await new Promise<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
    execFile("npx", ["sarif-multitool", "validate", file, "--output", out, "--log", "ForceOverwrite", "--rule-kind", "\"Sarif;Gh\""], {
      cwd: root,
      encoding: "utf8",
      timeout: 120_000
    }, (error, stdout, stderr) => resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }))
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
