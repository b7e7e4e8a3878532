/**
 * What the bench scripts share (bench/run.ts, bench/agents.ts, bench/compare.ts): launching a
 * built service and the provider double, a free loopback port, stopping a child process the way
 * the service drains, one authenticated POST, the ledger trace, a process's CPU time from /proc,
 * medians and rounding, and the results file. A bench that imports this writes its temporary files
 * (homes, stores, traces) in one scratch directory, TMPDIR for it and what it starts, removed when
 * its process exits (test/support/Scratch.ts); before, the benches left gigabytes in /tmp.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { type Agent, request as httpRequest } from "node:http"
import { createServer as createNetServer } from "node:net"
import { cpus, tmpdir, totalmem } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import packageJson from "../package.json" with { type: "json" }
import { scratchAsTmpdir } from "../test/support/Scratch.js"

const scratch = scratchAsTmpdir("svc-bench-run-")
process.on("exit", scratch.remove)

/** The node flags of an `npm start` command (`node <flags> dist/server.mjs`). */
export const startFlagsOf = (start: string): ReadonlyArray<string> =>
  (/^node\s+(.*?)\s*dist\/server\.mjs/.exec(start)?.[1] ?? "").split(" ").filter((flag) => flag.length > 0)

/** The node flags `npm start` runs the service with (package.json), so a bench measures what users run. */
export const START_FLAGS: ReadonlyArray<string> = startFlagsOf(packageJson.scripts.start)

/** A loopback port free at the moment of asking. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createNetServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

/** SIGINT (the service drains without the SIGTERM routing delay and --cpu-prof writes its profile), SIGKILL after 10 s. */
export const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    const kill = setTimeout(() => child.kill("SIGKILL"), 10_000)
    child.once("exit", () => {
      clearTimeout(kill)
      resolve()
    })
    child.kill("SIGINT")
  })

/** CPU time (user + system) in ms from a /proc stat file (clock ticks of 10 ms). */
const cpuMsIn = (path: string): number => {
  const stat = readFileSync(path, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (clock ticks of 10 ms). */
export const cpuMsOf = (pid: number | undefined): number => (pid === undefined ? Number.NaN : cpuMsIn(`/proc/${pid}/stat`))

/**
 * CPU time this process's main thread has used so far, in ms (clock ticks of 10 ms): the JavaScript
 * that ran, without the time spent waiting for a core that other processes held, nor the helper
 * threads' (concurrent GC, compilation); NaN where /proc is not there.
 */
export const mainThreadCpuMs = (): number => {
  const path = `/proc/self/task/${process.pid}/stat`
  return existsSync(path) ? cpuMsIn(path) : Number.NaN
}

export const median = (xs: ReadonlyArray<number>) => {
  const sorted = xs.slice().sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] ?? Number.NaN : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

export const round2 = (x: number) => Math.round(x * 100) / 100

/** The key every bench service is started with. */
export const BENCH_KEY = "bench-key-0123456789abcdef"

const children: Array<ChildProcess> = []
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL")
})

/** A child the bench started: killed when the bench exits, however it exits. */
export const track = (child: ChildProcess): ChildProcess => {
  children.push(child)
  return child
}

export interface LaunchedService {
  readonly child: ChildProcess
  readonly url: string
  /** From spawn to /readyz answering 200. */
  readonly startedMs: number
}

/**
 * A built service (`server`: a dist/server.mjs) on a free port with auth, a rate limit too high to
 * bite and request ids on, as the benches run it; `flags` are node's. Ready when /readyz is 200.
 */
export const launchService = (server: string, flags: ReadonlyArray<string>, env: Record<string, string>): Promise<LaunchedService> =>
  launchWith((serviceEnv) => spawn(process.execPath, [...flags, server], { env: serviceEnv, stdio: ["ignore", "ignore", "inherit"] }), env)

/** The same with the child started by `start`, given the service's environment (a probe fork, say). */
export const launchWith = async (start: (env: NodeJS.ProcessEnv) => ChildProcess, env: Record<string, string>): Promise<LaunchedService> => {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const started = performance.now()
  const child = track(start({
    PATH: process.env["PATH"] ?? "",
    SVC_PORT: String(port),
    SVC_HOME: mkdtempSync(join(tmpdir(), "svc-bench-")),
    SVC_LOG_LEVEL: "warning",
    SVC_API_REQUIRE_AUTH: "true",
    SVC_API_KEYS: `bench=${BENCH_KEY}`,
    SVC_API_RATE_LIMIT: "1000000000/60",
    ...env
  }))
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited (${child.exitCode})`)
    if ((await fetch(`${url}/readyz`).then((r) => r.status, () => 0)) === 200) break
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return { child, url, startedMs: performance.now() - started }
}

/** One line of a bench report. */
export interface Row {
  readonly scenario: string
  readonly metric: string
  readonly service: number
  readonly baseline: number | null
  readonly ratio: number | null
  readonly goal: string
  readonly met: boolean | null
  readonly detail?: Record<string, number | string>
}

/** The first line a child writes on stdout (a port, an address). */
export const firstLine = (child: ChildProcess) =>
  new Promise<string>((resolve, reject) => {
    let buffer = ""
    child.stdout?.setEncoding("utf8")
    child.stdout?.on("data", (chunk: string) => {
      buffer += chunk
      const newline = buffer.indexOf("\n")
      if (newline >= 0) resolve(buffer.slice(0, newline))
    })
    child.on("exit", (code) => reject(new Error(`process exited early (${code})`)))
  })

/** The provider double (bench/double.ts) as its own process, answering after `delayMs`; `calls()` counts the model calls it received. */
export const startDouble = async (delayMs: number) => {
  // node itself (not the tsx wrapper, whose child would outlive a kill) with tsx as a loader.
  const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "double.ts"), String(delayMs)], { cwd: join(import.meta.dirname, ".."), stdio: ["ignore", "pipe", "inherit"] })
  track(child)
  const [url = "", stats = ""] = (await firstLine(child)).split(" ")
  const calls = async () => {
    const body: unknown = await (await fetch(stats)).json()
    return typeof body === "object" && body !== null ? Number(Reflect.get(body, "calls")) : Number.NaN
  }
  return { child, url, calls }
}

/** One POST; `status` 0 with `error` (the socket error code) when no HTTP answer came. */
export const postJson = (url: string, body: string, agent: Agent) =>
  new Promise<{ status: number; ms: number; error?: string }>((resolve) => {
    const started = performance.now()
    const req = httpRequest(url, {
      method: "POST",
      agent,
      headers: { "content-type": "application/json", authorization: `Bearer ${BENCH_KEY}`, "content-length": Buffer.byteLength(body) }
    }, (res) => {
      // The body is kept only for failures (their error message says what went wrong).
      let text = ""
      const ok = res.statusCode === 200
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        if (!ok && text.length < 300) text += chunk
      })
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, ...(ok ? {} : { error: text.slice(0, 300) }) }))
    })
    req.on("error", (error: NodeJS.ErrnoException) => resolve({ status: 0, ms: performance.now() - started, error: error.code ?? error.message }))
    req.end(body)
  })

/** A failing run of `steps` steps, each padded with `pad` words; `salt` makes it a new trace. */
export const ledgerTrace = (steps: number, pad: number, salt: string) => ({
  task: `Reconcile invoices against the ledger (${salt})`,
  steps: Array.from({ length: steps }, (_, i) => ({
    type: i % 40 === 13 ? "error" : i % 3 === 0 ? "thought" : "tool_call",
    content: i % 40 === 13
      ? `Error 503 from ledger API on invoice ${i}`
      : `lookup(invoice=${i}) matched ledger row ${i * 3} amount ${(i * 17.5).toFixed(2)} ${"note ".repeat(pad)}`
  })),
  outcome: "Stopped after repeated ledger errors",
  success: false
})

/**
 * An OTLP/JSON ExportTraceServiceRequest of about `bytes`: an agent span over alternating chat
 * spans (OpenTelemetry GenAI `gen_ai.input.messages` carrying the conversation's last turns, as
 * instrumentations record them) and execute_tool spans, some failing.
 */
export const otlpExport = (bytes: number) => {
  const traceId = "5b8efff798038103d269b633813fc60c"
  const hex = (n: number) => n.toString(16).padStart(16, "0")
  const attr = (key: string, value: string | number) =>
    ({ key, value: typeof value === "number" ? { intValue: String(value) } : { stringValue: value } })
  const at = (i: number) => String(1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n)
  const spans: Array<Record<string, unknown>> = [{
    traceId,
    spanId: hex(1),
    name: "invoke_agent ledger",
    kind: 1,
    startTimeUnixNano: at(0),
    endTimeUnixNano: at(1_000_000),
    attributes: [attr("gen_ai.operation.name", "invoke_agent"), attr("gen_ai.agent.name", "ledger")],
    status: { code: 2, message: "stopped after repeated ledger errors" }
  }]
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const note = `invoice ${i} ledger row ${i * 3} amount ${(i * 17.5).toFixed(2)} ${"note ".repeat(60)}`
    const span: Record<string, unknown> = i % 2 === 0
      ? {
        traceId,
        spanId: hex(i + 2),
        parentSpanId: hex(1),
        name: "chat gpt-4o",
        kind: 3,
        startTimeUnixNano: at(i * 10 + 1),
        endTimeUnixNano: at(i * 10 + 5),
        attributes: [
          attr("gen_ai.operation.name", "chat"),
          attr("gen_ai.request.model", "gpt-4o"),
          attr("gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: `Reconcile ${note}` }] }])),
          attr("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "tool_call", id: `call_${i}`, name: "lookup", arguments: { invoice: i } }] }]))
        ],
        status: { code: 0 }
      }
      : {
        traceId,
        spanId: hex(i + 2),
        parentSpanId: hex(1),
        name: "execute_tool lookup",
        kind: 1,
        startTimeUnixNano: at(i * 10 + 6),
        endTimeUnixNano: at(i * 10 + 9),
        attributes: [
          attr("gen_ai.operation.name", "execute_tool"),
          attr("gen_ai.tool.name", "lookup"),
          attr("gen_ai.tool.call.id", `call_${i - 1}`),
          attr("gen_ai.tool.call.result", i % 7 === 1 ? `Error 503: ledger unavailable for ${note}` : `matched ${note}`)
        ],
        status: i % 7 === 1 ? { code: 2, message: "ledger unavailable" } : { code: 0 }
      }
    spans.push(span)
    size += JSON.stringify(span).length
  }
  return { resourceSpans: [{ resource: { attributes: [attr("service.name", "ledger-agent")] }, scopeSpans: [{ scope: { name: "bench" }, spans }] }] }
}

/** The machine a bench ran on, for its results file. */
export const machineOf = () => ({ cpus: cpus().length, cpu: cpus()[0]?.model ?? "unknown", memory_gib: round2(totalmem() / 2 ** 30), node: process.version })

/**
 * A bench's results: `bench/results/<prefix><time>.json`, and `<latest>` too when the run was whole
 * (a partial run does not replace what docs/performance.md records); then the rows on stdout.
 */
export const writeResults = <Report extends { readonly started: string; readonly machine: unknown; readonly rows: ReadonlyArray<Row> }>(
  report: Report,
  prefix: string,
  latest: string | undefined
): void => {
  const dir = join(import.meta.dirname, "results")
  mkdirSync(dir, { recursive: true })
  const text = `${JSON.stringify(report, null, 2)}\n`
  writeFileSync(join(dir, `${prefix}${report.started.replace(/[:.]/g, "-")}.json`), text)
  if (latest !== undefined) writeFileSync(join(dir, latest), text)
  console.table(report.rows.map(({ detail: _detail, ...row }) => row))
  for (const row of report.rows) if (row.detail !== undefined) console.log(`${row.scenario}: ${JSON.stringify(row.detail)}`)
  console.log(`machine: ${JSON.stringify(report.machine)}`)
}
