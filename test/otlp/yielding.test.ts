/**
 * Background work gives the event loop its turns (issue 47, src/Lifecycle/Slices.ts): while 10,000
 * one-span traces complete, and while 20,000 runs export, a timer set in the service's process fires
 * long before the work ends. Before, both ran in one chain of microtasks: no timer, probe or request
 * was served until the last trace was a run, or the last line was written.
 *
 * The service runs in this process, so its event loop is the test's: a timer's firing is the turn
 * the work gave. Timers are armed one after another (`setTimeout(0)`, each set when the last fired);
 * at each firing the work done so far is read synchronously, in the service's own terms: the
 * traces completed (`svc_otlp_traces_total`, the counter /metrics shows), the export's bytes the
 * server wrote (its socket's `bytesWritten`, from Node's `http.server.request.start` channel). The
 * firing that first sees a tenth of the work done is "the timer set while the work runs"; what it
 * reads must be short of the whole.
 *
 * The work must be one backlog when it starts: the traces are kept by a service with a quiet window
 * of an hour, then completed by a second one on the same SVC_HOME once a second passed (all due at
 * once, as after a restart); the export is read by another process, so the server never waits for
 * its reader (a reader in this process would give the loop turns through the socket's backpressure).
 */
import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Metric, Option } from "effect"
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { subscribe, unsubscribe } from "node:diagnostics_channel"
import { Socket } from "node:net"
import { otlpTracesTotal } from "../../src/Observability/Metrics.js"
import { databaseFile } from "../../src/Store/RunStoreAccess.js"
import { RunStore } from "../../src/Store/Runs.js"
import { sqliteLayer } from "../../src/Store/Sql.js"
import { chatTrace, freshHome, submitOne } from "../runs/support.js"
import { storesLayer } from "../support/RunStore.js"
import { startService } from "../support/Service.js"
import { buildTrace, tracesRequest, until } from "./support.js"

const TRACES = 10_000
const BATCH = 1_000
const RUNS = 20_000

/** Every outcome a completed trace is counted under. */
const OUTCOMES = ["queued", "not_failed", "sampled_out", "no_agent", "refused", "assembly_error"] as const

/** Traces completed in this process so far, read at once (no I/O): the sum of `svc_otlp_traces_total`. */
const completed = (): number =>
  OUTCOMES.reduce((sum, outcome) => sum + Effect.runSync(Metric.value(Metric.tagged(otlpTracesTotal, "outcome", outcome))).count, 0)

/**
 * Timers armed one after another, each when the last fired, until one reads `from` or more of
 * `progress`: what that firing read. A timer fires only in a turn of the event loop. Aborted, the
 * timers stop (a test that failed before waiting for them leaves none running).
 */
const firingFrom = (progress: () => number, from: number, withinMs: number, signal: AbortSignal): Promise<number> => {
  const firing = new Promise<number>((resolve, reject) => {
    const deadline = Date.now() + withinMs
    const fire = () => {
      const read = progress()
      if (read >= from) resolve(read)
      else if (signal.aborted) reject(new Error("stopped"))
      else if (Date.now() > deadline) reject(new Error(`no timer fired with ${from} or more done within ${withinMs} ms (last read ${read})`))
      else setTimeout(fire, 0)
    }
    setTimeout(fire, 0)
  })
  // observed where it is awaited; a test that failed first does not await it
  firing.catch(() => undefined)
  return firing
}

/** GET `url` from another process: the status, the lines and bytes of the body. */
const readElsewhere = (url: string): Promise<{ readonly status: number; readonly lines: number; readonly bytes: number }> =>
  new Promise((resolve, reject) => {
    const script = `
      const http = require("node:http")
      http.get(process.argv[1], (res) => {
        let lines = 0, bytes = 0
        res.on("data", (chunk) => { bytes += chunk.length; for (const byte of chunk) if (byte === 10) lines++ })
        res.on("end", () => process.stdout.write(JSON.stringify({ status: res.statusCode, lines, bytes })))
      }).on("error", (error) => { process.stderr.write(String(error)); process.exit(1) })`
    const child = spawn(process.execPath, ["-e", script, url], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk))
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`the reader exited ${code}: ${err}`))
      const answer: unknown = JSON.parse(out)
      const field = (name: string) => Number(typeof answer === "object" && answer !== null ? Reflect.get(answer, name) : Number.NaN)
      resolve({ status: field("status"), lines: field("lines"), bytes: field("bytes") })
    })
  })

describe("background work in slices, the event loop served between them", () => {
  it(`a timer set while ${TRACES.toLocaleString("en")} one-span traces complete fires long before the last completes`, async () => {
    const home = freshHome("yield-traces")
    // kept, none complete: a quiet window of an hour
    const keeper = await startService({ SVC_HOME: home, SVC_OTLP_QUIET_SECONDS: "3600", SVC_OTLP_MAX_AGE_SECONDS: "86400" })
    let lastKept = 0
    try {
      for (let from = 0; from < TRACES; from += BATCH) {
        const spans = Array.from({ length: BATCH }, (_, i) => buildTrace(47, from + i, 0).root)
        const answer = await fetch(`${keeper.url}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(tracesRequest(spans)) })
        const text = await answer.text()
        expect(answer.status, text.slice(0, 400)).toBe(200)
        // a full success: no partialSuccess
        expect(text).toBe("{}")
        lastKept = Date.now()
      }
    } finally {
      await keeper.close()
    }
    // all due at once for a service whose quiet window is a second
    await until("the quiet window after the last batch", () => Date.now() > lastKept + 1_100, 5_000)
    const before = completed()
    const service = await startService({ SVC_HOME: home, SVC_OTLP_QUIET_SECONDS: "1" })
    const timers = new AbortController()
    try {
      const done = () => completed() - before
      const firing = firingFrom(done, TRACES / 10, 120_000, timers.signal)
      // the store opens on first use: then the assembly starts, and finds the backlog due
      expect((await fetch(`${service.url}/v1/runs?limit=1`)).status).toBe(200)
      const read = await firing
      expect(read).toBeGreaterThanOrEqual(TRACES / 10)
      expect(read).toBeLessThan(TRACES / 2)
    } finally {
      timers.abort()
      // the rest is not waited for (on the loaded 2-core machine the whole backlog takes 90 s, the
      // first tenth 10 s): the service stops mid-round, its claims released at the next start
      await service.close()
    }
  }, 240_000)

  it(`a timer set while ${RUNS.toLocaleString("en")} runs export fires long before the export ends`, async () => {
    const home = freshHome("yield-export")
    const first = await startService({ SVC_HOME: home })
    const id = await submitOne(first, { trace: chatTrace("yield-export") }).finally(() => first.close())
    // copies of that run, made by the store's own insert (a restore), in one transaction
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(storesLayer().pipe(Layer.provideMerge(sqliteLayer(databaseFile(home)))))
      const store = Context.get(context, RunStore)
      const sql = Context.get(context, SqlClient.SqlClient)
      const run = Option.getOrThrow(yield* store.get("shared", id))
      yield* sql.withTransaction(Effect.forEach(Array.from({ length: RUNS - 1 }, (_, i) => i), (i) =>
        store.restore("shared", { ...run, id: `run_${randomBytes(16).toString("base64url")}`, dedupeKey: `${run.dedupeKey}-${i}`, submittedAt: run.submittedAt + i + 1 }), { discard: true }))
    })))

    const service = await startService({ SVC_HOME: home })
    let socket: Socket | undefined
    const onRequest = (message: unknown) => {
      const request: unknown = typeof message === "object" && message !== null ? Reflect.get(message, "request") : undefined
      const url: unknown = typeof request === "object" && request !== null ? Reflect.get(request, "url") : undefined
      const found: unknown = typeof message === "object" && message !== null ? Reflect.get(message, "socket") : undefined
      if (typeof url === "string" && url.startsWith("/v1/runs/export") && found instanceof Socket) {
        socket = found
      }
    }
    subscribe("http.server.request.start", onRequest)
    const timers = new AbortController()
    try {
      const written = () => socket?.bytesWritten ?? 0
      const firing = firingFrom(written, 2 * 2 ** 20, 120_000, timers.signal)
      const answer = await readElsewhere(`${service.url}/v1/runs/export`)
      const read = await firing
      expect(answer).toMatchObject({ status: 200, lines: RUNS })
      const total = written()
      expect(total).toBeGreaterThan(answer.bytes)
      expect(read).toBeGreaterThanOrEqual(2 * 2 ** 20)
      expect(read).toBeLessThan(total / 2)
    } finally {
      timers.abort()
      unsubscribe("http.server.request.start", onRequest)
      await service.close()
    }
  }, 240_000)
})
