/**
 * The real `svc` binary (bin/svc → dist/cli.mjs, built by the global setup) as a child process:
 * arguments, environment and standard input in; exit code, stdout and stderr out. The environment
 * is the test's alone (PATH and a fresh SVC_HOME), so no key of the machine leaks in.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const REPO = join(import.meta.dirname, "..", "..")
export const SVC = join(REPO, "bin", "svc")

export interface Ran {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export interface SvcOptions {
  readonly env?: Record<string, string>
  readonly input?: string
  readonly cwd?: string
  /** Called once the child runs (to signal it, say). */
  readonly started?: (pid: number) => void
}

export const freshHome = () => mkdtempSync(join(tmpdir(), "svc-cli-home-"))

export const svc = (args: ReadonlyArray<string>, options: SvcOptions = {}): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn(SVC, [...args], {
      cwd: options.cwd ?? REPO,
      env: { PATH: process.env["PATH"] ?? "", SVC_HOME: freshHome(), ...options.env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }))
    if (child.pid !== undefined) options.started?.(child.pid)
    if (options.input !== undefined) child.stdin.end(options.input)
    else child.stdin.end()
  })

/** Writes a file in a fresh directory and returns its path. */
export const tempFile = (name: string, content: string): string => {
  const dir = mkdtempSync(join(tmpdir(), "svc-cli-"))
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

/** A detection without what differs between two runs of the same analysis (timing, clock). */
export const stable = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(stable)
  if (typeof value !== "object" || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, entry] of Object.entries(value)) {
    if (key === "elapsed_ms" || key === "generated_at") continue
    out[key] = stable(entry)
  }
  return out
}

/**
 * Text output without the clock: ISO timestamps and elapsed times, their unit included (the
 * renderers' `duration` writes "840 ms", "1.2 s" or "1 min 5 s" by the time taken, which a loaded
 * machine moves from one to the next between two runs of the same report).
 */
export const withoutClock = (text: string): string =>
  text
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replace(/"(elapsed_ms|timeUnixNano|observedTimeUnixNano|startTimeUnixNano|endTimeUnixNano)": "?\d+(\.\d+)?"?/g, "\"$1\": 0")
    .replace(/\b\d+ min \d+ s\b|\b\d+(\.\d+)? (ms|s)\b/g, "<duration>")
