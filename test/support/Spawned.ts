/**
 * The built service (dist/server.mjs) as its own process, for tests of what only a real process
 * shows (signals, draining, a kill): started on a free port with the provider double as its
 * OpenAI endpoint, its JSON log lines kept, ready when it logs `ready`.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const server = join(import.meta.dirname, "..", "..", "dist", "server.mjs")

export interface Spawned {
  readonly child: ChildProcess
  readonly url: string
  readonly logs: Array<{ readonly at: number; readonly line: Record<string, unknown> }>
  /** What it wrote on stdout that is not a log line (V8's traces, when a node flag asks for them). */
  readonly otherOutput: Array<string>
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly at: number }>
}

/**
 * Every run's lenses run (DECISIONS §24: a known failure's later runs otherwise end on their
 * checks), for tests that count one model call per run: every run sampled, no daily bound reached.
 */
export const EXPLAIN_EVERY_RUN: Readonly<Record<string, string>> = { SVC_EXPLAIN_SAMPLE: "1", SVC_EXPLAIN_MAX_PER_DAY: "100000" }

/**
 * The service with the double at `doubleUrl` (its OpenAI wire) and `env` over the defaults (a new
 * SVC_HOME, no drain delay: a SIGTERM stops it without the 5 s a load balancer is given to notice
 * readiness fail, which is only waited for in tests of the drain, and they set their own), run by
 * node with `nodeFlags` (none: as `spawn` runs it, without `npm start`'s).
 */
export const spawnService = async (
  doubleUrl: string,
  env: Record<string, string>,
  nodeFlags: ReadonlyArray<string> = []
): Promise<Spawned> => {
  const child = spawn(process.execPath, [...nodeFlags, server], {
    env: {
      PATH: process.env["PATH"] ?? "",
      SVC_PORT: "0",
      SVC_HOME: mkdtempSync(join(tmpdir(), "svc-home-")),
      OPENAI_API_KEY: "sk-spawned-0123456789abcdef",
      OPENAI_BASE_URL: `${doubleUrl}/v1`,
      SVC_DRAIN_DELAY_SECONDS: "0",
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const logs: Spawned["logs"] = []
  const otherOutput: Array<string> = []
  let resolveUrl: (url: string) => void = () => undefined
  const ready = new Promise<string>((resolve) => {
    resolveUrl = resolve
  })
  let pending = ""
  child.stdout?.setEncoding("utf8")
  child.stdout?.on("data", (chunk: string) => {
    pending += chunk
    const lines = pending.split("\n")
    pending = lines.pop() ?? ""
    for (const text of lines) {
      try {
        const line: Record<string, unknown> = JSON.parse(text)
        logs.push({ at: Date.now(), line })
        const annotations = line["annotations"]
        if (line["message"] === "ready" && typeof annotations === "object" && annotations !== null) {
          const address = Reflect.get(annotations, "address")
          if (typeof address === "string") resolveUrl(address)
        }
      } catch {
        otherOutput.push(text)
      }
    }
  })
  child.stderr?.resume()
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, at: Date.now() }))
  )
  const url = await Promise.race([ready, exited.then(() => Promise.reject(new Error("the service exited before it was ready")))])
  return { child, url, logs, otherOutput, exited }
}
