/**
 * A poisoned pending trace (issue 47), over the real service on a loopback port and its SQLite
 * store: a trace whose stored span group does not parse (written straight into the store, as a
 * disk error or another version could leave it) makes its assembly die each time. The assembly
 * logs and counts each death (`svc_background_errors_total{loop="assembly"}`), goes on with the
 * other traces, and at the third attempt makes the trace a run `failed: assembly_error` (its trace
 * id kept, listed like any run); a trace whose claims never completed (a process that died
 * assembling it, three times) is given up without being read, so neither comes back at each
 * start. The run's retry assembles the kept spans again: failed again while the bad group is
 * there, diagnosed once it is gone.
 */
import { createClient } from "@libsql/client"
import { describe, expect, it } from "@effect/vitest"
import { MetricLabel } from "effect"
import { randomBytes } from "node:crypto"
import { Run, RunTrace } from "../../src/Contract/RunsContract.js"
import { backgroundErrorsTotal, otlpTracesTotal } from "../../src/Observability/Metrics.js"
import { databaseFile } from "../../src/Store/RunStoreAccess.js"
import { call, decoded, freshHome, getRun, listRuns, metricSample, sleep, waitForRun } from "../runs/support.js"
import { type RunningService, startService } from "../support/Service.js"

const QUESTION = "Please cancel order 5150 before it ships."
const ANSWER = "Order 5150 is cancelled; you will not be charged."

const text = (key: string, value: string) => ({ key, value: { stringValue: value } })
const nanos = (ms: number) => (BigInt(ms) * 1_000_000n).toString()
const traceId = () => randomBytes(16).toString("hex")
const spanId = () => randomBytes(8).toString("hex")

/** An agent's trace as OTLP/JSON: `invoke_agent support_agent` with its conversation, around one tool call. */
const agentTrace = (trace: string) => {
  const at = Date.now() - 5_000
  const root = spanId()
  const span = (id: string, parent: string | undefined, name: string, attributes: ReadonlyArray<ReturnType<typeof text>>, offset: number) => ({
    traceId: trace,
    spanId: id,
    ...(parent === undefined ? {} : { parentSpanId: parent }),
    name,
    kind: 1,
    startTimeUnixNano: nanos(at + offset),
    endTimeUnixNano: nanos(at + 100 - offset),
    attributes,
    events: [],
    links: [],
    status: { code: 0 }
  })
  return {
    resourceSpans: [{
      resource: { attributes: [text("service.name", "orders-svc")] },
      scopeSpans: [{
        scope: { name: "poison-test", version: "1.0.0" },
        spans: [
          span(root, undefined, "invoke_agent support_agent", [
            text("gen_ai.operation.name", "invoke_agent"),
            text("gen_ai.agent.name", "support_agent"),
            text("gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: QUESTION }] }])),
            text("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: ANSWER }], finish_reason: "stop" }]))
          ], 0),
          span(spanId(), root, "execute_tool cancel_order", [
            text("gen_ai.operation.name", "execute_tool"),
            text("gen_ai.tool.name", "cancel_order"),
            text("gen_ai.tool.call.id", "call_cancel"),
            text("gen_ai.tool.call.arguments", "{\"order\":\"5150\"}"),
            text("gen_ai.tool.call.result", "{\"cancelled\":true}")
          ], 10)
        ]
      }]
    }]
  }
}

const exportTrace = async (service: RunningService, trace: string) => {
  const response = await call(service, "POST", "/v1/traces", { body: agentTrace(trace) })
  expect(response.status, await response.text()).toBe(200)
}

/** The run of a trace id, once it exists (polled every 100 ms). */
const runOf = async (service: RunningService, trace: string, until: (run: Run) => boolean = () => true): Promise<Run> => {
  const deadline = Date.now() + 30_000
  for (;;) {
    const { runs } = await listRuns(service, `?trace_id=${trace}`)
    const run = runs[0]
    if (run !== undefined && until(run)) return run
    if (Date.now() > deadline) throw new Error(`no run of trace ${trace} as expected; seen ${JSON.stringify(runs).slice(0, 400)}`)
    await sleep(100)
  }
}

/** A statement on the service's SQLite file beside the running service (tried again while the service holds its write lock). */
const execute = async (home: string, statement: string, args: ReadonlyArray<string | number>) => {
  const client = createClient({ url: `file:${databaseFile(home)}` })
  try {
    for (let tries = 0; ; tries++) {
      try {
        return await client.execute({ sql: statement, args: [...args] })
      } catch (error) {
        if (tries >= 50 || !String(error).includes("SQLITE_BUSY")) throw error
        await sleep(50)
      }
    }
  } finally {
    client.close()
  }
}

// the service runs in this process: its counters are read directly for a count from before it started
const assemblyErrors = () => backgroundErrorsTotal.unsafeValue([MetricLabel.make("loop", "assembly")]).count
const givenUpTraces = () => otlpTracesTotal.unsafeValue([MetricLabel.make("outcome", "assembly_error")]).count

describe("a poisoned pending trace (issue 47)", () => {
  it("fails its run with assembly_error after 3 attempts while the other traces are assembled; its retry assembles it again", async () => {
    const home = freshHome("poison")
    const poisoned = traceId()
    const crashed = traceId()
    const healthy = traceId()

    // A service whose traces never complete keeps the poisoned trace's spans, as the receiver stores them.
    const first = await startService({ SVC_HOME: home, SVC_OTLP_QUIET_SECONDS: "3600", SVC_OTLP_MAX_AGE_SECONDS: "3600" })
    try {
      await exportTrace(first, poisoned)
    } finally {
      await first.close()
    }
    const stored = await execute(home, "SELECT scope, last_at FROM otlp_traces WHERE trace_id = ?", [poisoned])
    const scope = String(stored.rows[0]?.["scope"])
    const lastAt = Number(stored.rows[0]?.["last_at"])
    // a group that does not parse, beside the good ones
    await execute(home, "INSERT INTO otlp_items (scope, trace_id, item_id, kind, received_at, position, body) VALUES (?, ?, 'torn', 'spans', ?, 0, ?)", [
      scope,
      poisoned,
      lastAt,
      "{\"resource\":{\"attributes\":[]},\"spans\":[{\"traceId\""
    ])
    // a trace claimed three times by processes that died while assembling it (a crash loop's row)
    await execute(home, `INSERT INTO otlp_traces (scope, trace_id, key_name, state, first_at, last_at, rooted, spans, bytes, late, lease_owner, lease_until, attempts)
                         VALUES (?, ?, NULL, 'claimed', ?, ?, 1, 2, 100, 0, 'a-dead-process', ?, 3)`, [scope, crashed, lastAt, lastAt, lastAt + 60_000])

    const errorsBefore = assemblyErrors()
    const givenUpBefore = givenUpTraces()
    // restarted on the same home (workers on: the store is opened at start, and assembly with it)
    const service = await startService({
      SVC_HOME: home,
      SVC_OTLP_QUIET_SECONDS: "1",
      SVC_OTLP_MAX_AGE_SECONDS: "60",
      SVC_OTLP_DIAGNOSE: "all",
      SVC_WORKERS: "1"
    })
    try {
      await exportTrace(service, healthy)

      const failed = await runOf(service, poisoned)
      expect(failed).toMatchObject({ status: "failed", source: "otlp", trace_id: poisoned, reason: null, attempts: 0, error: { error: "assembly_error" } })
      expect(failed.error?.message).toContain("could not be assembled (3 attempts)")
      expect(failed.error?.message).toContain("SyntaxError")
      const givenUp = await runOf(service, crashed)
      expect(givenUp).toMatchObject({ status: "failed", source: "otlp", trace_id: crashed, error: { error: "assembly_error" } })
      expect(givenUp.error?.message).toContain("claimed 4 times")
      // the loop went on: the healthy trace sent after them is a run
      expect((await runOf(service, healthy)).labels).toEqual({ service: "orders-svc", agent: "support_agent" })
      // listed like any run, its trace id kept
      const listed = await listRuns(service, "?status=failed&limit=200")
      expect(listed.runs.map((run) => run.trace_id)).toEqual(expect.arrayContaining([poisoned, crashed]))

      // three deaths of the poisoned trace and the crash-looped one, each counted; nothing else
      expect(assemblyErrors() - errorsBefore).toBe(4)
      const metrics = await (await fetch(`${service.url}/metrics`)).text()
      expect(metricSample(metrics, "svc_background_errors_total", { loop: "assembly" })).toBeGreaterThanOrEqual(4)
      expect(givenUpTraces() - givenUpBefore).toBe(2)
      expect(metricSample(metrics, "svc_otlp_traces_total", { outcome: "assembly_error" })).toBeGreaterThanOrEqual(2)
      // given up, never claimed again: the store holds them failed, the spans of the poisoned one kept
      const rows = await execute(home, "SELECT trace_id, state, attempts, run_id FROM otlp_traces WHERE trace_id IN (?, ?) ORDER BY trace_id", [poisoned, crashed])
      expect(rows.rows.map((row) => [row["trace_id"], row["state"], Number(row["attempts"]), row["run_id"]]).sort()).toEqual(
        [[poisoned, "failed", 3, failed.id], [crashed, "failed", 4, givenUp.id]].sort()
      )

      // retried with the torn group still there: assembled again, and failed again
      const retried = await decoded(await call(service, "POST", `/v1/runs/${failed.id}/retry`), 200, Run)
      expect(retried).toMatchObject({ id: failed.id, status: "queued", error: null })
      const again = await waitForRun(service, failed.id, { until: (run) => run.status === "failed" && run.attempts >= 1 })
      expect(again.error?.error).toBe("assembly_error")
      expect(again.error?.message).toContain("still cannot be assembled")

      // the torn group gone (the cause fixed): the retry assembles the kept spans and diagnoses them
      await execute(home, "DELETE FROM otlp_items WHERE trace_id = ? AND item_id = 'torn'", [poisoned])
      await decoded(await call(service, "POST", `/v1/runs/${failed.id}/retry`), 200, Run)
      const diagnosed = await waitForRun(service, failed.id, { until: (run) => run.status !== "queued" && run.status !== "running" && run.attempts >= 1 })
      expect(diagnosed.error?.error).not.toBe("assembly_error")
      expect(diagnosed.labels).toEqual({ service: "orders-svc", agent: "support_agent" })
      const trace = await decoded(await call(service, "GET", `/v1/runs/${failed.id}/trace`), 200, RunTrace)
      expect(trace.trace.id).toBe(poisoned)
      expect(trace.trace.events.map((event) => event.content)).toEqual(expect.arrayContaining([QUESTION, ANSWER]))
      expect((await getRun(service, givenUp.id)).status).toBe("failed")
    } finally {
      await service.close()
    }
  })
})
